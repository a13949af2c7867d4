"""The platform's own cost per chat message: a bounded number of store statements (they are
round trips on PostgreSQL), and chat transactions that do not wait for the disk flush."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import event, func, select, text
from support.platform_app import QUESTION, TODAY, app_for, client_of, platform_settings

from datapilot.assistants.conversations import Chats
from datapilot.assistants.models import ChatIn, Tenant
from datapilot.assistants.repo import NotFound
from datapilot.assistants.service import Conversation, MessageIn
from datapilot.store import Users
from datapilot.store.models import ChatMessage

# Per message: the keyless door's two lookups (the tests cache nothing); then the chat with its
# history (one query), the assistants with the answering one's tools (one query), the message's
# INSERT and the chat's touch (a transaction of their own: on SQLite the write lock is held for
# the write alone); then (a new transaction) one INSERT of the turn's messages and one
# of its context record. The user's memories and the assistant's scene prompts are read only
# when there are some (the two queries above say so).
# Transaction plumbing (BEGIN, SET LOCAL) is not counted.
# Changed in the open (11 → 14): a turn now also reads the user's memories and the assistant's
# scene prompts, and records what its prompt held (the turn context) with the reply.
# Changed in the open (14 → 13): storing the reply no longer reads the chat again (`prepare`
# read it as the tenant's; a chat deleted meanwhile fails on its foreign key, tested below).
# Changed in the open (13 → 12): the assistant and its tools' names come in one query.
# Changed in the open (12 → 8): the chat and its history in one query; the assistants' names
# with the answering one's definition and tools in one; no memory or scene read when there is
# none.
# Changed in the open (8 → 6 on PostgreSQL): there the chat's touch rides on the message's
# INSERT, and the context record on the reply's, as data-modifying CTEs (a round trip each).
# 6 → 7 on PostgreSQL: each question first looks at the replicas' shared data log (an indexed
# max), so an import through one replica is answered at once by every other.
MAX_STATEMENTS = {"postgresql": 7, "sqlite": 8}
PLUMBING = ("BEGIN", "SET LOCAL")


@pytest.fixture()
def app(store_url: str, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(store_url))


async def test_a_chat_message_costs_a_bounded_number_of_statements(app) -> None:  # type: ignore[no-untyped-def]
    statements: list[str] = []
    async with client_of(app) as client:
        assistant = (await client.post("/api/v1/assistants", json={"name": "A"})).json()
        chat = (await client.post("/api/v1/chats", json={"assistant_id": assistant["id"]})).json()
        url = f"/api/v1/chats/{chat['id']}/messages"
        body = {"content": QUESTION, "today": TODAY, "stream": False}
        await client.post(url, json=body)  # warm: first-use work (tool rows, caches) is not timed

        def count(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
            if not statement.startswith(PLUMBING):
                statements.append(statement)

        engine = app.state.store.engine
        event.listen(engine, "before_cursor_execute", count)
        try:
            for _ in range(3):  # the history grows; the statements must not
                before = len(statements)
                sent = await client.post(url, json=body)
                assert sent.status_code == 200, sent.text
                per_message = len(statements) - before
                assert per_message <= MAX_STATEMENTS[engine.dialect.name], statements[before:]
        finally:
            event.remove(engine, "before_cursor_execute", count)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_chat_message_runs_on_one_worker_thread(
    app, stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Storing the message, the turn and storing its reply run as one job of the request pool:
    every hop to another thread waits for the GIL behind the busy workers."""
    from datapilot.assistants.runtime import Turn

    threads: dict[str, list[str]] = {"prepare": [], "turn": [], "finish": []}
    prepare, finish, events = Conversation.prepare, Conversation.finish, Turn.events

    def on_prepare(self, chat_id, body):  # type: ignore[no-untyped-def]
        threads["prepare"].append(threading.current_thread().name)
        return prepare(self, chat_id, body)

    def on_finish(self, prepared):  # type: ignore[no-untyped-def]
        threads["finish"].append(threading.current_thread().name)
        return finish(self, prepared)

    async def on_events(self):  # type: ignore[no-untyped-def]
        threads["turn"].append(threading.current_thread().name)
        async for item in events(self):
            yield item

    monkeypatch.setattr(Conversation, "prepare", on_prepare)
    monkeypatch.setattr(Conversation, "finish", on_finish)
    monkeypatch.setattr(Turn, "events", on_events)
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        url = f"/api/v1/chats/{chat['id']}/messages"
        sent = await client.post(url, json={"content": QUESTION, "today": TODAY, "stream": stream})
        assert sent.status_code == 200, sent.text
        if stream:  # the stream still opens with the stored message, and completes
            assert '"format":"message"' in sent.text.replace(" ", "")
            assert '"complete"' in sent.text
        # A refused message is still an HTTP error before any stream starts, storing nothing.
        missing = await client.post(
            "/api/v1/chats/no-such-chat/messages", json={"content": "hi", "stream": stream}
        )
        listed = (await client.get(url)).json()
    assert missing.status_code == 404, missing.text
    assert "no-such-chat" in missing.json()["detail"]
    assert [m["role"] for m in listed] == ["human", "assistant"]
    assert len(threads["prepare"]) == 2 and len(threads["turn"]) == len(threads["finish"]) == 1
    (one,) = {threads["prepare"][0], *threads["turn"], *threads["finish"]}
    # A pool thread: offline answers run on the `offline` pool (one thread per core), answers
    # that may wait on a model on the `request` pool.
    assert one.startswith(("datapilot-request", "datapilot-offline"))


async def test_a_message_moves_its_chat_to_the_top_and_keeps_the_turns_record(app) -> None:  # type: ignore[no-untyped-def]
    """The chat's touch and the turn's context record are stored with the messages (on
    PostgreSQL in the same statement): the chat list's order follows the last message, the chat
    stays its owner's, and the reply's record is there."""
    async with client_of(app) as client:
        first = (await client.post("/api/v1/chats", json={"name": "first"})).json()
        second = (await client.post("/api/v1/chats", json={"name": "second"})).json()
        names = [c["name"] for c in (await client.get("/api/v1/chats")).json()]
        assert names == ["second", "first"]  # the newest first
        later = {"content": "a note", "role": "human_later", "stream": False}
        await client.post(f"/api/v1/chats/{first['id']}/messages", json=later)
        listed = (await client.get("/api/v1/chats")).json()
        assert [c["name"] for c in listed] == ["first", "second"]
        assert listed[0]["updated_at"] > first["updated_at"]
        asked = {"content": QUESTION, "today": TODAY, "stream": False}
        sent = await client.post(f"/api/v1/chats/{second['id']}/messages", json=asked)
        assert sent.status_code == 200, sent.text
        assert [c["name"] for c in (await client.get("/api/v1/chats")).json()] == [
            "second",
            "first",
        ]
        human = sent.json()["message"]["id"]
        url = f"/api/v1/chats/{second['id']}/messages/{human}/context"
        record = await client.get(url)
    assert record.status_code == 200, record.text  # 404 when no record was stored
    assert record.json()["memory_ids"] == []


def test_chat_transactions_are_durable(app) -> None:  # type: ignore[no-untyped-def]
    # Changed in the open: chat transactions once skipped PostgreSQL's flush wait
    # (synchronous_commit off) for speed, which could lose a user's last messages if the
    # database's machine crashed; the gain was within noise, so every commit is durable again.
    store = app.state.store
    with store.session(write=True) as session:
        if store.engine.dialect.name == "postgresql":
            assert session.scalar(text("SHOW synchronous_commit")) == "on"
        else:  # SQLite in WAL mode: NORMAL (1) or FULL (2) survive a process crash; OFF (0) not
            assert session.scalar(text("PRAGMA synchronous")) >= 1


async def test_a_reply_to_a_chat_deleted_during_its_turn_is_refused_whole(app) -> None:  # type: ignore[no-untyped-def]
    store = app.state.store
    with store.session(write=True) as session:
        tenant = Tenant(user_id=Users(session).create("deleter").id)
        chat = Chats(session, tenant).create(ChatIn())
    conversation = Conversation(store, tenant, app.state.settings)
    body = MessageIn(content=QUESTION, today=TODAY, stream=False)
    prepared = await asyncio.to_thread(conversation.prepare, chat.id, body)
    assert prepared.turn is not None
    async for _event in prepared.turn.events():
        pass
    with store.session(write=True) as session:
        Chats(session, tenant).delete(chat.id)
    with pytest.raises(NotFound, match="deleted while it was answering"):
        conversation.finish(prepared)
    with store.session() as session:  # nothing of the reply was half-written
        count = select(func.count()).select_from(ChatMessage)
        assert session.scalar(count.where(ChatMessage.chat_id == chat.id)) == 0


def test_a_message_to_a_chat_deleted_as_it_arrives_is_refused_whole(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The message's reads and its write are separate transactions (the write lock is held only
    for the write): a chat deleted in between is a clear "not found", and nothing is stored."""
    import datapilot.assistants.service as service

    store = app.state.store
    with store.session(write=True) as session:
        tenant = Tenant(user_id=Users(session).create("racer").id)
        chat = Chats(session, tenant).create(ChatIn())
    real_declined = service.declined

    def delete_then_decline(pending):  # type: ignore[no-untyped-def]
        with store.session(write=True) as session:  # runs between the reads and the write
            Chats(session, tenant).delete(chat.id)
        return real_declined(pending)

    monkeypatch.setattr(service, "declined", delete_then_decline)
    conversation = Conversation(store, tenant, app.state.settings)
    with pytest.raises(NotFound, match="was deleted as the message arrived"):
        conversation.prepare(chat.id, MessageIn(content=QUESTION, today=TODAY, stream=False))
    with store.session() as session:
        count = select(func.count()).select_from(ChatMessage)
        assert session.scalar(count.where(ChatMessage.chat_id == chat.id)) == 0


async def test_a_reply_says_how_long_the_platform_took_in_server_timing(app) -> None:  # type: ignore[no-untyped-def]
    """`Server-Timing: prepare;dur=…, finish;dur=…`: the platform's own steps of the message,
    in milliseconds, within the request's own time."""
    import time

    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        started = time.perf_counter()
        sent = await client.post(
            f"/api/v1/chats/{chat['id']}/messages",
            json={"content": QUESTION, "today": TODAY, "stream": False},
        )
        elapsed_ms = (time.perf_counter() - started) * 1000
    assert sent.status_code == 200, sent.text
    steps = dict(
        (part.split(";dur=")[0].strip(), float(part.split(";dur=")[1]))
        for part in sent.headers["server-timing"].split(",")
    )
    assert set(steps) == {"prepare", "finish"}
    assert all(value > 0 for value in steps.values())
    assert steps["prepare"] + steps["finish"] < elapsed_ms


async def test_the_answering_assistant_is_read_whole_however_it_is_named(app) -> None:  # type: ignore[no-untyped-def]
    """Mentions match names in any case (a non-ASCII name too, which SQLite's `lower` leaves
    alone), an explicit `assistant` by name, and no match falls back to the chat's: each time
    the turn gets the very definition `GET /api/v1/assistants/{id}` shows."""
    async with client_of(app) as client:
        made = await client.post(
            "/api/v1/assistants",
            json={"name": "Ärger", "prompt": "P-Ä", "tools": ["ask_data", "python"]},
        )
        umlaut = made.json()
        base = (await client.post("/api/v1/assistants", json={"name": "Base"})).json()
        chat = (await client.post("/api/v1/chats", json={"assistant_id": base["id"]})).json()
        shown = {
            a["id"]: (await client.get(f"/api/v1/assistants/{a['id']}")).json()
            for a in (umlaut, base)
        }
    store = app.state.store
    with store.session() as session:
        tenant = Tenant(user_id=Users(session).by_name("owner").id)  # the keyless door's user
    conversation = Conversation(store, tenant, app.state.settings)
    cases = [
        ({"content": "@ärger what now?"}, umlaut),
        ({"content": "hey @ÄRGER"}, umlaut),
        ({"content": "no mention", "assistant": "Ärger"}, umlaut),
        ({"content": "@nobody there?"}, base),
    ]
    for body, expected in cases:
        message = MessageIn(**body, role="human_later", today=TODAY, stream=False)
        prepared = await asyncio.to_thread(conversation.prepare, chat["id"], message)
        assert prepared.assistant is not None, body
        assert prepared.assistant.model_dump(mode="json") == shown[expected["id"]], body
    assert shown[umlaut["id"]]["tools"] == ["ask_data", "python"]


async def test_memories_are_read_only_when_the_user_has_some(app) -> None:  # type: ignore[no-untyped-def]
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        url = f"/api/v1/chats/{chat['id']}/messages"
        event.listen(app.state.store.engine, "before_cursor_execute", count)
        try:
            await client.post(url, json={"content": QUESTION, "today": TODAY, "stream": False})
            before = len(statements)
            await client.post(url, json={"content": "Remember that I hold AAPL", "stream": False})
            asked = await client.post(url, json={"content": QUESTION, "stream": False})
        finally:
            event.remove(app.state.store.engine, "before_cursor_execute", count)
        human = asked.json()["message"]["id"]
        record = (await client.get(f"{url}/{human}/context")).json()
        memories = (await client.get("/api/v1/memories")).json()

    def reads(found: list[str]) -> int:
        return sum(1 for s in found if s.lstrip().startswith("SELECT memories."))

    assert reads(statements[:before]) == 0  # none yet: nothing to read
    assert reads(statements[before:]) >= 1
    assert [m["text"] for m in memories] == ["I hold AAPL"]
    assert record["memory_ids"] == [memories[0]["id"]]  # the later turn's prompt held it


@pytest.mark.postgres
def test_an_idle_connection_that_died_is_replaced_unnoticed(
    postgres_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connections are not pinged on every transaction (a round trip each); one idle past
    `PING_AFTER_IDLE_S` is, and a dead one is replaced before the request uses it."""
    import psycopg

    from datapilot.store import database as store_database

    engine = store_database.get_engine(store_database.normalise_url(postgres_server))
    with engine.connect() as connection:
        backend = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
    # The pooled connection's backend goes away while it sits idle in the pool.
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
    pool = engine.pool
    # Every checkout now counts as one after a long idle.
    monkeypatch.setattr(store_database, "PING_AFTER_IDLE_S", -1.0)
    with engine.connect() as connection:
        again = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
    assert again != backend
    assert pool is engine.pool


def test_a_turn_builds_only_the_tool_sources_it_needs(
    data: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interfaces' tools (one per interface) are built only when a bound name needs them."""
    from datapilot.assistants.service import request_for
    from datapilot.settings import Settings
    from datapilot.tools import available_tools, workflow

    built: list[int] = []
    real = workflow.interface_tools

    def counting(request):  # type: ignore[no-untyped-def]
        made = real(request)
        built.append(len(made))
        return made

    monkeypatch.setattr(workflow, "interface_tools", counting)
    request = request_for(Settings(offline=True, brain="offline"))
    everything = available_tools(request)
    interface = next(name for name, tool in everything.items() if tool.source == "interface")
    assert len(built) == 1
    for _ in range(2):
        assert list(available_tools(request, ["ask_data"])) == ["ask_data"]
    assert len(built) == 1  # the workflow source only
    both = available_tools(request, ["ask_data", interface])
    assert {"ask_data", interface} <= set(both) and len(built) == 2
    assert set(available_tools(request, ["no-such-tool"])) == set(everything)


# The platform's own CPU per message (storing the message, reading the chat and assistant,
# setting up the turn, storing the reply) against the CPU of the bare pipeline answering the same
# question, as a ratio of thread CPU times (robust to a loaded machine, unlike wall time).
# Measured: 0.45 (SQLite) and 0.55 (PostgreSQL) beside the pipeline of the time, ~0.8 beside the
# faster pipeline of the start-up work; the path before the merged reads measured ~0.95 and ~2.2
# respectively. A much faster pipeline moves the ratio up: then revisit the bound.
MAX_CPU_RATIO = 1.5


@pytest.mark.perf
async def test_the_platform_costs_less_cpu_than_the_answer_it_stores(app) -> None:  # type: ignore[no-untyped-def]
    import statistics
    import time

    from datapilot.brains import run
    from datapilot.core.context import ChatMessage as Earlier

    store, settings = app.state.store, app.state.settings
    with store.session(write=True) as session:
        tenant = Tenant(user_id=Users(session).create("cpu").id)
        chat = Chats(session, tenant).create(ChatIn())
    conversation = Conversation(store, tenant, settings)
    questions = [QUESTION, "Microsoft's volatility in 2020"]
    history: list[Earlier] = []
    ratios = []
    for n in range(9):
        question = questions[n % 2]
        started = time.thread_time()
        message = MessageIn(content=question, today=TODAY, stream=False)
        prepared = conversation.prepare(chat.id, message)
        platform = time.thread_time() - started
        assert prepared.turn is not None
        async for _event in prepared.turn.events():
            pass
        started = time.thread_time()
        conversation.finish(prepared)
        platform += time.thread_time() - started
        context = request_for_question(settings, history)
        started = time.thread_time()
        async for _event in run(question, context):
            pass
        bare = time.thread_time() - started
        history += [Earlier(role="human", content=question), Earlier(role="ai", content="…")]
        if n:  # the first of each is a warm-up
            ratios.append(platform / bare)
    assert statistics.median(ratios) < MAX_CPU_RATIO, ratios


def request_for_question(settings, history):  # type: ignore[no-untyped-def]
    from datapilot.assistants.service import request_for

    request = request_for(settings)
    question = request.question.model_copy(update={"history": list(history)})
    return type(request)(
        question=question, settings=request.settings, data=request.data, registry=request.registry
    )
