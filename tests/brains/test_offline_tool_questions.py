"""A set of tool questions (`support.tool_questions`) read offline against real loopback services
(the FX and weather API, the Qianfan to-do plugin, an MCP server with two tools) and four
schema-only tools: no question ends in a wrong call, checked on what each service received, and
most end in the right one; the rest ask (which tool, or an argument not given) or use no tool."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest
from support.live_server import LOOPBACK
from support.tool_questions import ASK, CALL, CASES, NONE, Case, Outcome, question_tools

from datapilot.brains.offline import OfflineBrain

pytestmark = LOOPBACK

# Right calls the set must keep reaching (of the cases expecting one); the others may ask.
RIGHT_FLOOR = 82


@pytest.fixture(scope="module")
def outcomes(data) -> Iterator[dict[str, Outcome]]:  # type: ignore[no-untyped-def]
    with question_tools(OfflineBrain(catalog=data.catalog)) as tools:

        async def all_outcomes() -> dict[str, Outcome]:
            return {case.question: await tools.outcome(case.question) for case in CASES}

        yield asyncio.run(all_outcomes())


def test_the_set_covers_every_service_in_both_languages() -> None:
    kinds = Counter(case.kind for case in CASES)
    assert len(CASES) >= 60 and kinds[ASK] >= 10 and kinds[NONE] >= 5
    tools = {case.tool for case in CASES if case.kind == CALL}
    assert {"getFxRate", "dailyWeather", "todo", "closes", "add_note"} <= tools
    chinese = [c for c in CASES if any("\u4e00" <= ch <= "\u9fff" for ch in c.question)]
    assert len(chinese) >= 15


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.question)
def test_no_question_ends_in_a_wrong_call(case: Case, outcomes: dict[str, Outcome]) -> None:
    got = outcomes[case.question]
    assert not got.wrong(case), (case, got)


def test_most_questions_end_in_the_right_call(outcomes: dict[str, Outcome]) -> None:
    right = [c.question for c in CASES if outcomes[c.question].right(c)]
    missed = [
        (c.question, outcomes[c.question].kind)
        for c in CASES
        if c.kind == CALL and c.question not in right
    ]
    assert len(right) >= RIGHT_FLOOR, missed
