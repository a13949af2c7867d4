"""Memory retrieval with vectors when an embeddings endpoint is configured (both stores): a
memory that shares no word with the question, and is too old for the newest ones, reaches the
prompt through its vector; vectors are made once and again after an update."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import sqlalchemy as sa
from support.knowledge import ScriptedVectors
from support.llm import LOOPBACK
from support.platform_app import TODAY, app_for, client_of, key_for, platform_settings

from datapilot.assistants.memory import PROMPT_MEMORIES, Memories
from datapilot.assistants.models import Tenant
from datapilot.store import Users
from datapilot.store.models import Memory

pytestmark = LOOPBACK  # the scripted embeddings endpoint listens on loopback

MONEY = {"currency", "yuan", "cny", "dollars", "money"}  # one meaning, many words
TARGET = "Report amounts in yuan"
FILLERS = [f"I read the {word} newsletter" for word in "abcdefghijk"]  # newer, unrelated
QUESTION = "Which currency do you use for my numbers?"


def meaning(text: str) -> list[float]:
    """A vector where every word about money lands on the same dimension (what a real model
    does with synonyms), any other word on a hashed one."""
    vector = [0.0] * 16
    for word in re.findall(r"\w+", text.lower()):
        slot = 0 if word in MONEY else 1 + int(hashlib.md5(word.encode()).hexdigest(), 16) % 15
        vector[slot] += 1.0
    return vector


async def prompt_memories(settings: Any) -> tuple[list[str], dict[str, str], Any]:
    """Ask QUESTION in a chat of a user with the target and fillers; the texts of the memories
    the turn's prompt held, the user's memory texts by id, and the app."""
    app = app_for(settings)
    key = key_for(app.state.store, "alice")
    with app.state.store.session(write=True) as session:
        user = Users(session).by_name("alice")
        assert user is not None
        memories = Memories(session, Tenant(user_id=user.id))
        for text in [TARGET, *FILLERS]:
            memories.add(text)
    async with client_of(app, key) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        sent = await client.post(
            f"/api/v1/chats/{chat['id']}/messages",
            json={"content": QUESTION, "today": TODAY, "stream": False},
        )
        message_id = sent.json()["message"]["id"]
        record = (
            await client.get(f"/api/v1/chats/{chat['id']}/messages/{message_id}/context")
        ).json()
        listed = (await client.get("/api/v1/memories")).json()
    texts = {m["id"]: m["text"] for m in listed}
    return [texts[i] for i in record["memory_ids"]], texts, app


async def test_a_memory_reaches_the_prompt_by_its_vector(store_url: str, data: object) -> None:
    assert len(FILLERS) >= PROMPT_MEMORIES  # the newest fillers alone would fill the prompt
    words_only, _, _ = await prompt_memories(platform_settings(store_url))
    vectors = ScriptedVectors()
    vectors.vectorise = meaning
    with vectors.running():
        settings = platform_settings(store_url).model_copy(
            update={"embeddings_base_url": vectors.base_url, "embeddings_model": "meaning"}
        )
        fused, texts, app = await prompt_memories(settings)
        embedded = [body["input"] for where, body in vectors.requests]
        with app.state.store.session() as session:
            dims = {t: d for t, d in session.execute(sa.select(Memory.text, Memory.dim))}
            owner = session.scalar(sa.select(Memory.owner_id).limit(1))
            target_id = next(i for i, t in texts.items() if t == TARGET)
            Memories(session, Tenant(user_id=owner)).update(target_id, "Report amounts in CNY")
            cleared = session.scalar(sa.select(Memory.dim).where(Memory.id == target_id))
    assert TARGET not in words_only and len(words_only) == PROMPT_MEMORIES  # words miss it
    assert fused[0] == TARGET and len(fused) == PROMPT_MEMORIES  # the nearest by meaning
    # One call: the question and every memory still without a vector; then kept in the store.
    assert embedded == [[QUESTION, TARGET, *FILLERS]]
    assert dims == {text: 16 for text in [TARGET, *FILLERS]}
    assert cleared is None  # an updated memory's old vector is gone, made again when needed
