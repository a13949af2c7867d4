"""The numeric corpus: do the answers show the right numbers?

Each case of `tests/corpus/numeric.jsonl` is asked through the full offline pipeline with its own
`today`; its expected figures are computed here from the source datasets with plain pandas
(`support/numeric_expect.py`, which never imports Datapilot), following the README's conventions. A
case passes when the status is ok and every expected figure, rounded to 2 decimals, appears in the
summary or in a table's cells ("34.65%", "−13.71", "13,465.23" all count), and every expected date
(best / worst days) appears there too.

`KNOWN_GAPS` lists the cases that fail today; they run as non-strict xfails, so a fix shows up
as XPASS and its id can be removed. Score the corpus by family with
`PYTHONPATH=tests python tests/evaluation/test_numeric_corpus.py` (the helpers in tests/support
are importable as they are under pytest).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pytest
from support import paths
from support.numeric_expect import date_shown, expected, shown_numbers, shows

CORPUS = paths.CORPUS / "numeric.jsonl"

# Cases failing today, while the base, window and summary conventions are being built. Remove an
# id as soon as its case passes (pytest reports it as XPASS).
KNOWN_GAPS: list[str] = []

FAMILIES = {
    "calendar_return",
    "index_return",
    "trailing_return",
    "latest_window",
    "cumulative_return",
    "cagr",
    "volatility",
    "max_drawdown",
    "extreme_days",
    "growth",
    "top_bottom",
    "macro_growth",
    "period_table",
    "mean_daily_return",
    "factor_cumulative",
    "sharpe",
    "period_extremes",
    "count_days",
    "distance_from_peak",
    "level_extreme",
    "exclusion",
    "leverage",
}


def load_cases() -> list[dict[str, Any]]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = load_cases()


@dataclass
class Outcome:
    case: dict[str, Any]
    status: str
    missing: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.status == "ok" and not self.missing

    def describe(self) -> str:
        case = self.case
        problems = ([] if self.status == "ok" else [f"status {self.status}"]) + [
            f"missing {m}" for m in self.missing
        ]
        return f"{case['id']} [{case['family']}] {case['query']!r}: {'; '.join(problems)}"


async def ask_case(case: dict[str, Any]) -> Outcome:
    """Ask the case's question offline with its `today` and check the figures it shows."""
    from datapilot.brains import answer as ask
    from datapilot.core.context import QuestionContext
    from datapilot.core.outputs import TableOutput
    from datapilot.engine.context import RequestContext
    from datapilot.settings import get_settings

    context = QuestionContext(today=date.fromisoformat(case["today"]), brain="offline")
    answer = await ask(case["query"], RequestContext.for_request(context, get_settings()))
    summary = answer.summary or ""
    cells = [
        cell
        for output in answer.outputs
        if isinstance(output, TableOutput)
        for row in output.rows
        for cell in row
    ]
    found = shown_numbers(summary, cells)
    texts = [summary, *(str(cell) for cell in cells)]
    want = expected(case["expect"])
    missing = [f"{value:.2f}" for value, signed in want.figures if not shows(value, signed, found)]
    missing += [day for day in want.dates if not date_shown(day, texts)]
    return Outcome(case, str(answer.status), missing)


def test_corpus_covers_every_family_in_both_languages() -> None:
    assert len(CASES) >= 100
    assert sum(c["lang"] == "zh" for c in CASES) >= 40
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert {c["family"] for c in CASES} == FAMILIES
    for family in FAMILIES:
        langs = {c["lang"] for c in CASES if c["family"] == family}
        assert langs == {"en", "zh"}, f"{family} is asked only in {langs}"
    assert set(KNOWN_GAPS) <= {c["id"] for c in CASES}, "KNOWN_GAPS names an unknown case"


def test_every_expectation_is_computable() -> None:
    for case in CASES:
        want = expected(case["expect"])
        assert want.figures, f"{case['id']} expects no figure"
        assert all(v == v for v, _ in want.figures), f"{case['id']} has a NaN expectation"


def test_reference_figures() -> None:
    """Figures checked by hand against the source data: the computation itself is right."""
    by_id = {c["id"]: c for c in CASES}
    assert round(expected(by_id["n001"]["expect"]).figures[0][0], 2) == 34.65  # AAPL 2021
    assert round(expected(by_id["n002"]["expect"]).figures[0][0], 2) == -13.71  # JPM YTD 2022
    assert round(expected(by_id["n018"]["expect"]).figures[0][0], 2) == -38.49  # S&P 500 2008
    assert round(expected(by_id["n105"]["expect"]).figures[0][0], 2) == 90.97  # HML 2000–2010


def test_matching_reads_the_usual_renderings() -> None:
    found = shown_numbers("went from 130.74 on 2020-12-31 to 13,465.23; fell −13.71%", ["-0.5%"])
    assert shows(13465.234, True, found) and shows(-13.709, True, found)
    assert shows(-0.5, True, found) and not shows(0.5, True, found)
    assert shows(13.71, False, found)  # a drawdown said without its sign
    assert not shows(12.31, True, found) and not shows(2020.0, True, found)
    assert date_shown("2020-03-16", ["最差的一天是2020年3月16日"])
    assert date_shown("2020-03-16", ["on March 16, 2020"]) and date_shown(
        "2020-03-16", ["2020-03-16T00:00"]
    )
    assert not date_shown("2020-03-16", ["2020-03-17"])


def _param(case: dict[str, Any]) -> Any:
    marks = []
    if case["id"] in KNOWN_GAPS:
        marks.append(pytest.mark.xfail(strict=False, reason=f"known gap ({case['family']})"))
    return pytest.param(case, id=case["id"], marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
async def test_numeric_case(case: dict[str, Any], data) -> None:  # type: ignore[no-untyped-def]
    outcome = await ask_case(case)
    assert outcome.passed, outcome.describe()


# ---- scoring by family from the command line --------------------------------------------------
def score_by_family(outcomes: list[Outcome]) -> str:
    """One line per family: passed / total and the failing ids."""
    families: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        families[outcome.case["family"]].append(outcome)
    lines = []
    for family, items in sorted(families.items()):
        passed = sum(o.passed for o in items)
        failing = " ".join(o.case["id"] for o in items if not o.passed)
        lines.append(f"{family:<18} {passed:>3}/{len(items):<3} {failing}")
    total = sum(o.passed for o in outcomes)
    lines.append(f"{'total':<18} {total:>3}/{len(outcomes)}")
    return "\n".join(lines)


async def _score_all(verbose: bool) -> list[Outcome]:
    outcomes = [await ask_case(case) for case in CASES]
    if verbose:
        for outcome in outcomes:
            if not outcome.passed:
                print(outcome.describe())
    return outcomes


if __name__ == "__main__":
    # Like the test suite: a throwaway data dir, no model.
    os.environ.setdefault("DATAPILOT_DATA_DIR", tempfile.mkdtemp(prefix="datapilot-numeric-"))
    results = asyncio.run(_score_all(verbose="-v" in sys.argv))
    print(score_by_family(results))
    print("KNOWN_GAPS =", json.dumps(sorted(o.case["id"] for o in results if not o.passed)))
