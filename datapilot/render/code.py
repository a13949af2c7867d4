"""An executed plan as a short Python script that reproduces the answer.

Each call of the plan becomes one line `output = dp.<interface>(arg=value, …)` in plan order,
with the arguments exactly as the plan gave them (the resolved window and base included) and
each `{"$ref": name}` replaced by the variable holding that result. The script sets the
context the answer ran with (`dp.use(today=…)`), then shows every chart, table and text and
saves each chart as a PNG. A call that did not run in the answer stays in the script as a
comment saying why, so the script runs to the end as the answer did.
"""

from __future__ import annotations

import json
import keyword
import math
import re
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any, Literal

from datapilot.core.plan import Plan, is_ref

ShownKind = Literal["chart", "table", "text"]
_WIDTH = 100
_TAKEN = {"dp", "charts", "Path", "pd"}


def answer_script(
    plan: Plan,
    *,
    query: str,
    today: date,
    shown: Mapping[str, ShownKind],
    language: Literal["en", "zh"] = "en",
    offline: bool = False,
    tables: Iterable[str] = (),
    not_run: Mapping[str, str] | None = None,
) -> str:
    """The script of `plan`. `shown` maps the outputs the answer shows to their kind, in the
    answer's order; `not_run` maps outputs that failed or were skipped to the reason;
    `tables` names the client tables the answer was given."""
    names = _Names()
    not_run = not_run or {}
    tables = list(tables)
    charts = [output for output, kind in shown.items() if kind == "chart"]
    groups = [
        ["from pathlib import Path"] if charts else [],
        ["import pandas as pd"] if tables else [],
        ["from datapilot import interfaces as dp"]
        + (["from datapilot.render import charts"] if charts else []),
    ]
    lines = [
        f"# {_one_line(query)}",
        "# Reproduces Datapilot's answer; edit the arguments and run it again.",
    ]
    for group in groups:
        if group:
            lines += ["", *group]
    lines += ["", _call_text("dp.use", _context_args(today, language, offline, tables))]

    for step in plan.steps:
        for call in step.calls:
            variable = names.bind(call.output)
            text = _call_text(
                f"dp.{call.interface}",
                {k: _Code(v, names) for k, v in call.args.items()},
                assign=variable,
            )
            lines.append("")
            if call.description:
                lines.append(f"# {_one_line(call.description)}")
            if call.output in not_run:
                lines.append(f"# Not run in the answer: {_one_line(not_run[call.output])}")
                lines.extend(f"# {line}" for line in text.splitlines())
            else:
                lines.append(text)

    ran = [output for output in shown if output not in not_run]
    if ran:
        lines += ["", "# The answer's results: printed, and each chart saved as a PNG."]
        for output in ran:
            lines.append(f"dp.show({names.of(output)})")
        for output in charts:
            if output in ran:
                variable = names.of(output)
                lines.append(f'charts.to_png({variable}, Path("{variable}.png"))')
    return "\n".join(lines) + "\n"


def _context_args(today: date, language: str, offline: bool, tables: list[str]) -> dict[str, Any]:
    args: dict[str, Any] = {"today": _Code(today.isoformat())}
    if language != "en":
        args["language"] = _Code(language)
    if offline:
        args["offline"] = _Code(True)
    if tables:
        # The client's tables are not part of the script: read them from files of that name.
        reads = ", ".join(
            f"{_literal(name)}: pd.read_csv({_literal(name + '.csv')})" for name in tables
        )
        args["tables"] = _Raw("{" + reads + "}")
    return args


class _Names:
    """Output names as unique, valid Python variable names."""

    def __init__(self) -> None:
        self._by_output: dict[str, str] = {}

    def bind(self, output: str) -> str:
        base = re.sub(r"\W+", "_", output).strip("_") or "result"
        if base[0].isdigit():
            base = f"_{base}"
        if keyword.iskeyword(base) or base in _TAKEN:
            base = f"{base}_"
        name, number = base, 2
        while name in self._by_output.values():
            name, number = f"{base}_{number}", number + 1
        self._by_output[output] = name
        return name

    def of(self, output: str) -> str:
        return self._by_output.get(output) or self.bind(output)


class _Raw:
    """Source text used as is."""

    def __init__(self, text: str) -> None:
        self.text = text


class _Code:
    """A plan argument value as Python source, references as variable names."""

    def __init__(self, value: Any, names: _Names | None = None) -> None:
        self.value = value
        self.names = names or _Names()

    @property
    def text(self) -> str:
        return _source(self.value, self.names)


def _source(value: Any, names: _Names) -> str:
    if is_ref(value):
        return names.of(value["$ref"])
    if isinstance(value, dict):
        items = ", ".join(f"{_literal(str(k))}: {_source(v, names)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_source(item, names) for item in value) + "]"
    return _literal(value)


def _literal(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, date):
        value = value.isoformat()
    # A JSON string is a valid Python literal; double quotes as the project writes them.
    return json.dumps(str(value), ensure_ascii=False)


def _call_text(function: str, args: Mapping[str, _Code | _Raw], assign: str = "") -> str:
    """`assign = function(a=…, b=…)` on one line, or one argument a line when too long."""
    head = f"{assign} = {function}" if assign else function
    parts = [f"{name}={value.text}" for name, value in args.items()]
    one_line = f"{head}({', '.join(parts)})"
    if len(one_line) <= _WIDTH or not parts:
        return one_line
    return "\n".join([f"{head}(", *(f"    {part}," for part in parts), ")"])


def _one_line(text: str) -> str:
    return " ".join(text.split())
