"""Chat throughput of the assistant platform with concurrent users, against a bare ask.

Each of `--users` users has a key, an assistant and a chat; all send their messages at once
(offline brain, the bundled data, no network), in process through the real app. The same
users then ask the same questions through `POST /api/v1/ask`, at the same concurrency and each
with the conversation a chat would hold (its earlier questions and answers as `history`), so the
brain does the same work on both paths: a follow-up in a chat reads the earlier turns. Prints
errors, CPU per message, p50/p95 of both, and the platform's p95 overhead (storing the message,
loading the chat, setting up the turn, storing the reply).

    python bench/chats.py                              # SQLite, 20 users x 5 messages
    python bench/chats.py --postgres                   # a PostgreSQL 16 started from pgserver
    python bench/chats.py --database-url postgresql://…
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from datapilot.assistants.runtime import NO_MODEL_NOTE
from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Keys, Users, open_store

TARGET_MS = 20.0  # p95 overhead of the platform over a bare ask
QUESTIONS = [
    "How much did Apple return in 2021?",
    "Microsoft's volatility in 2020",
    "Compare JPM and BAC in 2019",
    "Nvidia's max drawdown in 2022",
    "Apple's closing price in 2021",
]


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)]


async def run(settings: Settings, users: int, messages: int) -> None:
    app = create_app(settings, warm_up=True)
    store = app.state.store
    keys = []
    with store.session() as session:
        for number in range(users):
            name = f"bench-{number}-{time.time_ns()}"
            Users(session).create(name)
            keys.append(Keys(session).create(name, "chat,manage", user=name).key.get_secret_value())
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=300) as client,
    ):
        chats = []
        for number, key in enumerate(keys):
            headers = {"Authorization": f"Bearer {key}"}
            made = await client.post(
                "/api/v1/assistants", json={"name": f"a{number}"}, headers=headers
            )
            chat = await client.post(
                "/api/v1/chats", json={"assistant_id": made.json()["id"]}, headers=headers
            )
            chats.append((headers, chat.json()["id"]))
        errors = 0

        async def timed(
            method: str, url: str, body: dict[str, object], headers: dict[str, str]
        ) -> tuple[float, dict[str, Any]]:
            nonlocal errors
            started = time.perf_counter()
            response = await client.request(method, url, json=body, headers=headers)
            elapsed = (time.perf_counter() - started) * 1000
            if response.status_code != 200:
                errors += 1
                return elapsed, {}
            return elapsed, response.json()

        async def user_chat(headers: dict[str, str], chat: str) -> list[float]:
            url = f"/api/v1/chats/{chat}/messages"
            return [
                (await timed("POST", url, {"content": QUESTIONS[n % 5], "stream": False}, headers))[
                    0
                ]
                for n in range(messages)
            ]

        async def user_ask(headers: dict[str, str], history: list[dict[str, str]]) -> list[float]:
            # The conversation grows as the chat's does: each answer joins the history.
            times = []
            for n in range(messages):
                body = {"question": QUESTIONS[n % 5], "history": list(history)}
                elapsed, answer = await timed("POST", "/api/v1/ask", body, headers)
                times.append(elapsed)
                reply = answer.get("summary") or answer.get("message") or ""
                history += [
                    {"role": "human", "content": QUESTIONS[n % 5]},
                    {"role": "ai", "content": f"{reply}\n\n{NO_MODEL_NOTE}".strip()},
                ]
            return times

        # One untimed round of each first: the comparison is of warm paths, and both
        # conversations start with the same first exchange.
        first = {"content": QUESTIONS[0], "stream": False}
        await asyncio.gather(
            *(timed("POST", f"/api/v1/chats/{c}/messages", first, h) for h, c in chats)
        )
        histories: list[list[dict[str, str]]] = [[] for _ in chats]
        await asyncio.gather(
            *(user_ask(h, histories[n]) for n, (h, _) in enumerate(chats)), return_exceptions=True
        )
        for history in histories:  # keep the first exchange only, as in the chats
            del history[2:]
        errors = 0
        cpu = time.process_time()
        started = time.perf_counter()
        chat_runs = await asyncio.gather(*(user_chat(h, c) for h, c in chats))
        chat_s = time.perf_counter() - started
        chat_cpu, cpu = time.process_time() - cpu, time.process_time()
        ask_runs = await asyncio.gather(
            *(user_ask(h, histories[n]) for n, (h, _) in enumerate(chats))
        )
        ask_cpu = time.process_time() - cpu
    chat_ms = [ms for run in chat_runs for ms in run]
    ask_ms = [ms for run in ask_runs for ms in run]
    overhead = p95(chat_ms) - p95(ask_ms)
    count = len(chat_ms)
    verdict = "ok" if overhead <= TARGET_MS and not errors else "OVER"
    print(
        f"{settings.database_url and settings.database_url.get_secret_value().split(':')[0]}: "
        f"{users} users x {messages} messages, {errors} errors, "
        f"{len(chat_ms) / chat_s:.1f} messages/s\n"
        f"  CPU per message: chat {chat_cpu / count * 1000:.1f} ms, "
        f"ask {ask_cpu / count * 1000:.1f} ms\n"
        f"  chat  p50 {statistics.median(chat_ms):.0f} ms, p95 {p95(chat_ms):.0f} ms\n"
        f"  ask   p50 {statistics.median(ask_ms):.0f} ms, p95 {p95(ask_ms):.0f} ms\n"
        f"  platform overhead at p95: {overhead:.1f} ms (target <= {TARGET_MS:g} ms: {verdict})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    parser.add_argument(
        "--postgres", action="store_true", help="start a PostgreSQL 16 (pgserver) for the run"
    )
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        url = args.database_url or f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite3'}"
        if args.postgres:
            import pgserver  # the tests' PostgreSQL: a wheel, no system service

            server = pgserver.get_server(Path(tempfile.mkdtemp()) / "pg", cleanup_mode="delete")
            stack.callback(server.cleanup)
            url = server.get_uri()
        settings = Settings(
            brain="offline", offline=True, auth_cache_s=2, database_url=SecretStr(url)
        )
        open_store(settings)
        asyncio.run(run(settings, args.users, args.messages))


if __name__ == "__main__":
    main()
