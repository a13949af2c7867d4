"""`from datapilot import interfaces as dp`: the interface library as plain Python functions.

Every interface of the installed library is a function of this facade, taking the arguments a
plan gives it (frames as DataFrames): `dp.get_prices(ids=["AAPL"], start="2021-01-01",
end="2021-12-31")`, then `dp.cumulative_returns(frame=prices)`. Arguments are checked and
coerced exactly as a plan's are, and results are checked the same way, so a script calling the
facade gets the numbers the workflow gets. The calls share one context — the data dir of the
`DATAPILOT_*` settings, "today", the language charts are worded in — set with `dp.use(...)`.
`dp.show(value)` prints a frame, table, chart's data or text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any, Literal

import pandas as pd

from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.library import default_registry
from datapilot.interfaces.registry import InterfaceError, InterfaceSpec, Registry

_lock = threading.Lock()
_context: InterfaceContext | None = None


def use(
    *,
    today: date | str | None = None,
    language: Literal["en", "zh"] = "en",
    offline: bool | None = None,
    tables: Mapping[str, pd.DataFrame] | None = None,
) -> InterfaceContext:
    """Set what the following calls run with: "today" (relative windows, forecasts), the
    language charts are worded in, whether live providers may be asked, the client tables.
    The whole context is set: what is not given takes its default (today and offline from
    the settings, English, no tables), so a script never inherits an earlier one's."""
    global _context
    ctx = _new_context()
    if today is not None:
        ctx.today = date.fromisoformat(today) if isinstance(today, str) else today
    ctx.language = language
    if offline is not None:
        ctx.offline = offline
    ctx.tables = dict(tables or {})
    with _lock:
        _context = ctx
    return ctx


def context() -> InterfaceContext:
    """The context calls run with (the defaults of `use` until it is called)."""
    with _lock:
        if _context is not None:
            return _context
    return use()


def _new_context() -> InterfaceContext:
    from datapilot.data.access import open_data
    from datapilot.settings import get_settings

    settings = get_settings()
    data = open_data(settings)
    return InterfaceContext(
        warehouse=data.warehouse,
        catalog=data.catalog,
        today=settings.effective_today(),
        offline=settings.offline,
        data=data,
    )


def names() -> list[str]:
    """Every interface the facade offers."""
    return default_registry().names()


def call(name: str, /, **arguments: Any) -> Any:
    """Run interface `name` with `arguments`; frame arguments take DataFrames."""
    return invoke(default_registry(), context(), name, arguments)


def invoke(
    registry: Registry, ctx: InterfaceContext, name: str, arguments: Mapping[str, Any]
) -> Any:
    """Interface `name` of `registry` run in `ctx`, its arguments checked and coerced as a
    plan's are (frames as DataFrames); what `call` and the interpreter's data channel run."""
    if name not in registry:
        raise InterfaceError(
            f"there is no interface {name!r}; dp.names() lists the {len(registry)} there are"
        )
    spec = registry.get(name)
    frames, checked = _split(spec, dict(arguments))
    args, problems = spec.validate(checked)
    if problems:
        raise InterfaceError(f"{name}: " + "; ".join(problems))
    args.update(frames)
    return spec.invoke(ctx, args)


def function(name: str) -> Callable[..., Any]:
    """Interface `name` as a function of its arguments."""
    spec = default_registry().get(name)

    def run(**arguments: Any) -> Any:
        return call(name, **arguments)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = spec.signature()
    return run


def _split(spec: InterfaceSpec, arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The frame arguments (as cheap copies, so an interface cannot change the caller's
    frame) and the arguments to check, where each frame stands in as a reference."""
    frames: dict[str, Any] = {}
    checked = dict(arguments)
    for pname, value in arguments.items():
        param = spec.params.get(pname)
        if param is None or param.frame is None:
            continue
        items = value if param.frame == "many" and isinstance(value, list | tuple) else [value]
        copies = [_frame(spec.name, pname, item) for item in items]
        frames[pname] = copies if param.frame == "many" else copies[0]
        refs = [{"$ref": f"{pname}{number}"} for number in range(len(copies))]
        checked[pname] = refs if param.frame == "many" else refs[0]
    return frames, checked


def _frame(interface: str, pname: str, value: Any) -> pd.DataFrame:
    if isinstance(value, pd.Series):
        return value.to_frame()
    if not isinstance(value, pd.DataFrame):
        raise InterfaceError(
            f"{interface}: argument {pname!r} takes a DataFrame (an earlier call's result), "
            f"not {type(value).__name__}"
        )
    return value.copy(deep=False)


def table(value: Any) -> pd.DataFrame:
    """A table, a chart's data or a frame as a DataFrame (what `show` prints)."""
    if isinstance(value, pd.DataFrame):
        return value
    if isinstance(value, TableOutput):
        return pd.DataFrame(value.rows, columns=value.columns)
    if isinstance(value, ChartOutput):
        return pd.DataFrame(value.spec.rows, columns=value.spec.columns)
    raise TypeError(f"{type(value).__name__} is not a table, a chart or a frame")


def show(value: Any) -> None:
    """Print a result: a frame or table with its title, a chart's data, a text."""
    if isinstance(value, TextOutput):
        print(value.text)
        return
    if isinstance(value, ChartOutput | TableOutput):
        title = value.title
    else:
        title = str(getattr(value, "attrs", {}).get("title") or "")
    if title:
        print(title)
    with pd.option_context("display.width", 120, "display.max_columns", 20):
        print(table(value))
    print()
