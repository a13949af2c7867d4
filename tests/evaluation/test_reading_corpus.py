"""The reading corpora: questions where a dropped word made a confident wrong answer.

`tests/corpus/reading.jsonl` holds, per reading class of issue "every word accounted for" (a
place inside a time phrase, measures the bundled data lack, numbers in the question, a second
name, two windows, collective words, every value, time phrases, near-miss measures, advice), our
own phrasings in English and Chinese with what a right answer does — including the answers whose
right status is `no_data` or a part-answer with a note. `tests/corpus/datacopilot.jsonl` holds
Data-Copilot's 29 example queries as published (zwq2018/Data-Copilot,
prompt_lib/prompt_intent_detection.json, with their own "today") and the status each must get
offline (no A-share, fund or fundamentals data is bundled), then their US equivalents (`of` names
the example), whose figures are computed here from the source datasets with pandas
(`support/numeric_expect.py`). Every case runs through the full offline pipeline and must pass.
"""

from __future__ import annotations

import json
import math
from datetime import date
from typing import Any

import pytest
from support import paths
from support.numeric_expect import (
    TRADING_DAYS,
    daily_returns,
    levels,
    period_return,
    shown_numbers,
    shows,
)
from support.numeric_expect import expected as expected_figures

from datapilot.core.answer import Answer
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.evaluation import Case, load_corpus, score

READING = paths.CORPUS / "reading.jsonl"
DATACOPILOT = paths.CORPUS / "datacopilot.jsonl"
CASES = load_corpus(READING) + load_corpus(DATACOPILOT)
RAW = {
    raw["id"]: raw
    for path in (READING, DATACOPILOT)
    for raw in map(json.loads, path.read_text(encoding="utf-8").splitlines())
}
CLASSES = {
    "place",
    "measure",
    "number",
    "second_name",
    "two_windows",
    "collective",
    "completeness",
    "time_phrase",
    "near_miss",
    "advice",
    # Words recognised but not honoured by any plan: no figure for another question.
    "period_word",
    "threshold",
    "exclusion",
    "date_asked",
    "distance",
    # Honesty families: measures no data holds, a window after the data, not a data request.
    "unbundled_measure",
    "future_window",
    "not_data",
    "families",
    # Questions asking two things ("…and by how many points"): both answered, or not ok.
    "multi_part",
    # Statistics of a series a measure produced (the peak of a rolling volatility).
    "series_stat",
    # How many times one figure is another: the ratio shown, or the words declined.
    "ratio",
}


async def _ask(query: str, today: date) -> Answer:
    from datapilot.brains import answer as ask
    from datapilot.core.context import QuestionContext
    from datapilot.engine.context import RequestContext
    from datapilot.settings import get_settings

    context = QuestionContext(today=today, brain="offline")
    return await ask(query, RequestContext.for_request(context, get_settings()))


def test_every_class_in_both_languages_with_honest_statuses() -> None:
    reading = [RAW[c.id] for c in load_corpus(READING)]
    assert {r["class"] for r in reading} == CLASSES
    for name in CLASSES - {"two_windows"}:
        assert {r["lang"] for r in reading if r["class"] == name} == {"en", "zh"}, name
    statuses = {r["expect"]["status"] for r in reading}
    assert {"ok", "no_data", "out_of_scope"} <= statuses


def test_data_copilots_29_examples_and_their_us_equivalents() -> None:
    examples = [r for r in RAW.values() if r["id"].startswith("dc")]
    assert len(examples) == 29 and all(r["lang"] == "zh" for r in examples)
    equivalents = {r["of"] for r in RAW.values() if r["id"].startswith("us")}
    assert equivalents == {r["id"] for r in examples}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_reading_case(case: Case, data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask(case.query, case.today)
    failures, _ = score(case, answer)
    if answer.status == "ok":
        shown = [o for o in answer.outputs if isinstance(o, ChartOutput | TableOutput)]
        if not shown and not any(isinstance(o, TextOutput) for o in answer.outputs):
            failures.append("ok with nothing to show")
    else:
        if not answer.message:
            failures.append(f"{answer.status} without a message saying why")
        if answer.outputs:
            failures.append(f"{answer.status} with outputs")
    assert not failures, f"{case.query!r} ({answer.status}): " + "; ".join(failures)


def _found(answer: Answer) -> list[float]:
    cells = [c for o in answer.outputs if isinstance(o, TableOutput) for r in o.rows for c in r]
    return shown_numbers(answer.summary or "", cells)


US_FIGURES = [r for r in RAW.values() if "numeric" in r]


@pytest.mark.parametrize("raw", US_FIGURES, ids=[r["id"] for r in US_FIGURES])
async def test_us_equivalent_figures(raw: dict[str, Any], data) -> None:  # type: ignore[no-untyped-def]
    spec = {**raw["numeric"], **{k: raw["expect"][k] for k in ("ids", "start", "end")}}
    want = expected_figures(spec)
    assert want.figures
    answer = await _ask(raw["query"], date.fromisoformat(raw["today"]))
    assert answer.status == "ok"
    found = _found(answer)
    missing = [f"{v:.2f}" for v, signed in want.figures if not shows(v, signed, found)]
    assert missing == [], f"{raw['query']!r}: {missing} not in {answer.summary!r}"


@pytest.mark.parametrize(
    "question",
    [
        "Coca-Cola's return in 2018 and its volatility in 2020",
        "可口可乐2018年的收益率和2020年的波动率",
    ],
)
async def test_each_part_is_measured_over_its_own_window(question: str, data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask(question, date(2022, 12, 28))
    assert answer.status == "ok"
    base = {"source": "skfolio_sp500", "window": "calendar"}
    ret = levels({**base, "start": "2018-01-01", "end": "2018-12-31"}, "KO")
    vol = daily_returns(levels({**base, "start": "2020-01-01", "end": "2020-12-31"}, "KO"))
    wanted = [period_return(ret), vol.std(ddof=1) * math.sqrt(TRADING_DAYS)]
    found = _found(answer)
    assert all(shows(value, True, found) for value in wanted), (wanted, answer.summary)
    # The merged window's figures are not what was asked.
    merged = levels({**base, "start": "2018-01-01", "end": "2020-12-31"}, "KO")
    assert not shows(period_return(merged), True, found)


@pytest.mark.parametrize(
    "question",
    [
        "AAPL return in the two weeks after 2020-03-23 and the two weeks before 2020-12-31",
        "苹果在2020-03-23之后的两周和2020-12-31之前的两周分别涨了多少",
    ],
)
async def test_lengths_anchored_on_days_are_parts_however_short(question: str, data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask(question, date(2022, 12, 28))
    assert answer.status == "ok" and len(answer.intent.parts) == 2
    base = {"source": "skfolio_sp500", "window": "range"}
    after = levels({**base, "start": "2020-03-23", "end": "2020-04-06"}, "AAPL")
    before = levels({**base, "start": "2020-12-17", "end": "2020-12-31"}, "AAPL")
    found = _found(answer)
    wanted = [period_return(after), period_return(before)]
    assert all(shows(value, True, found) for value in wanted), (wanted, answer.summary)
