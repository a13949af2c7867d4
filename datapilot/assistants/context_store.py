"""The store's side of a turn's context: reading it before the turn, keeping it after.

Before: the user's memory command carried out, the relevant memories, the assistant's scenes and
the chat's rolling summary. After: the record of what the prompt held (on the human message it
answered), new message blocks (one row per hash), the rewritten summary, the model's memory events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from sqlalchemy import Table, bindparam, insert, select
from sqlalchemy.orm import Session

from datapilot.assistants.compression import HUMAN_ROLES, ContextRecord
from datapilot.assistants.context import ContextInputs
from datapilot.assistants.conversations import AlongWrite, Chats
from datapilot.assistants.memory import Memories, MemoryEventInfo, explicit, memory_on
from datapilot.assistants.models import AssistantInfo, Tenant
from datapilot.assistants.normalise import HistoryMessage
from datapilot.assistants.repo import NotFound, ScenePrompts
from datapilot.settings import Settings
from datapilot.store.models import ChatMessage, ChatSummary, MessageBlock, TurnContext, utcnow

if TYPE_CHECKING:  # the engine's request context, which the stored context does not need
    from datapilot.assistants.turn_state import TurnResult

_CONTEXTS = cast(Table, TurnContext.__table__)
_BLOCKS = cast(Table, MessageBlock.__table__)
_SUMMARIES = cast(Table, ChatSummary.__table__)
# Core statements built once, for the reads and writes of every chat message.
_SUMMARY = select(_SUMMARIES.c.text, _SUMMARIES.c.through_message_id).where(
    _SUMMARIES.c.chat_id == bindparam("chat_id")
)
_KNOWN_BLOCKS = select(_BLOCKS.c.digest).where(
    _BLOCKS.c.chat_id == bindparam("chat_id"),
    _BLOCKS.c.digest.in_(bindparam("digests", expanding=True)),
)
_INSERT_BLOCK = insert(_BLOCKS)
# Built once (a hot path); its parameters are named apart from a message's columns: it rides on
# the INSERT of the turn's reply (see `AlongWrite`).
_INSERT_CONTEXT = insert(_CONTEXTS).values(
    {
        name: bindparam(f"context_{name}", type_=_CONTEXTS.c[name].type)
        for name in ("message_id", "chat_id", "scene_id", "scene_label", "record", "created_at")
    }
)


def context_write(chat_id: str, message_id: int, record: ContextRecord | None) -> list[AlongWrite]:
    """The record of what the turn's prompt held, to store with its reply (none: nothing)."""
    if record is None:
        return []
    params = {
        "context_message_id": message_id,
        "context_chat_id": chat_id,
        "context_scene_id": record.scene_id,
        "context_scene_label": record.scene_label,
        "context_record": record.model_dump(mode="json"),
        "context_created_at": utcnow(),
    }
    return [AlongWrite(_INSERT_CONTEXT, params)]


def read_inputs(
    session: Session,
    tenant: Tenant,
    settings: Settings,
    *,
    chat_id: str | None,
    assistant: AssistantInfo | None,
    question: str,
    history: list[HistoryMessage],
    api: bool = False,
    has_memories: bool = True,
    has_scenes: bool = True,
) -> ContextInputs:
    """A turn's context from the store; a memory command in `question` is carried out now, so
    the turn already sees its effect. `has_memories` / `has_scenes` False (the caller knows
    the user has none, the assistant none): those reads are skipped."""
    inputs = ContextInputs(
        chat_id=chat_id,
        budget=settings.chat_prompt_tokens,
        recent=settings.chat_recent_turns,
        memory=memory_on(assistant, tenant, api=api),
    )
    if inputs.memory:
        memories = Memories(session, tenant)
        command = explicit(question)
        if command is not None:
            inputs.command = command
            inputs.command_events = memories.obey(
                command, assistant_id=assistant.id if assistant else None, chat_id=chat_id
            )
        if has_memories or command is not None:  # a command may have just added one
            inputs.memories = memories.relevant(question)
    if assistant is not None and tenant.user_id is not None and has_scenes:
        inputs.scenes = ScenePrompts(session, tenant).list(assistant.id)
    # Only a chat longer than its verbatim turns can have aged into a summary: spare the query.
    humans = sum(1 for m in history if m.role in HUMAN_ROLES)
    long_enough = chat_id is not None and humans > inputs.recent + 1
    summary = session.execute(_SUMMARY, {"chat_id": chat_id}).first() if long_enough else None
    if summary is not None:
        inputs.summary, inputs.summarised_through = summary.text, summary.through_message_id
    return inputs


def keep(
    session: Session,
    tenant: Tenant,
    *,
    chat_id: str,
    message_id: int,
    result: TurnResult,
    assistant_id: str | None,
    memory: bool,
) -> list[MemoryEventInfo]:
    """Keep the turn's new blocks, summary and memory events (its context record goes with the
    reply: `context_write`); returns the memory events the model's facts caused."""
    digests = [b.digest for b in result.blocks]
    known: set[str] = set()
    if digests:
        known = set(session.scalars(_KNOWN_BLOCKS, {"chat_id": chat_id, "digests": digests}))
    new: list[dict[str, object]] = []
    for block in result.blocks:
        if block.digest not in known:
            known.add(block.digest)
            new.append(
                {
                    "chat_id": chat_id,
                    "digest": block.digest,
                    "first_message_id": block.first_message_id,
                    "last_message_id": block.last_message_id,
                    "text": block.text,
                    "tokens": block.tokens,
                    "created_at": utcnow(),
                }
            )
    if new:
        session.execute(_INSERT_BLOCK, new)
    if result.summary is not None:
        row = session.get(ChatSummary, chat_id) or ChatSummary(chat_id=chat_id)
        row.text = result.summary.text
        row.through_message_id = result.summary.through_message_id
        row.written_by = "model"
        session.add(row)
    session.flush()
    if not memory:
        return []
    return remember(session, tenant, result, assistant_id=assistant_id, chat_id=chat_id)


def remember(
    session: Session,
    tenant: Tenant,
    result: TurnResult,
    *,
    assistant_id: str | None,
    chat_id: str | None = None,
) -> list[MemoryEventInfo]:
    """Apply the memory events the model found in the turn."""
    if not result.memory_ops or tenant.user_id is None:
        return []
    return Memories(session, tenant).apply(
        result.memory_ops, result.memory_shown, assistant_id=assistant_id, chat_id=chat_id
    )


def context_of(session: Session, tenant: Tenant, chat_id: str, message_id: int) -> ContextRecord:
    """The record of the prompt that answered one human message of the tenant's chat."""
    Chats(session, tenant).get(chat_id)  # the chat must be the tenant's
    row = session.scalar(
        select(TurnContext)
        .join(ChatMessage, ChatMessage.id == TurnContext.message_id)
        .where(TurnContext.chat_id == chat_id, TurnContext.message_id == message_id)
    )
    if row is None:
        raise NotFound(
            f"no turn context for message {message_id} of chat {chat_id!r}; only human messages "
            "that were answered have one"
        )
    return ContextRecord.model_validate(row.record)
