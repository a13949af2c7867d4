"""Shared pieces of the interpreter tests: a client's rebuilding of LMC chunks into messages
(Open Interpreter's example client logic) and a run's collected output."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from datapilot.core.messages import LmcChunk
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.scripted import ScriptedEndpoint
from datapilot.settings import Settings
from support.platform_app import app_for


def process_chunks(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rebuild the message list the way Open Interpreter 0.2's example client does: a `start`
    chunk opens a message with the chunk's role/type/format, chunks in between append their
    `content` to it, `end` closes it; a chunk outside any block is a whole message. Server chunks
    (status, errors) and `active_line` marks are not messages. The model path's streams (its
    prose, its code, the confirmation, the outputs, its next reply) go through the same logic."""
    messages: list[dict[str, Any]] = []
    open_block: tuple[Any, Any, Any] | None = None
    for chunk in chunks:
        if chunk["role"] == "server" or chunk.get("format") == "active_line":
            continue
        key = (chunk["role"], chunk["type"], chunk.get("format"))
        if chunk.get("start"):
            assert open_block is None, f"a block opened inside another: {chunk}"
            messages.append({"role": key[0], "type": key[1], "format": key[2], "content": None})
            open_block = key
            continue
        if chunk.get("end"):
            assert open_block == key, f"end of a block that is not open: {chunk}"
            open_block = None
            continue
        if open_block is not None:
            assert open_block == key, f"a delta of another block: {chunk}"
            last = messages[-1]
            if isinstance(chunk.get("content"), str):
                last["content"] = (last["content"] or "") + chunk["content"]
            else:
                last["content"] = chunk.get("content")
            continue
        messages.append({k: v for k, v in chunk.items() if k not in ("start", "end")})
    assert open_block is None, "the stream ended inside a block"
    return messages


def wire(chunks: list[LmcChunk]) -> list[dict[str, Any]]:
    return [chunk.model_dump(exclude_none=True) for chunk in chunks]


def console_text(chunks: list[dict[str, Any]]) -> str:
    return "".join(
        m["content"] or ""
        for m in process_chunks(chunks)
        if m["type"] == "console" and m.get("format") == "output"
    )


def report(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's `server/status/execution` report."""
    found = [c for c in chunks if c["role"] == "server" and c.get("format") == "execution"]
    assert len(found) == 1, chunks
    return found[0]["content"]


def scripted_interpreter_app(
    tmp_path_factory: pytest.TempPathFactory, endpoint: ScriptedEndpoint, name: str
) -> Iterator[FastAPI]:
    """An app whose model is `endpoint`, with auto-run allowed by the server (a key still needs
    the run scope), on its own SQLite store; its kernels are stopped afterwards."""
    forget_endpoint_modes()
    db = Path(tmp_path_factory.mktemp(name)) / "store.sqlite3"
    settings = Settings(
        brain="offline",
        offline=False,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{db}"),
        interpreter_auto_run=True,
        interpreter_timeout_s=30,
        llm_base_url=endpoint.base_url,
        llm_model="scripted",
        llm_timeout_s=60,
        llm_max_retries=0,
    )
    made = app_for(settings)
    yield made
    sessions = getattr(made.state, "interpreter_sessions", None)
    if sessions is not None:
        sessions.close()
