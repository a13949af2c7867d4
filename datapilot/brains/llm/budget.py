"""Fitting the planning prompt into a token budget.

The rules, the interface catalog and the question are what the model plans from; the conversation,
the client data previews and the list of entities with data are helpful but shortenable. Shapes
are tried from richest to leanest, in the order the sections matter least: older conversation
first (the newest human/ai pair is kept, clipped), then table and widget previews, then the
entity list (only the kinds the question mentions), then the newest pair itself, and only at the
very end the catalog's descriptions (never its interfaces or arguments). The question is never cut.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from datapilot.brains.llm.prompt import (
    FULL_SHAPE,
    HISTORY_TOKENS,
    PromptShape,
    entity_hint,
    history_text,
    planning_messages,
)
from datapilot.core.context import QuestionContext
from datapilot.core.model_messages import ModelMessage, to_openai
from datapilot.data.entity import Entity
from datapilot.interfaces.registry import Registry
from datapilot.model_client.tokens import count_chat, count_tokens

DEFAULT_BUDGET = 4000
# The newest pair is "kept whole when possible": its answer is clipped to at most this much
# before table previews start to shrink.
PAIR_ANSWER_TOKENS = 80
# The history section's heading and <data> tags.
HISTORY_FRAME_TOKENS = 16

# From richest to leanest; each step gives up one more thing.
SHAPES: tuple[PromptShape, ...] = (
    FULL_SHAPE,
    replace(FULL_SHAPE, table_rows=2, data_tokens=450),
    replace(FULL_SHAPE, table_rows=2, data_tokens=450, all_entities=False),
    replace(FULL_SHAPE, table_rows=0, data_tokens=250, all_entities=False),
    replace(FULL_SHAPE, table_rows=0, data_tokens=250, all_entities=False, turn_tokens=60),
    replace(
        FULL_SHAPE,
        table_rows=0,
        data_tokens=150,
        all_entities=False,
        turn_tokens=60,
        short_catalog=True,
    ),
)


@dataclass
class FittedPrompt:
    """The planning messages and how they were fitted."""

    messages: list[ModelMessage]
    tokens: int = 0
    budget: int = DEFAULT_BUDGET
    shape: PromptShape = FULL_SHAPE
    trimmed: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return self.tokens <= self.budget


def response_format_tokens(schema: dict[str, Any] | None, name: str = "datapilot_plan") -> int:
    """Tokens of the JSON schema sent alongside the messages as `response_format`."""
    if schema is None:
        return 0
    sent = {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
    return count_tokens(json.dumps(sent, separators=(",", ":")))


def fit_planning_prompt(
    question: str,
    context: QuestionContext,
    registry: Registry,
    *,
    entities: Sequence[Entity] = (),
    focus_kinds: Collection[str] = (),
    budget: int = DEFAULT_BUDGET,
    reserved: int = 0,
) -> FittedPrompt:
    """The richest planning prompt whose tokens plus `reserved` (the schema) fit `budget`.

    `focus_kinds` are the entity kinds the question (or the conversation) mentions: the ones
    still listed in full once the entity list has to be shortened. When even the leanest shape
    does not fit (a question longer than the budget), that shape is returned with `fits` False.
    """
    fitted = FittedPrompt([], budget=budget)
    for index, shape in enumerate(SHAPES):
        leanest = index == len(SHAPES) - 1
        hint = entity_hint(entities, None if shape.all_entities else set(focus_kinds))
        sized = _with_history_allowance(
            question, context, registry, hint, shape, budget - reserved, strict=not leanest
        )
        if sized is None:
            continue
        messages = planning_messages(question, context, registry, entity_hint=hint, shape=sized)
        fitted = FittedPrompt(messages, count_chat(to_openai(messages)) + reserved, budget, sized)
        if fitted.fits:
            break
    fitted.trimmed = _trimmed(context, fitted.shape)
    return fitted


def _with_history_allowance(
    question: str,
    context: QuestionContext,
    registry: Registry,
    hint: str,
    shape: PromptShape,
    budget: int,
    *,
    strict: bool,
) -> PromptShape | None:
    """`shape` with the history given what the rest leaves of `budget`; None when `strict` and
    the newest pair would not get its minimum (its answer clipped to `PAIR_ANSWER_TOKENS`)."""
    if not context.history:
        return replace(shape, history_tokens=0)
    rest = planning_messages(
        question, context, registry, entity_hint=hint, shape=replace(shape, history_tokens=0)
    )
    allowance = min(HISTORY_TOKENS, budget - count_chat(to_openai(rest)) - HISTORY_FRAME_TOKENS)
    pair_turn = min(shape.turn_tokens, PAIR_ANSWER_TOKENS)
    needed = count_tokens(history_text(context.history[-2:], limit=10**6, turn=pair_turn))
    if strict and allowance < needed:
        return None
    return replace(shape, history_tokens=max(allowance, 0))


def _trimmed(context: QuestionContext, shape: PromptShape) -> list[str]:
    """What the chosen shape left out, in words (for notes and the bench)."""
    notes = []
    kept = history_text(context.history, limit=shape.history_tokens, turn=shape.turn_tokens)
    if kept != history_text(context.history):
        notes.append(f"conversation cut to {count_tokens(kept)} tokens")
    if (context.tables or context.widgets) and shape.data_tokens < FULL_SHAPE.data_tokens:
        notes.append(f"client data previews cut to {shape.table_rows} rows")
    if not shape.all_entities:
        notes.append("entity list shortened to the kinds mentioned")
    if shape.short_catalog:
        notes.append("interface descriptions shortened")
    return notes
