"""One planning call: the question goes out once, an intent and a Plan come back, checked.

The reply is parsed, its entities grounded in the catalog and its plan validated against the
fixed interface registry. Problems go back to the model for at most `max_repairs` more calls;
after that `PlanningFailed` says why, and the brain falls back to the offline planner.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import ValidationError

from datapilot.brains.llm.budget import (
    DEFAULT_BUDGET,
    FittedPrompt,
    fit_planning_prompt,
    response_format_tokens,
)
from datapilot.brains.llm.grounding import CatalogLike, Grounder, Grounding, ground_plan
from datapilot.brains.llm.prompt import repair_messages, widget_label
from datapilot.brains.llm.reply import PlanningReply, ProposedIntent, reply_schema
from datapilot.core.context import QuestionContext, WidgetDataRequest, WidgetInfo
from datapilot.core.intent import Intent
from datapilot.core.model_messages import ModelMessage
from datapilot.data.text import is_chinese
from datapilot.engine.brain import Understanding
from datapilot.engine.check import check_plan
from datapilot.interfaces.registry import Registry
from datapilot.model_client import (
    LLMClient,
    LLMRefused,
    LLMTruncated,
    NoJSONError,
    extract_json_object,
    looks_like_refusal,
)

MAX_REPAIRS = 2
MAX_LISTED_PROBLEMS = 10
PLAN_MAX_TOKENS = 2500
SCHEMA_NAME = "datapilot_plan"


class PlanningFailed(Exception):
    """The model gave no usable plan; the message says what was wrong with its last reply."""


@dataclass
class Planner:
    """Plans one question with a model; `plan` returns an Understanding or raises."""

    client: LLMClient
    registry: Registry
    catalog: CatalogLike
    max_repairs: int = MAX_REPAIRS
    prompt_tokens: int = DEFAULT_BUDGET

    async def plan(self, question: str, context: QuestionContext) -> Understanding:
        """Ask the model, repair up to `max_repairs` times, return a checked Understanding.

        Raises `PlanningFailed` (still broken after the repairs, or the model declined) and lets
        `LLMUnavailable` / `LLMTimeout` from the client through.
        """
        messages = self.prompt(question, context).messages
        problems: list[str] = []
        for attempt in range(self.max_repairs + 1):
            text, problems = await self._ask(messages)
            if not problems:
                understanding, problems = self._interpret(text, question, context, attempt)
                if understanding is not None:
                    if attempt:
                        understanding.notes.append(
                            f"The model's plan needed {attempt} repair(s) before it was valid."
                        )
                    return understanding
            messages = messages + repair_messages(text, problems[:MAX_LISTED_PROBLEMS])
        listed = "; ".join(problems[:3])
        raise PlanningFailed(
            f"the model's plan was still invalid after {self.max_repairs} repairs ({listed})"
        )

    def prompt(self, question: str, context: QuestionContext) -> FittedPrompt:
        """The planning messages, fitted to `prompt_tokens` with the schema sent alongside."""
        # A follow-up ("and its volatility?") names its entity in the previous question.
        asked = [question, *(m.content for m in context.history[-2:] if m.role == "human")]
        focus = {match.entity.kind for text in asked for match in self.catalog.mentions(text)}
        return fit_planning_prompt(
            question,
            context,
            self.registry,
            entities=self.catalog.entities(available=True),
            focus_kinds=focus,
            budget=self.prompt_tokens,
            reserved=response_format_tokens(reply_schema(), SCHEMA_NAME),
        )

    async def _ask(self, messages: list[ModelMessage]) -> tuple[str, list[str]]:
        try:
            reply = await self.client.complete_json(
                messages,
                schema=reply_schema(),
                schema_name=SCHEMA_NAME,
                purpose="plan",
                max_tokens=PLAN_MAX_TOKENS,
            )
        except LLMTruncated as error:
            return "(a reply that was cut off)", [f"{error}; reply with a shorter plan"]
        except LLMRefused as error:
            raise PlanningFailed(str(error)) from error
        return reply.text, []

    def _interpret(
        self, text: str, question: str, context: QuestionContext, attempt: int
    ) -> tuple[Understanding | None, list[str]]:
        try:
            data = extract_json_object(text)
        except NoJSONError as error:
            if looks_like_refusal(text):
                raise PlanningFailed(f"the model declined: {text.strip()[:120]}") from error
            return None, [f"{error}; reply with one JSON object"]
        try:
            reply = PlanningReply.model_validate(data)
        except ValidationError as error:
            return None, [_validation_problem(item) for item in error.errors()]
        return _Interpretation(self, question, context, first=attempt == 0).of(reply)


class _Interpretation:
    """Turns one parsed reply into an Understanding, or into problems for a repair round."""

    def __init__(
        self, planner: Planner, question: str, context: QuestionContext, *, first: bool
    ) -> None:
        self.planner = planner
        self.first = first
        self.question = question
        self.context = context
        self.grounder = Grounder(planner.catalog, question, context.tables)

    def of(self, reply: PlanningReply) -> tuple[Understanding | None, list[str]]:
        if reply.status == "need_widgets":
            return self._widgets(reply)
        if reply.status == "out_of_scope":
            message = reply.message or "This is not a question about financial or economic data."
            intent = (
                self._intent(reply.intent, self._ground(reply.intent)) if reply.intent else None
            )
            return Understanding(status="out_of_scope", message=message, intent=intent), []
        if reply.intent is None:
            return None, [f"status {reply.status!r} needs an intent"]
        grounding = self._ground(reply.intent)
        if reply.status == "no_data":
            return self._no_data(reply, grounding)
        if reply.plan is None or not reply.plan.calls():
            return None, ["status 'ok' needs a plan with at least one call"]
        window = _window_problem(reply.intent)
        if window:
            return None, [window]
        plan, problems = ground_plan(reply.plan, self.grounder, grounding, self.planner.registry)
        if grounding.missing or grounding.unavailable:
            return self._missing(reply.intent, grounding), []
        problems += [str(problem) for problem in check_plan(plan, self.planner.registry).problems]
        if problems:
            return None, problems
        return Understanding(intent=self._intent(reply.intent, grounding), plan=plan), []

    def _ground(self, intent: ProposedIntent | None) -> Grounding:
        proposed = [(entity.name, entity.id) for entity in (intent.entities if intent else [])]
        return self.grounder.ground(proposed)

    def _intent(self, proposed: ProposedIntent, grounding: Grounding) -> Intent:
        return Intent(
            rewritten=proposed.rewritten,
            entities=grounding.all_refs,
            start=proposed.start,
            end=proposed.end,
            metrics=proposed.metrics,
            horizon=proposed.horizon,
            frequency=proposed.frequency,
            chart=proposed.chart,
            table=proposed.table,
            trace=[*proposed.trace, *grounding.trace],
        )

    def _no_data(
        self, reply: PlanningReply, grounding: Grounding
    ) -> tuple[Understanding | None, list[str]]:
        assert reply.intent is not None
        held = [
            (ref, span)
            for ref in grounding.entities
            if (span := self.grounder.span(ref))
            and _overlaps(span, reply.intent.start, reply.intent.end)
        ]
        if held and self.first and not (grounding.missing or grounding.unavailable):
            # The model does not know what is bundled; the catalog does. Said once: the data
            # may exist while the measure asked for does not.
            listed = ", ".join(f"{ref.name} ({ref.id}, {a}..{b})" for ref, (a, b) in held)
            return None, [f"you answered no_data, but data is available for {listed}; plan it"]
        assert reply.intent is not None
        understanding = self._missing(reply.intent, grounding)
        if reply.message and not (grounding.missing or grounding.unavailable):
            understanding.message = reply.message
        return understanding, []

    def _missing(self, proposed: ProposedIntent, grounding: Grounding) -> Understanding:
        zh = is_chinese(self.question)
        names = [*(f"{ref.name} ({ref.id})" for ref in grounding.unavailable), *grounding.missing]
        listed = "、".join(names) if zh else ", ".join(names)
        if zh:
            message = (
                f"我这里没有{listed}的数据，也不会用别的数据代替。"
                if names
                else "我这里没有回答这个问题所需的数据。"
            )
        else:
            message = (
                f"I have no data for {listed}, and I won't substitute anything else."
                if names
                else "I have no data to answer this question."
            )
        return Understanding(
            status="no_data", message=message, intent=self._intent(proposed, grounding)
        )

    def _widgets(self, reply: PlanningReply) -> tuple[Understanding | None, list[str]]:
        if self.context.tables:
            return None, [
                "the widget data is already in the client tables section; answer from it "
                "with get_client_table"
            ]
        if not self.context.widgets:
            return None, ["no dashboard widgets are available; answer with status ok or no_data"]
        chosen: list[WidgetInfo] = []
        unknown: list[str] = []
        for label in reply.widgets or [widget_label(0)]:
            widget = _find_widget(label, self.context.widgets)
            if widget is None:
                unknown.append(label)
            elif widget not in chosen:
                chosen.append(widget)
        if unknown:
            labels = ", ".join(widget_label(i) for i in range(len(self.context.widgets)))
            return None, [f"unknown widget(s) {', '.join(map(repr, unknown))}; use {labels}"]
        request = WidgetDataRequest(
            widgets=chosen,
            resume_state={"brain": "llm", "question": self.question},
        )
        return Understanding(needs=request), []


def _find_widget(label: str, widgets: list[WidgetInfo]) -> WidgetInfo | None:
    wanted = label.strip().casefold()
    for index, widget in enumerate(widgets):
        names = {widget_label(index), widget.uuid, widget.widget_id, widget.name}
        if wanted in {name.casefold() for name in names if name}:
            return widget
    return None


def _overlaps(span: tuple[date, date], start: date | None, end: date | None) -> bool:
    first, last = span
    return (start is None or start <= last) and (end is None or end >= first)


def _window_problem(intent: ProposedIntent) -> str | None:
    if intent.start and intent.end and intent.start > intent.end:
        return (
            f"intent.start {intent.start} is after intent.end {intent.end}; "
            "give an inclusive window in order"
        )
    return None


def _validation_problem(item: Any) -> str:
    where = ".".join(str(part) for part in item.get("loc", ())) or "the reply"
    return f"{where}: {item.get('msg', 'invalid')}"
