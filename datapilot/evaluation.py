"""Score a brain against a corpus of questions with expected answers (JSONL).

Each line: `{"id", "lang", "today", "query", "expect": {...}, "history"?: [...]}`. A case is right
when every field of `expect` that is given matches the Answer: `status`; `ids` (the intent's
entity ids, as a set); `start`/`end`; `chart` (a chart of that type among the outputs); `table`
(a table among the outputs); `horizon` (the intent's forecast horizon); `says` (words the summary,
message or notes hold, case-insensitive; `a|b` accepts either); `first` (how the summary begins);
`rows_min` (a table with at least that many rows); `log_y` / `donut` (a chart drawn so);
`no_chart` (a single value shown without a chart). `metric` is reported but not scored. In
plan-only mode charts and tables are read from the plan's visualization calls.
Any brain can be scored: the pipeline picks it from `brain`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from datapilot.core.answer import Answer, AnswerStatus
from datapilot.core.context import ChatMessage, QuestionContext
from datapilot.core.intent import ChartType
from datapilot.core.outputs import ChartOutput, TableOutput
from datapilot.settings import BrainChoice, Settings, get_settings

# Visualization interfaces and the chart each one draws (plan-only scoring).
PLAN_CHARTS = {
    "plot_line": "line",
    "plot_bar": "bar",
    "plot_candlestick": "candlestick",
    "plot_scatter": "scatter",
    "plot_area": "area",
    "plot_pie": "pie",
    "plot_forecast": "line",
}


class CorpusError(ValueError):
    """A corpus file that cannot be read; the message names the file and line."""


class Expect(BaseModel):
    status: AnswerStatus | None = None
    ids: list[str] | None = None
    start: date | None = None
    end: date | None = None
    chart: ChartType | None = None
    table: bool | None = None
    horizon: int | None = None
    metric: str | None = None
    says: list[str] = Field(default_factory=list)
    first: str | None = None
    rows_min: int | None = None
    log_y: bool | None = None
    donut: bool | None = None
    no_chart: bool | None = None


class Case(BaseModel):
    id: str
    query: str
    today: date
    lang: str | None = None
    expect: Expect
    history: list[ChatMessage] = Field(default_factory=list)


class CaseResult(BaseModel):
    id: str
    query: str
    passed: bool
    failures: list[str] = Field(default_factory=list, description="field: wanted … got …")
    remarks: list[str] = Field(default_factory=list, description="Unscored differences.")
    status: str
    elapsed_ms: float


class Report(BaseModel):
    corpus: str
    brain: str
    plan_only: bool
    results: list[CaseResult]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def total(self) -> int:
        return len(self.results)

    def summary(self) -> dict[str, Any]:
        return {"passed": self.passed, "total": self.total, "failed": self.total - self.passed}


def load_corpus(path: Path) -> list[Case]:
    """Read a JSONL corpus (or every `*.jsonl` in a folder); a bad line raises `CorpusError`."""
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        if not files:
            raise CorpusError(f"{path} holds no .jsonl corpus files")
        return [case for file in files for case in load_corpus(file)]
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise CorpusError(f"cannot read the corpus {path}: {error.strerror or error}") from None
    cases = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            cases.append(Case.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as error:
            raise CorpusError(f"{path}, line {number}: not a valid case ({error})") from None
    if not cases:
        raise CorpusError(f"{path} holds no cases")
    return cases


def score(case: Case, answer: Answer, plan_only: bool = False) -> tuple[list[str], list[str]]:
    """The failing fields of `answer` against `case.expect`, and unscored remarks."""
    want, intent = case.expect, answer.intent
    failures: list[str] = []

    def check(field: str, wanted: Any, got: Any) -> None:
        if wanted != got:
            failures.append(f"{field}: wanted {_show(wanted)}, got {_show(got)}")

    if want.status is not None:
        check("status", want.status, answer.status)
    if want.ids is not None:
        got_ids = sorted({e.id for e in intent.entities}) if intent else []
        check("ids", sorted(set(want.ids)), got_ids)
    if want.start is not None:
        check("start", want.start, intent.start if intent else None)
    if want.end is not None:
        check("end", want.end, intent.end if intent else None)
    if want.horizon is not None:
        check("horizon", want.horizon, intent.horizon if intent else None)
    charts, tables = _forms(answer, plan_only)
    if want.chart is not None and want.chart not in charts:
        failures.append(f"chart: wanted {want.chart}, got {', '.join(charts) or 'none'}")
    if want.table and not tables:
        failures.append("table: wanted a table, got none")
    failures += _check_words(want, answer)
    if not plan_only:
        failures += _check_drawing(want, answer)
    remarks = []
    if want.metric and intent is not None and want.metric not in intent.metrics:
        remarks.append(f"metric: wanted {want.metric}, got {', '.join(intent.metrics) or 'none'}")
    return failures, remarks


def _forms(answer: Answer, plan_only: bool) -> tuple[list[str], bool]:
    if plan_only:
        calls = answer.plan.calls() if answer.plan else []
        charts = [PLAN_CHARTS[c.interface] for c in calls if c.interface in PLAN_CHARTS]
        return charts, any(c.interface == "show_table" for c in calls)
    charts = [o.chart_type for o in answer.outputs if isinstance(o, ChartOutput)]
    return charts, any(isinstance(o, TableOutput) for o in answer.outputs)


async def evaluate(
    cases: Iterable[Case],
    *,
    corpus: str = "",
    brain: BrainChoice = "auto",
    plan_only: bool = False,
    offline: bool = False,
    settings: Settings | None = None,
) -> Report:
    """Run every case through the pipeline and score it (with the environment's settings unless
    `settings` are given)."""
    from datapilot.brains import answer as ask
    from datapilot.engine.context import RequestContext

    settings = settings or get_settings()
    results = []
    for case in cases:
        context = QuestionContext(
            today=case.today, history=case.history, brain=brain, offline=offline
        )
        started = time.perf_counter()
        request = RequestContext.for_request(context, settings)
        answer = await ask(case.query, request, plan_only=plan_only)
        elapsed = (time.perf_counter() - started) * 1000
        failures, remarks = score(case, answer, plan_only)
        results.append(
            CaseResult(
                id=case.id,
                query=case.query,
                passed=not failures,
                failures=failures,
                remarks=remarks,
                status=answer.status,
                elapsed_ms=round(elapsed, 1),
            )
        )
    return Report(corpus=corpus, brain=brain, plan_only=plan_only, results=results)


def evaluate_file(
    path: Path, *, brain: BrainChoice = "auto", plan_only: bool = False, offline: bool = False
) -> Report:
    """Load and score a corpus file (synchronous wrapper)."""
    cases = load_corpus(path)
    return asyncio.run(
        evaluate(cases, corpus=str(path), brain=brain, plan_only=plan_only, offline=offline)
    )


def _check_words(want: Expect, answer: Answer) -> list[str]:
    text = " ".join([answer.summary, answer.message or "", *answer.notes]).casefold()
    failures = [
        f"says: wanted {words!r}"
        for words in want.says
        if not any(w.casefold() in text for w in words.split("|"))
    ]
    if want.first is not None and not answer.summary.startswith(want.first):
        failures.append(f"first: wanted the summary to start {want.first!r}")
    return failures


def _check_drawing(want: Expect, answer: Answer) -> list[str]:
    charts = [o for o in answer.outputs if isinstance(o, ChartOutput)]
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    failures = []
    if want.rows_min is not None and not any(len(t.rows) >= want.rows_min for t in tables):
        most = max((len(t.rows) for t in tables), default=0)
        failures.append(f"rows_min: wanted a table of {want.rows_min} rows, got {most}")
    if want.log_y and not any(p.log_y for c in charts for p in c.spec.panels):
        failures.append("log_y: wanted a chart with a logarithmic axis")
    if want.donut and not any(c.spec.hole > 0 for c in charts):
        failures.append("donut: wanted a pie with a hole")
    if want.no_chart and charts:
        failures.append(f"no_chart: wanted no chart, got {len(charts)}")
    return failures


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]"
    return "none" if value is None else str(value)
