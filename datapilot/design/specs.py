"""Interface specs: define them for gaps, check them, merge similar ones (after Data-Copilot).

A spec is a typed record — name, category, description, inputs and outputs as JSON Schema — and
a solution plan in Datapilot's own plan format that uses existing and new interfaces. The plan
passes the same checks as any plan, against the library plus stand-ins for the new interfaces
built from their input schemas. Merging is proposed by a model and confirmed structurally.
"""

from __future__ import annotations

import json
import keyword
from datetime import date
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from datapilot.core.plan import Plan
from datapilot.engine.check import check_plan
from datapilot.interfaces.registry import (
    Category,
    InterfaceSpec,
    Param,
    Registry,
    Returns,
)

SpecStatus = Literal["defined", "implemented", "failed", "accepted", "rejected"]
_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list[Any],
    "object": dict[str, Any],
}


class InterfaceDesign(BaseModel):
    """One designed interface."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{2,48}$", description="snake_case function name")
    category: Category
    returns: Returns = "frame"
    description: str = Field(min_length=10, max_length=1000)
    inputs: dict[str, Any] = Field(description="JSON Schema of the arguments (an object).")
    outputs: dict[str, Any] = Field(description="JSON Schema of one row of the result.")
    plan: Plan = Field(description="A solution plan for the motivating requests.")
    requests: list[str] = Field(default_factory=list, description="The requests it answers.")
    sources: list[str] = Field(default_factory=list, description="The sources it reads.")
    merged_from: list[str] = Field(default_factory=list)
    status: SpecStatus = "defined"
    reason: str | None = None


class SpecProblem(ValueError):
    """A spec that cannot be used; the message names it and what is wrong."""


def parse_spec(raw: Any) -> InterfaceDesign:
    """A spec from a model's JSON object, or `SpecProblem` saying what is malformed."""
    name = raw.get("name", "?") if isinstance(raw, dict) else "?"
    try:
        return InterfaceDesign.model_validate({**raw, "status": "defined"})
    except (ValidationError, TypeError) as error:
        raise SpecProblem(f"spec {name!r} is malformed: {_short_errors(error)}") from error


def check_spec(spec: InterfaceDesign, library: Registry, new: list[InterfaceDesign]) -> list[str]:
    """Every problem of `spec`: schemas, a name clash with the library, and its plan checked
    against the library plus stand-ins for `new` (the specs of this round)."""
    problems: list[str] = []
    if keyword.iskeyword(spec.name):
        problems.append(f"{spec.name!r} is a Python keyword")
    if spec.name in library:
        problems.append(f"an interface named {spec.name!r} exists already")
    for field in ("inputs", "outputs"):
        schema = getattr(spec, field)
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as error:
            problems.append(f"{field} is not a valid JSON Schema: {error.message}")
            continue
        if schema.get("type") != "object":
            problems.append(f'{field} must be a JSON Schema of "type": "object"')
    if problems:
        return problems
    registry = with_stand_ins(library, [s for s in new if s.name != spec.name] + [spec])
    check = check_plan(spec.plan, registry)
    problems += [f"plan: {p.message}" for p in check.problems]
    if not any(call.interface == spec.name for call in spec.plan.calls()):
        problems.append(f"plan: the solution plan never calls {spec.name}")
    return problems


def with_stand_ins(library: Registry, specs: list[InterfaceDesign]) -> Registry:
    """The library plus an unrunnable stand-in for each spec (its arguments typed from its input
    schema), so that solution plans are checked exactly as plans are."""
    registry = Registry()
    for existing in library:
        registry.register(existing)
    for spec in specs:
        if spec.name not in registry:
            registry.register(stand_in(spec))
    return registry


def stand_in(spec: InterfaceDesign) -> InterfaceSpec:
    properties: dict[str, Any] = spec.inputs.get("properties") or {}
    required = set(spec.inputs.get("required") or [])
    fields: dict[str, Any] = {}
    params: dict[str, Param] = {}
    for name, schema in properties.items():
        annotation = _annotation(schema if isinstance(schema, dict) else {})
        default = ... if name in required else None
        fields[name] = (annotation if name in required else annotation | None, default)
        params[name] = Param(
            name=name,
            annotation=annotation,
            required=name in required,
            default=None,
            description=str((schema or {}).get("description", "")),
            frame=None,
        )
    model = create_model(f"{spec.name}_args", __config__=ConfigDict(extra="forbid"), **fields)

    def unrunnable(*_: Any, **__: Any) -> Any:
        raise RuntimeError(f"{spec.name} is designed but not implemented")

    return InterfaceSpec(
        name=spec.name,
        category=spec.category,
        returns=spec.returns,
        description=spec.description,
        func=unrunnable,
        params=params,
        _model=model,
    )


def _annotation(schema: dict[str, Any]) -> Any:
    if schema.get("type") == "string" and schema.get("format") == "date":
        return date
    if schema.get("type") == "array":
        item = _annotation(schema.get("items") or {})
        return list[item]  # type: ignore[valid-type]
    kind = schema.get("type")
    return _JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any


# ---- define -------------------------------------------------------------------------------

SPEC_LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"interfaces": {"type": "array", "items": {"type": "object"}}},
    "required": ["interfaces"],
}


def define_prompt(gaps: list[dict[str, Any]], profiles: list[dict[str, Any]], catalog: str) -> str:
    """Ask for specs for the gaps, each with a solution plan in Datapilot's plan format."""
    plan_schema = json.dumps(Plan.model_json_schema(), ensure_ascii=False)
    return (
        "Requests the interface library cannot answer yet are listed below with the profiles of "
        "the sources they concern. For each group of requests, either solve it with the "
        "existing interfaces or define new interfaces. Each new interface: name (snake_case), "
        "category (acquisition|processing|prediction|visualization|frame), returns "
        "(frame|chart|table|text), description, inputs (JSON Schema object of its arguments), "
        "outputs (JSON Schema object of one result row), plan (a solution plan for the first "
        "request, in this format: " + plan_schema + "), requests (the requests it answers), "
        "sources (the sources it reads).\n\nExisting interfaces:\n"
        + catalog
        + "\n\nGaps:\n"
        + json.dumps(gaps, ensure_ascii=False, default=str)
        + "\n\nProfiles:\n"
        + json.dumps(profiles, ensure_ascii=False, default=str)
        + '\nAnswer as JSON: {"interfaces": [...]}'
    )


def parse_specs(text: str) -> tuple[list[InterfaceDesign], list[str]]:
    """The specs of a reply, and the reasons the malformed ones were refused."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return [], [f"the reply is not JSON: {error}"]
    items = data.get("interfaces") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return [], ['the reply has no "interfaces" list']
    specs: list[InterfaceDesign] = []
    problems: list[str] = []
    for item in items:
        try:
            specs.append(parse_spec(item))
        except SpecProblem as error:
            problems.append(str(error))
    return specs, problems


# ---- merge --------------------------------------------------------------------------------

MERGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "merges": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "members": {"type": "array", "items": {"type": "string"}},
                    "interface": {"type": "object"},
                },
                "required": ["members", "interface"],
            },
        }
    },
    "required": ["merges"],
}


def merge_prompt(specs: list[InterfaceDesign]) -> str:
    shown = [
        s.model_dump(include={"name", "category", "returns", "description", "inputs", "outputs"})
        for s in specs
    ]
    return (
        "Merge interfaces with similar functions and the same input and output shapes into one "
        "interface with an argument that selects between them (Query-GDP + Query-CPI -> one "
        "macro query with an indicator argument). Give each merge its members and the merged "
        "interface (name, category, returns, description, inputs, outputs, plan, requests, "
        "sources). Leave alone what should stay separate; an empty list is fine.\n\nInterfaces:\n"
        + json.dumps(shown, ensure_ascii=False)
        + '\nAnswer as JSON: {"merges": [{"members": ["a", "b"], "interface": {...}}]}'
    )


def structural_merge_problems(merged: InterfaceDesign, members: list[InterfaceDesign]) -> list[str]:
    """Why a proposed merge is refused: members of other categories or result kinds, an input
    a member takes that the merged interface lacks, or a member's output columns missing."""
    problems: list[str] = []
    if len(members) < 2:
        problems.append("a merge needs at least two known members")
    merged_inputs = set((merged.inputs.get("properties") or {}).keys())
    merged_outputs = set((merged.outputs.get("properties") or {}).keys())
    for member in members:
        if (member.category, member.returns) != (merged.category, merged.returns):
            problems.append(
                f"{member.name} is {member.category}/{member.returns}, "
                f"the merged interface {merged.category}/{merged.returns}"
            )
        missing = set((member.inputs.get("properties") or {}).keys()) - merged_inputs
        if missing:
            problems.append(f"{merged.name} lacks {member.name}'s inputs {sorted(missing)}")
        outputs = set((member.outputs.get("properties") or {}).keys())
        if outputs != merged_outputs:
            problems.append(
                f"{member.name}'s outputs {sorted(outputs)} differ from {sorted(merged_outputs)}"
            )
    return problems


def _short_errors(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'spec'}: {e['msg']}"
            for e in error.errors()[:5]
        )
    return str(error)
