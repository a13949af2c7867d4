"""A weak model never costs a right answer: where the offline reader answers a question, a model
that reads it otherwise (another window, other entities, no answer) gives way to the reader."""

from __future__ import annotations

import copy
import json
from datetime import date
from typing import Any

import pytest
from support import paths
from support.llm import LOOPBACK, TEST_REGISTRY, client_for, small_catalog, time_limit

from datapilot.brains.llm import LLMBrain
from datapilot.core.answer import AnswerStatus
from datapilot.core.context import QuestionContext
from datapilot.core.intent import EntityRef, Intent
from datapilot.core.plan import Call, Plan, Step
from datapilot.engine.brain import Understanding
from datapilot.model_client.health import forget_health
from datapilot.model_client.scripted import Reply, ScriptedEndpoint
from datapilot.settings import Settings

pytestmark = LOOPBACK

GOOD = json.loads((paths.LLM_CASES / "good_reply.json").read_text(encoding="utf-8"))
QUESTION = "Compare the cumulative returns of Apple and Microsoft in 2021"
ZH_QUESTION = "比较苹果和微软2021年的累计收益率"


class Reader:
    """A reader that answers the question: Apple and Microsoft over 2021."""

    name = "offline"

    def __init__(self, status: AnswerStatus = "ok") -> None:
        self.status = status

    async def understand(self, question: str, context: QuestionContext) -> Understanding:
        intent = Intent(
            rewritten="reader: Apple and Microsoft, 2021",
            entities=[
                EntityRef(id="AAPL", kind="stock", name="Apple Inc."),
                EntityRef(id="MSFT", kind="stock", name="Microsoft Corporation"),
            ],
            start=date(2021, 1, 1),
            end=date(2021, 12, 31),
        )
        if self.status != "ok":
            return Understanding(status=self.status, intent=intent, message="reader: none")
        fetch = Call(interface="get_prices", args={"ids": ["AAPL", "MSFT"]}, output="p")
        return Understanding(intent=intent, plan=Plan(steps=[Step(calls=[fetch])]))

    async def summarize(self, *args: Any) -> Any:
        yield "reader summary"


def _reply(**intent: Any) -> Reply:
    body = copy.deepcopy(GOOD)
    body["intent"].update(intent)
    return Reply(content=json.dumps(body))


async def _understand(reply: Reply, question: str = QUESTION, reader: Reader | None = None):
    forget_health()
    with ScriptedEndpoint([reply]) as endpoint:
        client_for(endpoint)  # a fresh memory of what endpoints accept
        settings = Settings(llm_base_url=endpoint.base_url, llm_model="m", llm_max_retries=0)
        brain = LLMBrain(
            settings, registry=TEST_REGISTRY, catalog=small_catalog(), fallback=reader or Reader()
        )
        return await brain.understand(question, QuestionContext(today=date(2022, 1, 15)))


@time_limit(20)
async def test_a_model_that_reads_the_question_as_the_reader_does_is_used() -> None:
    understanding = await _understand(_reply())
    assert understanding.intent.rewritten.startswith("Compare")  # the model's
    assert understanding.notes == []
    assert (understanding.usage.llm_calls, understanding.usage.llm_calls_used) == (1, 1)


@pytest.mark.parametrize(
    ("wrong", "why"),
    [
        ({"start": "2021-01-04"}, "window 2021-01-04..2021-12-31"),
        (
            {"entities": [{"name": "Apple", "id": "AAPL"}, {"name": "S&P 500", "id": "^GSPC"}]},
            "entities ['AAPL', 'MSFT', '^GSPC']",
        ),
    ],
)
@time_limit(20)
async def test_a_model_that_reads_another_window_or_other_entities_gives_way(
    wrong: dict[str, Any], why: str
) -> None:
    understanding = await _understand(_reply(**wrong))
    assert understanding.intent.rewritten.startswith("reader:")
    assert understanding.notes[0].startswith("The model read the question differently")
    assert any(why in line for line in understanding.intent.trace)
    assert (understanding.usage.llm_calls, understanding.usage.llm_calls_used) == (1, 0)


@time_limit(20)
async def test_a_model_giving_up_on_a_question_the_reader_answers_gives_way_in_chinese() -> None:
    gave_up = Reply(content='{"status": "out_of_scope", "message": "not finance"}')
    understanding = await _understand(gave_up, ZH_QUESTION)
    assert understanding.status == "ok"
    assert understanding.intent.rewritten.startswith("reader:")
    assert understanding.notes[0] == "模型对问题的理解与离线阅读器不同，这里给出离线阅读器的答案。"


@time_limit(20)
async def test_where_the_reader_cannot_read_the_question_the_model_answers() -> None:
    understanding = await _understand(_reply(start="2021-01-04"), reader=Reader("out_of_scope"))
    assert understanding.intent.rewritten.startswith("Compare")
    assert understanding.status == "ok"
