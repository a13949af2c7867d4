"""A brain that answers with a plan it was given: `datapilot ask --plan plan.json`, and tests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path

from pydantic import ValidationError

from datapilot.core.context import QuestionContext
from datapilot.core.intent import Intent
from datapilot.core.plan import Plan
from datapilot.core.results import RunResult
from datapilot.engine.brain import Understanding
from datapilot.engine.summary import summary_chunks


class PlanBrain:
    """Understands every question as the given plan; summarizes with the template."""

    name = "plan"

    def __init__(self, plan: Plan, intent: Intent | None = None) -> None:
        self.plan = plan
        self.intent = intent

    @classmethod
    def from_file(cls, path: Path) -> PlanBrain:
        """Read a Plan JSON, or an Answer JSON holding `plan` (and `intent`) as written by
        `datapilot ask --plan-only --json`."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise ValueError(f"cannot read the plan file {path}: {error.strerror}") from error
        except json.JSONDecodeError as error:
            raise ValueError(f"{path} is not valid JSON: {error}") from error
        if isinstance(data, dict) and "plan" in data and "steps" not in data:
            intent_data, data = data.get("intent"), data["plan"]
        else:
            intent_data = None
        try:
            plan = Plan.model_validate(data)
            intent = Intent.model_validate(intent_data) if intent_data else None
        except ValidationError as error:
            raise ValueError(f"{path} does not hold a valid plan:\n{error}") from error
        return cls(plan, intent)

    async def understand(self, question: str, context: QuestionContext) -> Understanding:
        intent = self.intent or _intent_from_plan(question, self.plan)
        return Understanding(intent=intent, plan=self.plan)

    async def summarize(
        self, question: str, understanding: Understanding, run: RunResult, context: QuestionContext
    ) -> AsyncIterator[str]:
        for chunk in summary_chunks(question, understanding, run):
            yield chunk


def _intent_from_plan(question: str, plan: Plan) -> Intent:
    """An intent restating the question, with the window the plan's calls agree on."""
    starts = {str(c.args["start"]) for c in plan.calls() if c.args.get("start")}
    ends = {str(c.args["end"]) for c in plan.calls() if c.args.get("end")}
    trace = ["The plan was given explicitly; no question analysis was done."]
    return Intent(
        rewritten=question,
        start=_one_date(starts),
        end=_one_date(ends),
        trace=trace,
    )


def _one_date(values: set[str]) -> date | None:
    if len(values) != 1:
        return None
    try:
        return date.fromisoformat(values.pop())
    except ValueError:
        return None
