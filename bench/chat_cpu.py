"""The platform's own CPU per chat message, against the bare pipeline answering the same question.

One thread, no HTTP: for each message, the thread CPU time of `Conversation.prepare` (store the
message, read the chat, its history and the assistant, set up the turn), of the turn's context
fitting (`fit`), of `Conversation.finish` (store the reply and the turn's record), of the whole
turn (`turn`, the offline brain included) and of the bare pipeline (`ask`) answering the same
question with the same history. CPU time, unlike wall time, hardly moves with the machine's load.
Prints the medians per message and the overhead (prepare + turn + finish − ask). The store
statements of one message are listed with `--statements`.

    python bench/chat_cpu.py                # SQLite
    python bench/chat_cpu.py --postgres     # a PostgreSQL 16 started from pgserver
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from sqlalchemy import event

from datapilot.assistants import runtime
from datapilot.assistants.conversations import Chats
from datapilot.assistants.models import AssistantIn, ChatIn, Tenant
from datapilot.assistants.repo import Assistants
from datapilot.assistants.service import Conversation, MessageIn, request_for, tool_ids
from datapilot.brains import run as run_brain
from datapilot.core.context import ChatMessage
from datapilot.settings import Settings
from datapilot.store import Users, open_store

QUESTIONS = ["How much did Apple return in 2021?", "Microsoft's volatility in 2020"]


async def measure(settings: Settings, chats: int, per_chat: int, statements: bool) -> None:
    store = open_store(settings)
    with store.session(write=True) as session:
        tenant = Tenant(user_id=Users(session).create(f"cpu-{time.time_ns()}").id)
        made = Assistants(session, tenant).create(
            AssistantIn(name="A"), tool_ids(session, settings, tenant)
        )
    conversation = Conversation(store, tenant, settings)
    times: dict[str, list[float]] = {k: [] for k in ("prepare", "fit", "finish", "turn", "ask")}
    fitting = runtime.Turn._fit_context

    async def timed_fit(self: runtime.Turn, inputs: Any) -> None:
        started = time.thread_time()
        await fitting(self, inputs)
        times["fit"].append(time.thread_time() - started)

    runtime.Turn._fit_context = timed_fit  # type: ignore[method-assign]
    listed: list[str] = []
    for number in range(chats + 1):  # the first chat warms up (not counted)
        with store.session(write=True) as session:
            chat = Chats(session, tenant).create(ChatIn(assistant_id=made.id))
        history: list[ChatMessage] = []
        for n in range(per_chat):
            question = QUESTIONS[n % 2]
            watch = statements and number == chats and n == per_chat - 1
            if watch:
                event.listen(store.engine, "before_cursor_execute", _collect(listed))
            started = time.thread_time()
            prepared = conversation.prepare(chat.id, MessageIn(content=question, stream=False))
            prepare = time.thread_time() - started
            assert prepared.turn is not None
            started = time.thread_time()
            async for _event in prepared.turn.events():
                pass
            turn = time.thread_time() - started
            started = time.thread_time()
            conversation.finish(prepared)
            finish = time.thread_time() - started
            if watch:
                event.remove(store.engine, "before_cursor_execute", _collect(listed))
            request = request_for(settings)
            context = request.question.model_copy(update={"history": list(history)})
            bare = type(request)(
                question=context,
                settings=request.settings,
                data=request.data,
                registry=request.registry,
            )
            started = time.thread_time()
            async for _event in run_brain(question, bare):
                pass
            ask = time.thread_time() - started
            reply = prepared.turn.result.text
            history += [
                ChatMessage(role="human", content=question),
                ChatMessage(role="ai", content=reply),
            ]
            if number:
                for key, value in zip(
                    ("prepare", "turn", "finish", "ask"), (prepare, turn, finish, ask), strict=True
                ):
                    times[key].append(value)
    runtime.Turn._fit_context = fitting  # type: ignore[method-assign]
    times["fit"] = times["fit"][per_chat:]  # the warm-up chat's
    medians = {key: statistics.median(values) * 1000 for key, values in times.items()}
    overhead = medians["prepare"] + medians["turn"] + medians["finish"] - medians["ask"]
    print(
        f"{store.engine.dialect.name}: {chats} chats x {per_chat} messages, thread CPU per message "
        "(median): "
        + ", ".join(f"{key} {value:.2f} ms" for key, value in medians.items())
        + f"; platform overhead {overhead:.2f} ms"
    )
    for text in listed:
        print("  ", " ".join(text.split())[:120])
    if listed:
        print(f"  {len(listed)} statements for the last message")


_collectors: dict[int, Any] = {}


def _collect(listed: list[str]) -> Any:
    """One listener per list (event.remove needs the same function)."""
    if id(listed) not in _collectors:

        def collect(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            listed.append(statement)

        _collectors[id(listed)] = collect
    return _collectors[id(listed)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=15)
    parser.add_argument("--messages", type=int, default=4, help="messages per chat")
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--statements", action="store_true")
    args = parser.parse_args()
    url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite3'}"
    server = None
    if args.postgres:
        import pgserver

        server = pgserver.get_server(Path(tempfile.mkdtemp()) / "pg", cleanup_mode="delete")
        url = server.get_uri()
    try:
        settings = Settings(brain="offline", offline=True, database_url=SecretStr(url))
        asyncio.run(measure(settings, args.chats, args.messages, args.statements))
    finally:
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
