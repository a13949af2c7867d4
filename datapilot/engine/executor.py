"""Run a plan: steps in order, the calls of a step concurrently in worker threads.

A failed call never stops the run: it is recorded (`failed` / `timeout`) and every call that
needs its result is `skipped` with the reason. Identical calls (same interface, same resolved
arguments) run once per request. The event loop only waits; pandas work happens in threads.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from datapilot.core.events import Event, OutputEvent, StepFinished, StepStarted
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.plan import Call, Plan, is_ref, refs_in
from datapilot.core.results import CallRecord, CallStatus, Fact, RunResult
from datapilot.engine.check import check_plan
from datapilot.engine.facts import facts_of
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.library import default_registry as default_registry  # re-exported
from datapilot.interfaces.registry import InterfaceError, InterfaceSpec, Registry

log = logging.getLogger(__name__)

EventSink = Callable[[Event], Awaitable[None] | None]
_VISUAL = (ChartOutput, TableOutput, TextOutput)
_MAX_ERROR_CHARS = 300
_pool: ThreadPoolExecutor | None = None


def call_pool() -> ThreadPoolExecutor:
    """The process-wide worker threads interface calls run in."""
    global _pool
    if _pool is None:
        # A call that times out keeps its thread until it returns, so leave headroom.
        _pool = ThreadPoolExecutor(
            max_workers=max(8, (os.cpu_count() or 1) * 4), thread_name_prefix="datapilot-call"
        )
    return _pool


@dataclass
class _Outcome:
    status: CallStatus
    value: Any = None
    error: str | None = None
    elapsed_ms: float = 0.0
    facts: list[Fact] = field(default_factory=list)


async def execute(
    plan: Plan,
    ctx: InterfaceContext,
    *,
    registry: Registry | None = None,
    call_timeout_s: float = 30.0,
    on_event: EventSink | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Run `plan` against `registry` and return every call's record, outputs and facts.

    Raises `PlanError` before running anything if the plan is invalid. `on_event` receives
    `StepStarted` / `StepFinished` per call and `OutputEvent` per chart, table or text (in plan
    order).
    """
    registry = registry or default_registry()
    check = check_plan(plan, registry).raise_for_problems()
    runner = _Runner(registry, ctx, call_timeout_s, on_event, executor or call_pool())
    for number, step in enumerate(plan.steps, start=1):
        for call in step.calls:
            await runner.emit(StepStarted(step=number, call=call))
        records = await asyncio.gather(
            *(runner.run_call(number, call, check.args[call.output]) for call in step.calls)
        )
        runner.result.calls.extend(records)
        for record in records:
            value = runner.result.values.get(record.output)
            if record.status == "ok" and isinstance(value, _VISUAL):
                runner.result.outputs.append(value)
                await runner.emit(OutputEvent(output=value))
    runner.result.sources = sorted(ctx.sources | runner.sources)
    runner.result.notes = list(dict.fromkeys(ctx.notes))
    return runner.result


class _Runner:
    """State of one execution: results so far, the per-request cache, the event sink."""

    def __init__(
        self,
        registry: Registry,
        ctx: InterfaceContext,
        timeout_s: float,
        on_event: EventSink | None,
        executor: Executor,
    ) -> None:
        self.registry = registry
        self.ctx = ctx
        self.timeout_s = timeout_s
        self.on_event = on_event
        self.executor = executor
        self.result = RunResult()
        self.sources: set[str] = set()
        self._status: dict[str, CallStatus] = {}
        self._why_not: dict[str, str] = {}
        self._keys: dict[str, str] = {}
        self._cache: dict[str, asyncio.Task[_Outcome]] = {}

    async def emit(self, event: Event) -> None:
        if self.on_event is not None:
            maybe = self.on_event(event)
            if inspect.isawaitable(maybe):
                await maybe

    async def run_call(self, number: int, call: Call, args: dict[str, Any]) -> CallRecord:
        spec = self.registry.get(call.interface)
        blocked = [name for name in dict.fromkeys(refs_in(args)) if self._status[name] != "ok"]
        if blocked:
            outcome = _Outcome(status="skipped", error=self._skip_reason(blocked))
        else:
            key = self._cache_key(call.interface, args)
            self._keys[call.output] = key
            if key not in self._cache:
                resolved = _resolve(args, self.result.values)
                self._cache[key] = asyncio.ensure_future(self._invoke(spec, resolved, call.output))
            outcome = await asyncio.shield(self._cache[key])
        self._status[call.output] = outcome.status
        if outcome.status == "ok":
            self.result.values[call.output] = outcome.value
            if isinstance(outcome.value, pd.DataFrame):
                self.sources.update(outcome.value.attrs.get("sources") or [])
        else:
            self._why_not[call.output] = self._reason(call, outcome)
        record = CallRecord(
            output=call.output,
            interface=call.interface,
            description=call.description,
            status=outcome.status,
            error=outcome.error,
            elapsed_ms=outcome.elapsed_ms,
            facts=[fact.model_copy(update={"source": call.output}) for fact in outcome.facts],
        )
        await self.emit(StepFinished(step=number, record=record))
        return record

    async def _invoke(self, spec: InterfaceSpec, args: dict[str, Any], output: str) -> _Outcome:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()

        def elapsed() -> float:
            return round((time.perf_counter() - started) * 1000, 2)

        try:
            value, facts = await asyncio.wait_for(
                loop.run_in_executor(self.executor, _call, spec, self.ctx, args, output),
                timeout=self.timeout_s,
            )
        except TimeoutError:
            message = f"{spec.name} did not finish within {self.timeout_s:g} s"
            return _Outcome(status="timeout", error=message, elapsed_ms=elapsed())
        except InterfaceError as error:
            return _Outcome(status="failed", error=str(error), elapsed_ms=elapsed())
        except Exception as error:
            # One line for operators; the traceback only when debugging.
            log.warning("interface %s raised %s: %s", spec.name, type(error).__name__, error)
            log.debug("traceback of %s", spec.name, exc_info=True)
            detail = f"{type(error).__name__}: {error}"
            if len(detail) > _MAX_ERROR_CHARS:
                detail = detail[: _MAX_ERROR_CHARS - 1] + "…"
            message = f"{spec.name} failed unexpectedly ({detail})"
            return _Outcome(status="failed", error=message, elapsed_ms=elapsed())
        return _Outcome(status="ok", value=value, facts=facts, elapsed_ms=elapsed())

    def _cache_key(self, interface: str, args: dict[str, Any]) -> str:
        """Same interface and arguments, where a reference stands for how its value was made."""

        def canonical(value: Any) -> Any:
            if is_ref(value):
                return {"$ref": self._keys[value["$ref"]]}
            if isinstance(value, dict):
                return {str(k): canonical(v) for k, v in value.items()}
            if isinstance(value, list | tuple):
                return [canonical(v) for v in value]
            return value

        return json.dumps([interface, canonical(args)], sort_keys=True, default=str)

    def _skip_reason(self, blocked: list[str]) -> str:
        reasons = [self._why_not[name] for name in blocked]
        return "skipped: it needs " + "; and ".join(reasons)

    def _reason(self, call: Call, outcome: _Outcome) -> str:
        if outcome.status == "skipped":
            return f"{call.output!r}, which was {outcome.error or 'skipped'}"
        what = "timed out" if outcome.status == "timeout" else "failed"
        return f"{call.output!r}, which {what} ({call.interface})"


def _call(
    spec: InterfaceSpec, ctx: InterfaceContext, args: dict[str, Any], output: str
) -> tuple[Any, list[Fact]]:
    """Runs in a worker thread: the interface itself, a result check, and the result's facts."""
    value = spec.invoke(ctx, args)
    return value, facts_of(output, value)


def _resolve(value: Any, values: dict[str, Any]) -> Any:
    """Replace every `{"$ref": name}` with the referenced value (frames as cheap copies)."""
    if is_ref(value):
        found = values[value["$ref"]]
        # Copy-on-write makes a shallow copy free, and an interface mutating its input in
        # place cannot corrupt the value other calls (or the cache) see.
        return found.copy(deep=False) if isinstance(found, pd.DataFrame) else found
    if isinstance(value, dict):
        return {key: _resolve(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolve(item, values) for item in value]
    return value
