"""The platform's own cost per chat message: a bounded number of store statements (they are
round trips on PostgreSQL), and chat transactions that do not wait for the disk flush."""

from __future__ import annotations

import pytest
from platform_cases.support import QUESTION, TODAY, app_for, client_of, platform_settings
from sqlalchemy import event, text

# Per message: the keyless door's two lookups (the tests cache nothing); then the chat, the
# assistants' names, the assistant and its tools, the message's INSERT, the chat's touch and
# the history; then the chat (a new transaction) and one INSERT of the turn's messages.
# Transaction plumbing (BEGIN, SET LOCAL) is not counted.
# Changed in the open (11 → 14): a turn now also reads the user's memories and the assistant's
# scene prompts, and records what its prompt held (the turn context) with the reply.
MAX_STATEMENTS = 14
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
                assert per_message <= MAX_STATEMENTS, statements[before:]
        finally:
            event.remove(engine, "before_cursor_execute", count)


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
