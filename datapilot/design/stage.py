"""The design stage's rounds with a model — define, merge, implement — and their records.

State lives in `<data dir>/design/`: `requests.json` (the last tried requests), `specs.json`
(the designed specs and their status) and `rounds.jsonl` (one line per round: step, model, prompt
and completion tokens, what changed, what was refused and why).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from datapilot.design import library
from datapilot.design.model import ask_json, model_config
from datapilot.design.profile import Profile
from datapilot.design.requests import Request
from datapilot.design.sandbox import Limits, run_tests
from datapilot.design.specs import (
    MERGE_SCHEMA,
    SPEC_LIST_SCHEMA,
    InterfaceDesign,
    SpecProblem,
    check_spec,
    define_prompt,
    merge_prompt,
    parse_spec,
    parse_specs,
    structural_merge_problems,
)
from datapilot.interfaces.registry import Registry
from datapilot.settings import Settings


class Round(BaseModel):
    """One model round, as recorded."""

    step: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    changed: list[str] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)
    at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))


def design_dir(settings: Settings) -> Path:
    return settings.data_dir / "design"


def save_requests(settings: Settings, requests: list[Request]) -> None:
    _write(design_dir(settings) / "requests.json", [r.model_dump(mode="json") for r in requests])


def load_requests(settings: Settings) -> list[Request]:
    path = design_dir(settings) / "requests.json"
    if not path.exists():
        return []
    return [Request.model_validate(r) for r in json.loads(path.read_text(encoding="utf-8"))]


def save_specs(settings: Settings, specs: list[InterfaceDesign]) -> None:
    _write(design_dir(settings) / "specs.json", [s.model_dump(mode="json") for s in specs])


def load_specs(settings: Settings) -> list[InterfaceDesign]:
    path = design_dir(settings) / "specs.json"
    if not path.exists():
        return []
    return [InterfaceDesign.model_validate(s) for s in json.loads(path.read_text(encoding="utf-8"))]


def rounds(settings: Settings) -> list[Round]:
    path = design_dir(settings) / "rounds.jsonl"
    if not path.exists():
        return []
    return [Round.model_validate_json(line) for line in path.read_text().splitlines() if line]


def record(settings: Settings, round_: Round) -> Round:
    path = design_dir(settings) / "rounds.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(round_.model_dump_json() + "\n")
    return round_


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(path)


# ---- define -------------------------------------------------------------------------------


def define(
    settings: Settings, library_: Registry, requests: list[Request], profiles: list[Profile]
) -> tuple[list[InterfaceDesign], Round]:
    """Ask the model for specs covering the gaps (and failures) of `requests`; keep the specs
    that pass every check, record the round with the refusals and their reasons."""
    config = model_config(settings)
    gaps = [r for r in requests if r.status in ("gap", "failed")]
    if not gaps:
        return [], record(settings, Round(step="define", model=config.model))
    sources = {r.source for r in gaps}
    shown = [p.model_dump(mode="json") for p in profiles if p.source in sources]
    asked = [
        {"query": r.query, "source": r.source, "family": r.family, "why": r.error} for r in gaps
    ]
    prompt = define_prompt(asked[:60], shown, library_.catalog())
    reply = ask_json(config, prompt, SPEC_LIST_SCHEMA, "interface_specs")
    specs, refused = parse_specs(reply.text)
    kept: list[InterfaceDesign] = []
    for spec in specs:
        problems = check_spec(spec, library_, specs)
        if problems:
            refused.append(f"{spec.name}: " + "; ".join(problems))
        else:
            kept.append(spec)
    existing = [s for s in load_specs(settings) if s.name not in {k.name for k in kept}]
    save_specs(settings, existing + kept)
    round_ = Round(
        step="define",
        model=reply.model,
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        changed=[f"defined {s.name}" for s in kept],
        refused=refused,
    )
    return kept, record(settings, round_)


# ---- merge --------------------------------------------------------------------------------


def merge(settings: Settings, library_: Registry) -> tuple[list[InterfaceDesign], Round]:
    """Ask the model which defined specs to merge; a merge is applied only when the structural
    check confirms it and the merged spec passes every check."""
    config = model_config(settings)
    specs = load_specs(settings)
    open_specs = [s for s in specs if s.status == "defined"]
    if len(open_specs) < 2:
        return specs, record(settings, Round(step="merge", model=config.model))
    reply = ask_json(config, merge_prompt(open_specs), MERGE_SCHEMA, "interface_merges")
    by_name = {s.name: s for s in specs}
    changed: list[str] = []
    refused: list[str] = []
    try:
        proposals = json.loads(reply.text).get("merges", [])
    except (json.JSONDecodeError, AttributeError):
        proposals, refused = [], ["the reply is not a JSON object with merges"]
    for proposal in proposals if isinstance(proposals, list) else []:
        names = [n for n in proposal.get("members", []) if isinstance(n, str)]
        members = [by_name[n] for n in names if n in by_name and by_name[n].status == "defined"]
        try:
            merged = parse_spec(proposal.get("interface"))
        except SpecProblem as error:
            refused.append(str(error))
            continue
        merged = merged.model_copy(
            update={
                "merged_from": [m.name for m in members],
                "requests": sorted({q for m in members for q in m.requests} | set(merged.requests)),
                "sources": sorted({x for m in members for x in m.sources} | set(merged.sources)),
            }
        )
        others = [s for s in by_name.values() if s.name not in names]
        problems = structural_merge_problems(merged, members)
        problems += check_spec(merged, library_, others) if not problems else []
        if problems:
            refused.append(f"merge of {', '.join(names)}: " + "; ".join(problems))
            continue
        for member in members:
            del by_name[member.name]
        by_name[merged.name] = merged
        changed.append(f"merged {', '.join(m.name for m in members)} into {merged.name}")
    result = list(by_name.values())
    save_specs(settings, result)
    round_ = Round(
        step="merge",
        model=reply.model,
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        changed=changed,
        refused=refused,
    )
    return result, record(settings, round_)


# ---- implement ----------------------------------------------------------------------------

CODE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "tests": {"type": "string"}},
    "required": ["code", "tests"],
}

GUIDE = '''Write one Python module defining the interface, and a test module.
The interface module:
    from typing import Annotated
    import pandas as pd
    from datapilot.interfaces.registry import interface, InterfaceError
    from datapilot.interfaces.context import InterfaceContext
    from datapilot.data.tables import read_table   # read_table(ctx.warehouse, "name") -> DataFrame
    @interface("<category>", "<returns>")
    def <name>(ctx: InterfaceContext, <arguments with type hints, Annotated[type, "meaning"]>):
        """<description>"""
Prices: ctx.warehouse.prices(ids, start, end) -> columns id, date, open, high, low, close,
adj_close, volume. Series: ctx.warehouse.series(ids, start, end) -> id, date, value. Return a
DataFrame for "frame"; set frame.attrs["sources"] = [the sources read] (an imported table's source
is "import:<file name>"). Raise InterfaceError with a clear message for bad input. No network, no
files outside the warehouse, no subprocesses.
The test module: `import interface` gives the module; write functions test_<what>(ctx) that
call interface.<name>(ctx, ...) for the motivating requests and assert values computed
independently from the source data (read_table, ctx.warehouse) with pandas.
Answer as JSON: {"code": "...", "tests": "..."}'''


class Outcome(BaseModel):
    name: str
    ok: bool
    reason: str | None = None
    tests: list[dict[str, Any]] = Field(default_factory=list)


def implement(
    settings: Settings,
    profiles: list[Profile],
    names: list[str] | None = None,
    limits: Limits | None = None,
) -> list[Outcome]:
    """Ask the model for code and tests for each defined spec (or those named), run the tests
    under limits, and write a plugin package for each spec whose tests all pass."""
    config = model_config(settings)
    specs = load_specs(settings)
    wanted = [
        s for s in specs if s.status in ("defined", "failed") and (not names or s.name in names)
    ]
    outcomes: list[Outcome] = []
    for spec in wanted:
        shown = [p.model_dump(mode="json") for p in profiles if p.source in spec.sources]
        prompt = (
            GUIDE
            + "\n\nThe spec:\n"
            + spec.model_dump_json(exclude={"status", "reason"})
            + "\n\nProfiles of its sources:\n"
            + json.dumps(shown, ensure_ascii=False, default=str)
        )
        reply = ask_json(config, prompt, CODE_SCHEMA, "interface_code", max_tokens=6000)
        outcome = _try_code(settings, spec, reply.text, reply.model, limits)
        record(
            settings,
            Round(
                step="implement",
                model=reply.model,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                changed=[f"packaged {spec.name}"] if outcome.ok else [],
                refused=[] if outcome.ok else [f"{spec.name}: {outcome.reason}"],
            ),
        )
        status = "implemented" if outcome.ok else "failed"
        specs = [
            s.model_copy(update={"status": status, "reason": outcome.reason})
            if s.name == spec.name
            else s
            for s in specs
        ]
        save_specs(settings, specs)
        outcomes.append(outcome)
    return outcomes


def _try_code(
    settings: Settings,
    spec: InterfaceDesign,
    text: str,
    model: str,
    limits: Limits | None,
) -> Outcome:
    try:
        body = json.loads(text)
        code, tests = str(body["code"]), str(body["tests"])
    except (json.JSONDecodeError, KeyError, TypeError):
        return Outcome(name=spec.name, ok=False, reason='the reply has no "code" and "tests"')
    for label, source in (("code", code), ("tests", tests)):
        try:
            compile(source, f"<{label}>", "exec")
        except SyntaxError as error:
            return Outcome(
                name=spec.name, ok=False, reason=f"the {label} cannot be parsed: {error}"
            )
    today = settings.effective_today()
    result = run_tests(
        code,
        tests,
        name=spec.name,
        category=spec.category,
        returns=spec.returns,
        warehouse=settings.warehouse_path,
        today=today,
        limits=limits,
    )
    tests_run = [t.model_dump() for t in result.tests]
    if not result.ok:
        return Outcome(name=spec.name, ok=False, reason=result.reason, tests=tests_run)
    library.write_package(settings.data_dir, spec, code, tests, result, model)
    return Outcome(name=spec.name, ok=True, tests=tests_run)
