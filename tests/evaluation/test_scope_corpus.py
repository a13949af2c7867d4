"""The scope corpus: what is asked is what is answered, or it says why not.

`tests/corpus/scope.jsonl` holds the families where a wrong answer looks like a right one:
measures the bundled data cannot give (valuation ratios, fundamentals, news, the members'
fundamentals) and questions that are not about data (jokes, the weather, investment advice), which
must never come back `ok` with another measure; partial answers that name what is missing; tables
when a table is asked; multi-part questions; loops over the bundled index members; chart options;
names as people type them; written date ranges; and relative windows moved to the data's last
date. Every case runs through the full offline pipeline with its own `today` and must pass. The
figures the cases quote were checked against the source data in the families of
`tests/evaluation/test_numeric_corpus.py` (AAPL 2021 34.65%, S&P 500 2008 −38.49%) or read off
the bundled CSVs by hand.
"""

from __future__ import annotations

import pytest
from support import paths

from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.evaluation import Case, load_corpus, score

CORPUS = paths.CORPUS / "scope.jsonl"
CASES = load_corpus(CORPUS)


def test_corpus_size_and_languages() -> None:
    assert len(CASES) >= 60
    assert sum(c.lang == "zh" for c in CASES) >= 25
    assert len({c.id for c in CASES}) == len(CASES)
    statuses = {c.expect.status for c in CASES}
    assert {"ok", "no_data", "out_of_scope"} <= statuses


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_scope_case(case: Case, data) -> None:  # type: ignore[no-untyped-def]
    from datapilot.brains import answer as ask
    from datapilot.core.context import QuestionContext
    from datapilot.engine.context import RequestContext
    from datapilot.settings import get_settings

    context = QuestionContext(today=case.today, brain="offline")
    answer = await ask(case.query, RequestContext.for_request(context, get_settings()))
    failures, _ = score(case, answer)
    # What any answer owes its user, whatever the case expects.
    if answer.status == "ok":
        shown = [o for o in answer.outputs if isinstance(o, ChartOutput | TableOutput)]
        if not shown and not any(isinstance(o, TextOutput) for o in answer.outputs):
            failures.append("ok with nothing to show")
        charts = [o for o in shown if isinstance(o, ChartOutput)]
        failures += [f"empty chart {o.title!r}" for o in charts if not o.spec.rows]
    else:
        if not answer.message:
            failures.append(f"{answer.status} without a message saying why")
        if answer.outputs:
            failures.append(f"{answer.status} with outputs")
    assert not failures, f"{case.query!r} ({answer.status}): " + "; ".join(failures)
