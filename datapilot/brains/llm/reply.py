"""What the planning call must return: a status, the intent as the model read it, and a Plan.

Entities come back as the model believes them (a name and a guessed id); they are grounded in
the catalog before anything runs, so nothing the model writes is trusted as an id.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.intent import ChartType, Frequency
from datapilot.core.plan import Plan

ReplyStatus = Literal["ok", "no_data", "out_of_scope", "need_widgets"]


class ProposedEntity(BaseModel):
    """An entity as the model names it: the user's words and the id it believes is right."""

    model_config = ConfigDict(extra="ignore")

    name: str
    id: str | None = None


class ProposedIntent(BaseModel):
    """The model's reading of the question, before its entities are grounded."""

    model_config = ConfigDict(extra="ignore")

    rewritten: str
    entities: list[ProposedEntity] = Field(default_factory=list)
    start: date | None = None
    end: date | None = None
    metrics: list[str] = Field(default_factory=list)
    horizon: int | None = Field(default=None, ge=1, le=3650)
    frequency: Frequency | None = None
    chart: ChartType | None = None
    table: bool = False
    trace: list[str] = Field(default_factory=list)


class PlanningReply(BaseModel):
    """The whole structured answer of the planning call."""

    model_config = ConfigDict(extra="ignore")

    status: ReplyStatus
    message: str | None = None
    widgets: list[str] = Field(default_factory=list)
    intent: ProposedIntent | None = None
    plan: Plan | None = None


@lru_cache(maxsize=1)
def reply_schema() -> dict[str, Any]:
    """The JSON schema sent as `response_format`, without descriptions, titles and examples."""
    return _compact(PlanningReply.model_json_schema())


def _compact(node: Any) -> Any:
    if isinstance(node, dict):
        node = _nullable(node)
        return {
            key: _compact(value)
            for key, value in node.items()
            if key not in {"title", "description", "examples", "default"}
            # `properties` may legitimately hold a field called title/description.
            or (isinstance(value, dict) and "type" in value)
        }
    if isinstance(node, list):
        return [_compact(item) for item in node]
    return node


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`{"anyOf": [{"type": "string"}, {"type": "null"}]}` as `{"type": ["string", "null"]}`."""
    options = node.get("anyOf")
    if not isinstance(options, list) or len(options) != 2 or {"type": "null"} not in options:
        return node
    other = next(option for option in options if option != {"type": "null"})
    if "type" not in other or isinstance(other["type"], list):
        return node
    rest = {key: value for key, value in node.items() if key != "anyOf"}
    merged = {**rest, **other, "type": [other["type"], "null"]}
    if "enum" in merged:
        merged["enum"] = [*merged["enum"], None]
    return merged
