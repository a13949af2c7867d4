"""Helpers shared by the LLM tests: a hard time limit per test and a client on a scripted server."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

import pytest

from datapilot.llm import LLMClient, LLMConfig
from datapilot.llm.client import forget_endpoint_modes
from datapilot.llm.scripted import ScriptedEndpoint

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
