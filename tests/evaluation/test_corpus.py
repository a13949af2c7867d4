"""Acceptance corpora scored by `datapilot.evaluation`, the scorer behind `datapilot eval`.

The acceptance corpus (copied into `tests/fixtures/corpus/`) and our own bilingual corpus
(`tests/corpus/offline.jsonl`) run through the real pipeline; the shared windows file is scored
from the plan (its entities are A-shares without bundled data, so only the window counts).
`tests/corpus/heldout.jsonl` was written from the shared families and the time-window conventions
(docs/asking.md, "Time windows") before the grammar was read; it is held to a threshold rather
than to every case, so that it keeps measuring paraphrases nobody tuned for.
`tests/corpus/heldout2.jsonl` is a second such batch in other registers: terse tickers, chatty
English, formal and colloquial Chinese, mixed languages.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import paths
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.evaluation import CorpusError, Report, evaluate, load_corpus

SHARED = paths.FIXTURES / "corpus"
OWN = paths.CORPUS / "offline.jsonl"
HELDOUT = paths.CORPUS / "heldout.jsonl"
HELDOUT2 = paths.CORPUS / "heldout2.jsonl"


def _shared(name: str) -> Path:
    return SHARED / name


def _failures(report: Report) -> str:
    return "\n".join(
        f"{r.id} {r.query}: {'; '.join(r.failures)}" for r in report.results if not r.passed
    )


async def test_shared_queries_through_the_pipeline(data) -> None:  # type: ignore[no-untyped-def]
    path = _shared("queries.jsonl")
    report = await evaluate(load_corpus(path), corpus=str(path), brain="offline")
    assert report.total == 36
    assert report.passed >= 34, _failures(report)


async def test_shared_windows(data) -> None:  # type: ignore[no-untyped-def]
    path = _shared("windows.jsonl")
    report = await evaluate(load_corpus(path), brain="offline", plan_only=True)
    assert report.passed == report.total == 9, _failures(report)


async def test_own_bilingual_corpus(data) -> None:  # type: ignore[no-untyped-def]
    cases = load_corpus(OWN)
    assert len(cases) >= 60
    assert sum(c.lang == "zh" for c in cases) >= 25
    report = await evaluate(cases, brain="offline")
    assert report.passed == report.total, _failures(report)


@pytest.mark.slow
async def test_heldout_corpus(data) -> None:  # type: ignore[no-untyped-def]
    cases = load_corpus(HELDOUT)
    assert len(cases) >= 120
    assert 0.3 <= sum(c.lang == "zh" for c in cases) / len(cases) <= 0.5
    report = await evaluate(cases, brain="offline")
    assert report.passed >= 0.95 * report.total, _failures(report)


async def test_second_heldout_corpus(data) -> None:  # type: ignore[no-untyped-def]
    cases = load_corpus(HELDOUT2)
    assert len(cases) == 100
    assert sum(c.lang == "zh" for c in cases) == 50
    report = await evaluate(cases, brain="offline")
    assert report.passed >= 0.95 * report.total, _failures(report)


def test_eval_command_prints_failures_and_sets_the_exit_code(tmp_path: Path, data) -> None:  # type: ignore[no-untyped-def]
    corpus = tmp_path / "mini.jsonl"
    corpus.write_text(
        '{"id": "a", "today": "2019-03-13", "query": "Plot Apple from Jan 23, 2018 to today",'
        ' "expect": {"ids": ["AAPL"], "start": "2018-01-23", "chart": "line"}}\n'
        '{"id": "b", "today": "2019-03-13", "query": "Plot Apple in 2018",'
        ' "expect": {"ids": ["MSFT"], "chart": "bar"}}\n',
        encoding="utf-8",
    )
    runner = CliRunner()
    result = runner.invoke(app, ["eval", str(corpus), "--brain", "offline", "--plan-only"])
    assert result.exit_code == 1
    assert "passed 1 of 2" in result.output
    assert "ids: wanted [MSFT], got [AAPL]" in result.output
    assert "chart: wanted bar, got line" in result.output
    result = runner.invoke(
        app,
        ["eval", str(corpus), "--brain", "offline", "--plan-only", "--min-pass", "0.5", "--json"],
    )
    assert result.exit_code == 0
    assert '"passed": 1' in result.output


def test_bad_corpus_line_is_named(tmp_path: Path) -> None:
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text('{"id": "a", "query": "x"}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match="line 1"):
        load_corpus(corpus)
    result = CliRunner().invoke(app, ["eval", str(corpus)])
    assert result.exit_code == 2 and "line 1" in result.output
