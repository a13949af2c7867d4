"""Runs INSIDE the kernel (its source is sent at start; the server never imports it): the
modules an answer's script imports, `from datapilot import interfaces as dp` and
`from datapilot.render import charts`, for a kernel that cannot see Datapilot.

Every interface call goes through the `dp` channel to the server, which runs it and sends the
result back (frames exactly, charts/tables/texts as `Output`). `dp.use` keeps the context the
calls are sent with; `dp.show` prints the title and shows a frame or table as a table and a
chart as a PNG (LMC outputs); `charts.to_png` saves the chart the server drew.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd

_context: dict[str, Any] = {}
_names: list[str] = []


def _boot() -> Any:
    return sys.modules["_dp_boot"]


def _codec() -> Any:
    return sys.modules["_dp_framecodec"]


class Output:
    """A chart, table or text the server made: its JSON, read like the server's models
    (`chart.title`, `chart.spec.rows`, `output.model_dump()`)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data
        self._png: bytes | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            value = self._data[name]
        except KeyError:
            raise AttributeError(
                f"this {self._data.get('kind', 'output')} has no {name!r}"
            ) from None
        return Output(value) if isinstance(value, dict) else value

    def model_dump(self, mode: str = "python", **_: Any) -> dict[str, Any]:
        return copy.deepcopy(self._data)

    def __repr__(self) -> str:
        return f"<{self._data.get('kind', 'output')}: {self._data.get('title', '')}>"


def use(
    *,
    today: date | str | None = None,
    language: str = "en",
    offline: bool | None = None,
    tables: dict[str, pd.DataFrame] | None = None,
) -> dict[str, Any]:
    """Set what the following calls run with (as on the server: the whole context is set)."""
    global _context
    _context = {
        "today": today.isoformat() if isinstance(today, date) else today,
        "language": language,
        "offline": offline,
        "tables": {str(k): _send(v) for k, v in (tables or {}).items()},
    }
    return context()


def context() -> dict[str, Any]:
    """What the calls are sent with (tables by name)."""
    return {**_context, "tables": sorted(_context.get("tables") or {})}


def names() -> list[str]:
    """The interfaces sandboxed code may call (the server's read-only ones)."""
    if not _names:
        _names.extend(_boot()._ask({"op": "list"}))
    return list(_names)


def call(name: str, /, **arguments: Any) -> Any:
    """Run interface `name` on the server; frame arguments take DataFrames."""
    args = {key: _send(value) for key, value in arguments.items()}
    return _boot()._ask({"op": "call", "name": name, "args": args, "context": _context})


def function(name: str) -> Callable[..., Any]:
    """Interface `name` as a function of its arguments."""

    def run(**arguments: Any) -> Any:
        return call(name, **arguments)

    run.__name__ = run.__qualname__ = name
    return run


def __getattr__(name: str) -> Any:
    if not name.startswith("_") and name in names():
        return function(name)
    raise AttributeError(f"dp has no interface {name!r} (dp.names() lists the interfaces)")


def __dir__() -> list[str]:
    return sorted({*(k for k in globals() if not k.startswith("_")), *names()})


def _send(value: Any) -> Any:
    """An argument as the channel takes it: frames encoded, dates as text."""
    if isinstance(value, pd.Series):
        value = value.to_frame()
    if isinstance(value, pd.DataFrame):
        return {"$frame": _codec().encode(value)}
    if isinstance(value, list | tuple):
        return [_send(item) for item in value]
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Output):
        return value.model_dump()
    return value


def table(value: Any) -> pd.DataFrame:
    """A table, a chart's data or a frame as a DataFrame (what `show` shows)."""
    if isinstance(value, pd.DataFrame):
        return value
    if isinstance(value, Output) and value._data.get("kind") == "table":
        return pd.DataFrame(value._data["rows"], columns=value._data["columns"])
    if isinstance(value, Output) and value._data.get("kind") == "chart":
        spec = value._data["spec"]
        return pd.DataFrame(spec["rows"], columns=spec["columns"])
    raise TypeError(f"{type(value).__name__} is not a table, a chart or a frame")


def show(value: Any) -> None:
    """Show a result: its title, then a frame or table as a table, a chart as a PNG, a text."""
    from IPython.display import Image, display

    if isinstance(value, Output) and value._data.get("kind") == "text":
        print(value._data.get("text", ""))
        return
    if isinstance(value, Output):
        title = str(value._data.get("title") or "")
    else:
        title = str(getattr(value, "attrs", {}).get("title") or "")
    if title:
        print(title)
    sys.stdout.flush()  # the title before the table or figure it names
    if isinstance(value, Output) and value._data.get("kind") == "chart":
        display(Image(data=png(value), format="png"))
    else:
        display(table(value))


def png(chart: Output, dpi: int = 110) -> bytes:
    """The chart drawn by the server as PNG bytes (drawn once per chart and size)."""
    if not isinstance(chart, Output) or chart._data.get("kind") != "chart":
        raise TypeError(f"{type(chart).__name__} is not a chart made by a dp.plot_* call")
    if chart._png is None or dpi != 110:
        data = _boot()._ask({"op": "png", "chart": chart._data, "dpi": dpi})
        if dpi != 110:
            return bytes(data)
        chart._png = bytes(data)
    return chart._png


def to_png(chart: Output, path: Path | str, dpi: int = 110) -> Path:
    """`datapilot.render.charts.to_png`: save the chart as a PNG at `path`."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(png(chart, dpi))
    return target
