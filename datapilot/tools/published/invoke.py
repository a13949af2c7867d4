"""Running a published operation: arguments validated by its input model, the work off the
caller's event loop and under the request timeout, failures as `OperationError`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from datapilot.tools.published.operations import (
    Operation,
    OperationContext,
    OperationError,
    Outcome,
)

# How a face runs an operation's coroutine: the server hands it to its worker pool, the
# terminal to a thread with its own loop (`in_thread`).
Offload = Callable[[Callable[[], Awaitable[Outcome]]], Awaitable[Outcome]]


def parse_arguments(op: Operation, arguments: Any) -> BaseModel:
    """`arguments` as the operation's input model; an `OperationError` naming each bad field."""
    try:
        return op.input.model_validate(arguments if arguments is not None else {})
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or 'arguments'}: {item['msg']}"
            for item in error.errors()[:10]
        )
        raise OperationError("invalid", f"invalid arguments for {op.name}: {problems}") from None


async def in_thread(work: Callable[[], Awaitable[Outcome]]) -> Outcome:
    """Run `work()` on a fresh event loop in a thread (the caller's loop stays free)."""
    return await asyncio.to_thread(lambda: asyncio.run(_awaited(work)))


async def _awaited(work: Callable[[], Awaitable[Outcome]]) -> Outcome:
    return await work()


async def invoke(
    op: Operation,
    arguments: Any,
    context: OperationContext,
    offload: Offload = in_thread,
) -> Outcome:
    """Validate, then run `op` within `context.settings.request_timeout_s`."""
    parsed = parse_arguments(op, arguments)
    timeout_s = context.settings.request_timeout_s
    try:
        async with asyncio.timeout(timeout_s):
            return await offload(lambda: op.run(parsed, context))
    except TimeoutError:
        raise OperationError(
            "timeout",
            f"{op.name} took longer than {timeout_s:g} s and was stopped; try a shorter window "
            "or fewer entities, or raise DATAPILOT_REQUEST_TIMEOUT_S.",
        ) from None
