"""Helpers shared by the LLM tests: a hard time limit per test and a client on a scripted server."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Annotated, Any, ParamSpec, TypeVar

import pandas as pd
import pytest

from datapilot.core.answer import AnswerStatus
from datapilot.core.context import QuestionContext
from datapilot.core.intent import Intent
from datapilot.core.plan import Call, Plan, Step, ref
from datapilot.core.results import RunResult
from datapilot.engine.brain import Understanding
from datapilot.interfaces.registry import Frame, Registry, interface
from datapilot.model_client import LLMClient, LLMConfig
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.scripted import ScriptedEndpoint

P = ParamSpec("P")
T = TypeVar("T")

# Loopback only: the scripted endpoint runs on 127.0.0.1, everything else stays blocked.
LOOPBACK = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]


def time_limit(seconds: float) -> Callable[[Callable[P, Awaitable[T]]], Callable[P, Awaitable[T]]]:
    """Fail an async test that runs longer than `seconds` instead of letting it hang."""

    def decorate(test: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        @functools.wraps(test)
        async def bounded(*args: P.args, **kwargs: P.kwargs) -> T:
            async with asyncio.timeout(seconds):
                return await test(*args, **kwargs)

        return bounded

    return decorate


def client_for(
    endpoint: ScriptedEndpoint, *, timeout_s: float = 5.0, max_retries: int = 2, **extra: Any
) -> LLMClient:
    """A client of the scripted endpoint with a fresh memory of what endpoints accept."""
    forget_endpoint_modes()
    config = LLMConfig(
        base_url=endpoint.base_url,
        model="scripted",
        timeout_s=timeout_s,
        max_retries=max_retries,
        **extra,
    )
    return LLMClient(config)


# --- a small, fixed world for planner tests: four interfaces and a handful of entities ----------

TEST_REGISTRY = Registry()


@interface("acquisition", "frame", target=TEST_REGISTRY)
def get_prices(
    ctx: Any,
    ids: Annotated[list[str], "Entity ids, e.g. ['AAPL']."],
    start: Annotated[date | None, "First date."] = None,
    end: Annotated[date | None, "Last date."] = None,
) -> pd.DataFrame:
    """Daily closes, one column per id."""
    raise NotImplementedError


@interface("acquisition", "frame", target=TEST_REGISTRY)
def get_client_table(ctx: Any, name: Annotated[str, "A client table's name."]) -> pd.DataFrame:
    """A table the client sent."""
    raise NotImplementedError


@interface("processing", "frame", target=TEST_REGISTRY)
def cumulative_returns(ctx: Any, frame: Frame) -> pd.DataFrame:
    """Cumulative return in % since the first row."""
    raise NotImplementedError


@interface("visualization", "chart", target=TEST_REGISTRY)
def plot_line(ctx: Any, frame: Frame, title: str) -> Any:
    """Line chart, one line per column."""
    raise NotImplementedError


def small_catalog() -> Any:
    """Apple, Microsoft, the S&P 500 and real GDP with data; Tesla known but without data."""
    from datapilot.data.catalog import Catalog, Entity

    return Catalog(
        [
            Entity(id="AAPL", kind="stock", name="Apple Inc.", aliases=["Apple", "苹果"], **SPAN),
            Entity(
                id="MSFT", kind="stock", name="Microsoft Corporation", aliases=["Microsoft"], **SPAN
            ),
            Entity(id="^GSPC", kind="index", name="S&P 500", aliases=["标普500"]),
            Entity(id="GDPC1", kind="macro", name="US real GDP", aliases=["real GDP"]),
            Entity(id="TSLA", kind="stock", name="Tesla, Inc.", aliases=["Tesla"], available=False),
        ]
    )


SPAN = {"first": date(1990, 1, 2), "last": date(2022, 12, 28)}


class StubOffline:
    """Stands in for the offline planner so a test sees exactly when the fallback answered."""

    name = "offline"

    def __init__(self, status: AnswerStatus = "ok") -> None:
        self.calls = 0
        self.status = status  # not ok: a reader that cannot answer the question

    async def understand(self, question: str, context: QuestionContext) -> Understanding:
        self.calls += 1
        if self.status != "ok":
            intent = Intent(rewritten=f"offline: {question}")
            return Understanding(status=self.status, intent=intent, message="offline: no answer")
        plan = Plan(
            steps=[
                Step(calls=[Call(interface="get_prices", args={"ids": ["AAPL"]}, output="p")]),
                Step(
                    calls=[
                        Call(
                            interface="plot_line",
                            args={"frame": ref("p"), "title": "offline"},
                            output="c",
                        )
                    ]
                ),
            ]
        )
        return Understanding(intent=Intent(rewritten=f"offline: {question}"), plan=plan)

    async def summarize(
        self, question: str, understanding: Understanding, run: RunResult, context: QuestionContext
    ) -> Any:
        yield "offline summary"
