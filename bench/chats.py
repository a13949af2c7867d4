"""Chat throughput of the assistant platform with concurrent users, against a bare ask.

Each of `--users` users has a key, an assistant and a chat; all send their messages at once
(offline brain, the bundled data, no network), in process through the real app. The same
users then ask the same questions through `POST /api/v1/ask`, at the same concurrency and each
with the conversation a chat would hold (its earlier questions and answers as `history`), so the
brain does the same work on both paths: a follow-up in a chat reads the earlier turns. Prints
errors, CPU per message, p50/p95 of both and their difference, and the platform's overhead as the
server measures it for each message (`Server-Timing`: storing the message, loading the chat,
setting up the turn; storing the reply). The target (20 ms) is for the difference of the p95s:
under 20 concurrent users both paths queue for the same two cores, so it swings by tens of ms
from run to run; `--rounds` pools more messages. The server's own timing is wall time too: a
step of 3 ms CPU takes 10-30 ms beside twenty answers being computed. With `--postgres`, the
CPU of the PostgreSQL server's processes too (they share the machine's cores with the app).

    python bench/chats.py                              # SQLite, 20 users x 5 messages
    python bench/chats.py --postgres                   # a PostgreSQL 16 started from pgserver
    python bench/chats.py --postgres --rounds 5        # five rounds: p95 over 5x the messages
    python bench/chats.py --database-url postgresql://…
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import tempfile
import time
from collections.abc import Coroutine
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


class CollectorPasses:
    """The garbage collector's passes while counting: how many of each generation and the
    longest (a pass stops every thread: each request in flight waits for it)."""

    def __init__(self) -> None:
        self.passes: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._started = 0.0

    def start(self) -> None:
        gc.callbacks.append(self._observe)

    def stop(self) -> None:
        gc.callbacks.remove(self._observe)

    def _observe(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.passes[info["generation"]].append((time.perf_counter() - self._started) * 1000)

    def line(self) -> str:
        return ", ".join(
            f"gen {g}: {len(ms)} passes, {sum(ms):.0f} ms, longest {max(ms, default=0):.1f} ms"
            for g, ms in self.passes.items()
        )


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)]


async def _sequence(steps: list[Coroutine[Any, Any, float]]) -> list[float]:
    return [await step for step in steps]


def server_cpu(pid: int | None) -> float:
    """User + system CPU seconds of a database server's process and its backends so far."""
    if pid is None:
        return float("nan")
    import psutil

    process = psutil.Process(pid)
    ended = process.cpu_times()  # backends that exited count in their parent's children_* times
    total = ended.children_user + ended.children_system
    for each in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = each.cpu_times()
            total += times.user + times.system
    return total


async def run(
    settings: Settings,
    users: int,
    messages: int,
    *,
    rounds: int = 1,
    interleave: bool,
    db_pid: int | None = None,
) -> None:
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
        steps: dict[str, list[float]] = {}

        async def timed(
            method: str, url: str, body: dict[str, object], headers: dict[str, str]
        ) -> tuple[float, httpx.Response]:
            nonlocal errors
            started = time.perf_counter()
            response = await client.request(method, url, json=body, headers=headers)
            elapsed = (time.perf_counter() - started) * 1000
            if response.status_code != 200:
                errors += 1
            return elapsed, response

        async def chat_one(headers: dict[str, str], chat: str, n: int) -> float:
            body = {"content": QUESTIONS[n % 5], "stream": False}
            elapsed, response = await timed("POST", f"/api/v1/chats/{chat}/messages", body, headers)
            if n and response.status_code == 200:  # the platform's own steps, as it measured them
                timed_steps = server_timing(response.headers.get("server-timing", ""))
                for name, ms in {**timed_steps, "both": sum(timed_steps.values())}.items():
                    steps.setdefault(name, []).append(ms)
            return elapsed

        async def ask_one(headers: dict[str, str], history: list[dict[str, str]], n: int) -> float:
            # The conversation grows as the chat's does: each answer joins the history.
            body = {"question": QUESTIONS[n % 5], "history": list(history)}
            elapsed, response = await timed("POST", "/api/v1/ask", body, headers)
            answer = response.json() if response.status_code == 200 else {}
            reply = answer.get("summary") or answer.get("message") or ""
            history += [
                {"role": "human", "content": QUESTIONS[n % 5]},
                {"role": "ai", "content": f"{reply}\n\n{NO_MODEL_NOTE}".strip()},
            ]
            return elapsed

        async def user(number: int, first: int) -> tuple[list[float], list[float]]:
            """One user's messages: with `interleave`, each question to the chat and as a bare
            ask side by side (half the users ask first), so both meet the same load."""
            headers, chat = chats[number]
            chat_times, ask_times = [], []
            for n in range(first, first + messages):
                if number % 2:
                    ask_times.append(await ask_one(headers, histories[number], n))
                chat_times.append(await chat_one(headers, chat, n))
                if not number % 2:
                    ask_times.append(await ask_one(headers, histories[number], n))
            return chat_times, ask_times

        # One untimed round of each first: the comparison is of warm paths, and both
        # conversations start with the same first exchange.
        histories: list[list[dict[str, str]]] = [[] for _ in chats]
        await asyncio.gather(*(chat_one(h, c, 0) for h, c in chats))
        await asyncio.gather(*(ask_one(h, histories[n], 0) for n, (h, _) in enumerate(chats)))
        errors = 0
        collector = CollectorPasses()
        collector.start()
        cpu, db_cpu = time.process_time(), server_cpu(db_pid)
        chat_runs, ask_runs, per_round = [], [], []
        chat_s = 0.0
        for number in range(rounds):
            first = 1 + number * messages
            started = time.perf_counter()
            if interleave:
                runs = await asyncio.gather(*(user(n, first) for n in range(len(chats))))
                chats_now, asks_now = [r[0] for r in runs], [r[1] for r in runs]
                chat_s += (time.perf_counter() - started) / 2
            else:
                cpu, db_cpu = time.process_time(), server_cpu(db_pid)  # this round's
                chats_now = await asyncio.gather(
                    *(
                        _sequence([chat_one(h, c, n) for n in range(first, first + messages)])
                        for h, c in chats
                    )
                )
                chat_s += time.perf_counter() - started
                chat_cpu, cpu = time.process_time() - cpu, time.process_time()
                chat_db, db_cpu = server_cpu(db_pid) - db_cpu, server_cpu(db_pid)
                asks_now = await asyncio.gather(
                    *(
                        _sequence(
                            [ask_one(h, histories[u], n) for n in range(first, first + messages)]
                        )
                        for u, (h, _) in enumerate(chats)
                    )
                )
            per_round.append(_overheads(chats_now, asks_now))
            chat_runs += chats_now
            ask_runs += asks_now
        if interleave:
            both_cpu, both_db = time.process_time() - cpu, server_cpu(db_pid) - db_cpu
            chat_cpu = ask_cpu = chat_db = ask_db = float("nan")  # not told apart
        else:  # the last round's figures
            ask_cpu, ask_db = time.process_time() - cpu, server_cpu(db_pid) - db_cpu
            both_cpu, both_db = chat_cpu + ask_cpu, chat_db + ask_db
        collector.stop()
    chat_ms = [ms for run in chat_runs for ms in run]
    ask_ms = [ms for run in ask_runs for ms in run]
    overhead, paired = _overheads(chat_runs, ask_runs)
    count = len(chat_ms) if interleave else users * messages  # phases: the last round's
    verdict = "ok" if overhead <= TARGET_MS and not errors else "OVER"
    rounds_line = (
        "  each round's p95 overhead / paired median: "
        + ", ".join(f"{o:.0f} / {m:.0f} ms" for o, m in per_round)
        + "\n"
        if rounds > 1
        else ""
    )
    print(
        f"{settings.database_url and settings.database_url.get_secret_value().split(':')[0]}: "
        f"{users} users x {messages} messages x {rounds} rounds, {errors} errors, "
        f"{len(chat_ms) / chat_s:.1f} messages/s\n"
        + (
            f"  CPU per message, chat and ask together: app {both_cpu / count * 500:.1f} ms, "
            f"database server {both_db / count * 500:.1f} ms\n"
            if interleave
            else f"  CPU per message: chat {chat_cpu / count * 1000:.1f} ms, "
            f"ask {ask_cpu / count * 1000:.1f} ms (app); chat {chat_db / count * 1000:.1f} ms, "
            f"ask {ask_db / count * 1000:.1f} ms (database server)\n"
        )
        + f"  mode: {'interleaved' if interleave else 'phases (all chats, then all asks)'}\n"
        f"  chat  p50 {statistics.median(chat_ms):.0f} ms, p95 {p95(chat_ms):.0f} ms\n"
        f"  ask   p50 {statistics.median(ask_ms):.0f} ms, p95 {p95(ask_ms):.0f} ms\n"
        + rounds_line
        + f"  platform overhead, chat p95 - ask p95 (all {len(chat_ms)} messages): "
        f"{overhead:.1f} ms (target <= {TARGET_MS:g} ms: {verdict}); paired difference median "
        f"{paired:.1f} ms\n"
        f"  the platform's own steps as the server timed them (Server-Timing, wall time beside "
        "the other users' answers), p50 / p95: "
        + ", ".join(
            f"{name} {statistics.median(ms):.1f} / {p95(ms):.1f} ms" for name, ms in steps.items()
        )
        + f"\n  the garbage collector while timed: {collector.line()}"
    )


def _overheads(chat_runs: list[list[float]], ask_runs: list[list[float]]) -> tuple[float, float]:
    """The p95 of chat messages minus the p95 of bare asks, and the median of the paired
    differences: the same user's same question on both paths, one after the other, so the
    machine's noise mostly cancels."""
    chat_ms = [ms for run in chat_runs for ms in run]
    ask_ms = [ms for run in ask_runs for ms in run]
    pairs = zip(chat_runs, ask_runs, strict=True)
    paired = [c - a for cs, as_ in pairs for c, a in zip(cs, as_, strict=True)]
    return p95(chat_ms) - p95(ask_ms), statistics.median(paired)


def server_timing(header: str) -> dict[str, float]:
    """The durations of a `Server-Timing` header (`name;dur=ms, …`) by name."""
    found: dict[str, float] = {}
    for part in header.split(","):
        name, *params = part.split(";")
        for param in params:
            key, _, value = param.strip().partition("=")
            if key == "dur":
                found[name.strip()] = float(value)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="repeat the timed messages this many times (the chats grow on): the p95 of all "
        "of them, and each round's",
    )
    parser.add_argument("--database-url", default=None)
    parser.add_argument(
        "--phases",
        action="store_true",
        help="all chat messages first, then all asks (prints CPU per message of each); the "
        "default interleaves them so that both meet the same load",
    )
    parser.add_argument(
        "--postgres", action="store_true", help="start a PostgreSQL 16 (pgserver) for the run"
    )
    args = parser.parse_args()
    db_pid = None
    with contextlib.ExitStack() as stack:
        url = args.database_url or f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite3'}"
        if args.postgres:
            import pgserver  # the tests' PostgreSQL: a wheel, no system service

            server = pgserver.get_server(Path(tempfile.mkdtemp()) / "pg", cleanup_mode="delete")
            stack.callback(server.cleanup)
            url = server.get_uri()
            db_pid = server.get_pid()
        settings = Settings(
            brain="offline", offline=True, auth_cache_s=2, database_url=SecretStr(url)
        )
        open_store(settings)
        asyncio.run(
            run(
                settings,
                args.users,
                args.messages,
                rounds=args.rounds,
                interleave=not args.phases,
                db_pid=db_pid,
            )
        )


if __name__ == "__main__":
    main()
