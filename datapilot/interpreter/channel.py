"""The server's end of `dp`: the only way sandboxed code reaches data.

Requests (JSON objects; the kernel's `dp` and `from datapilot import interfaces as dp` send
them):

- `{"op": "list"}`: the interfaces sandboxed code may call.
- `{"op": "call", "name": INTERFACE, "args": {...}, "context": {...}}`: run one interface.
  Frame arguments come as `{"$frame": <framecodec payload>}` (alone or in a list); `context`
  may set `today`, `language`, `offline` (it can only turn live providers off, never on) and
  `tables` (name -> frame). The call is checked and run as the facade runs a script's call.
- `{"op": "png", "chart": <ChartOutput as JSON>}`: the chart drawn as a PNG (base64).

Only interfaces the registry marks read-only are reachable (`InterfaceSpec.read_only`): the
allow-list is the registry's metadata, never a list kept here. A frame comes back as
`{"frame": <framecodec payload>}` (values bit for bit, dtypes, index, attrs), a chart, table
or text as `{"output": <its JSON>}`. Requests and replies are size-capped; anything else is
refused with a message saying what to send. The kernel never opens the warehouse.
"""

from __future__ import annotations

import base64
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as CallTimeout
from dataclasses import replace
from datetime import date
from typing import Any

import pandas as pd

from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.engine.context import RequestContext
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.facade import invoke
from datapilot.interfaces.registry import InterfaceError
from datapilot.interpreter import framecodec
from datapilot.interpreter.kernel import DataChannel
from datapilot.settings import Settings

MAX_TABLES = 50
# A chart is drawn in well under a second; one that is not is stopped here (or sooner, at the
# settings' call time limit), so one run cannot hold the renderer for long.
PNG_TIMEOUT_S = 10.0
# Interface calls run here, so a call past the settings' time limit answers the kernel with an
# error instead of holding its run; the call itself finishes in the background.
_CALLS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dp-channel")


class ChannelError(ValueError):
    """A request the channel refuses; the message says what to send instead."""


def allowed(request: RequestContext) -> list[str]:
    """The interfaces sandboxed code may call: the registry's read-only ones."""
    return sorted(spec.name for spec in request.registry if spec.read_only)


def data_channel(request: RequestContext) -> DataChannel:
    """A channel reading the data of `request` (its settings' warehouse and catalog)."""
    from datapilot.render.png_worker import prestart

    names = set(allowed(request))
    prestart()  # the chart renderer starts while the kernel does

    def answer(message: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(message, dict):
            raise ChannelError("a request is a JSON object with an `op`")
        op = message.get("op")
        if op == "list":
            return {"value": sorted(names)}
        if op == "png":
            return {"png": _png(message.get("chart"), message.get("dpi", 110), request.settings)}
        if op != "call":
            raise ChannelError(
                f"unknown request {str(op)[:40]!r}; use dp.prices, dp.series or dp.<interface>"
            )
        name = str(message.get("name", ""))[:100]
        if name not in names:
            raise ChannelError(
                f"no interface {name!r} that sandboxed code may call (only read-only ones); "
                "dp.names() lists them"
            )
        args = message.get("args") or {}
        if not isinstance(args, dict):
            raise ChannelError("`args` is an object of argument names to values")
        ctx = _context(request, message.get("context"))
        arguments = {str(k): _argument(v) for k, v in args.items() if v is not None}
        future = _CALLS.submit(invoke, request.registry, ctx, name, arguments)
        try:
            value = future.result(timeout=request.settings.call_timeout_s)
        except CallTimeout:
            raise ChannelError(
                f"{name} took longer than {request.settings.call_timeout_s:g} s; ask for less"
            ) from None
        except InterfaceError as error:
            raise ChannelError(str(error)) from None
        return _reply(value)

    return answer


def _context(request: RequestContext, given: Any) -> InterfaceContext:
    """The request's interface context with what the script set through `dp.use`."""
    given = given or {}
    if not isinstance(given, dict):
        raise ChannelError("`context` is an object (today, language, offline, tables)")
    ctx = request.interface_context()
    changes: dict[str, Any] = {}
    if given.get("today") is not None:
        try:
            changes["today"] = date.fromisoformat(str(given["today"]))
        except ValueError:
            raise ChannelError("today is a date like 2022-12-28") from None
    if given.get("language") is not None:
        if given["language"] not in ("en", "zh"):
            raise ChannelError('language is "en" or "zh"')
        changes["language"] = given["language"]
    # Sandboxed code may keep the server from live providers, never send it to them.
    changes["offline"] = ctx.offline or given.get("offline") is True
    tables = given.get("tables") or {}
    if not isinstance(tables, dict) or len(tables) > MAX_TABLES:
        raise ChannelError(f"tables is an object of at most {MAX_TABLES} name -> frame")
    if tables:
        changes["tables"] = {str(k): _one_frame(v) for k, v in tables.items()}
    return replace(ctx, **changes)


def _argument(value: Any) -> Any:
    if isinstance(value, list) and any(_is_frame(item) for item in value):
        return [_one_frame(item) for item in value]
    if _is_frame(value):
        return _one_frame(value)
    return value


def _is_frame(value: Any) -> bool:
    return isinstance(value, dict) and "$frame" in value


def _one_frame(value: Any) -> pd.DataFrame:
    if not _is_frame(value):
        raise ChannelError("a frame argument is sent as {'$frame': ...} (dp does this)")
    try:
        return framecodec.decode(value["$frame"])
    except framecodec.FrameCodecError as error:
        raise ChannelError(f"a frame argument could not be read: {error}") from None


def _png(chart: Any, dpi: Any, settings: Settings) -> str:
    """The chart drawn in a worker process (`render.png_worker`): a chart from sandboxed code
    holds up no other tenant's charts, and is stopped at the time limit."""
    from pydantic import ValidationError

    from datapilot.render.charts import DPI_RANGE, ChartTooLarge
    from datapilot.render.png_worker import RenderError, draw_png

    low, high = DPI_RANGE
    if not isinstance(dpi, int) or not low <= dpi <= high:
        raise ChannelError(f"dpi is a whole number from {low} to {high}")
    try:
        parsed = ChartOutput.model_validate(chart)
    except ValidationError:
        raise ChannelError("png takes a chart made by a dp.plot_* call") from None
    try:
        data = draw_png(parsed, dpi, min(PNG_TIMEOUT_S, settings.call_timeout_s))
    except (ChartTooLarge, RenderError) as error:
        raise ChannelError(str(error)) from None
    return base64.b64encode(data).decode()


def _reply(value: Any) -> dict[str, Any]:
    if isinstance(value, pd.Series):
        value = value.to_frame()
    if isinstance(value, pd.DataFrame):
        try:
            payload = framecodec.encode(value)
        except framecodec.FrameCodecError:  # e.g. a MultiIndex: keep its levels as columns
            payload = framecodec.encode(value.reset_index())
        reply = {"frame": payload}
    elif isinstance(value, ChartOutput | TableOutput | TextOutput):
        reply = {"output": value.model_dump(mode="json")}
    else:
        reply = {"value": framecodec.plain(value)}
    return reply  # the kernel's end caps its size (`kernel.MAX_REPLY_CHARS`)
