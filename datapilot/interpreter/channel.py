"""The server's end of `dp`: the only way sandboxed code reaches data.

A request is `{"op": "list"}` or `{"op": "call", "name": INTERFACE, "args": {...}}`; only
interfaces whose arguments are plain values may be called (as for the interface tools), each
checked and run by the engine's executor exactly as a plan's call. A table comes back as
`{"frame": <pandas JSON, orient=table>, "attrs": {...}}`, anything else as `{"value": text}`.
The kernel never opens the warehouse: it only sees these replies.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pandas as pd

from datapilot.core.plan import Call, Plan, Step
from datapilot.engine.context import RequestContext
from datapilot.interpreter.kernel import DataChannel

MAX_REPLY_CHARS = 20_000_000


class ChannelError(ValueError):
    """A request the channel refuses; the message says what to send instead."""


def data_channel(request: RequestContext) -> DataChannel:
    """A channel reading the data of `request` (its settings' warehouse and catalog)."""
    plain = {
        spec.name
        for spec in request.registry
        if all(param.frame is None for param in spec.params.values())
    }

    def answer(message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        if op == "list":
            return {"value": sorted(plain)}
        if op != "call":
            raise ChannelError(f"unknown request {op!r}; use dp.prices, dp.series or dp.interfaces")
        name = str(message.get("name", ""))
        if name not in plain:
            raise ChannelError(
                f"no interface {name!r} with plain arguments; dir(dp.interfaces) lists them"
            )
        args = {k: v for k, v in dict(message.get("args") or {}).items() if v is not None}
        return _reply(asyncio.run(_call(request, name, args)))

    return answer


async def _call(request: RequestContext, name: str, args: dict[str, Any]) -> Any:
    from datapilot.engine.executor import execute

    plan = Plan(steps=[Step(calls=[Call(interface=name, args=args, output="r")])])
    ctx = await asyncio.to_thread(request.interface_context)
    result = await execute(
        plan, ctx, registry=request.registry, call_timeout_s=request.settings.call_timeout_s
    )
    record = result.calls[0]
    if record.status != "ok":
        raise ChannelError(record.error or record.status)
    return result.values.get("r")


def _reply(value: Any) -> dict[str, Any]:
    if isinstance(value, pd.Series):
        value = value.to_frame()
    if isinstance(value, pd.DataFrame):
        frame = value.copy()
        frame.columns = [str(c) for c in frame.columns]
        try:
            text = frame.to_json(orient="table", date_format="iso")
        except ValueError:  # an index the table schema cannot name: keep it as a column
            text = frame.reset_index().to_json(orient="table", date_format="iso")
        if len(text) > MAX_REPLY_CHARS:
            raise ChannelError("the table is too large to send; ask for a shorter window")
        attrs = json.loads(json.dumps(value.attrs, default=str))
        return {"frame": text, "attrs": attrs}
    return {"value": str(value)}
