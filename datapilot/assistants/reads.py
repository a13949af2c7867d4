"""What one chat message reads before its turn, in two queries: the chat with its history, and
the tenant's assistants with the answering one's definition and tools.

A chat message is the platform's hot path. On PostgreSQL every statement is a network round
trip, and under concurrent users a request thread that waited on one must then win the
interpreter lock back from the threads running pipelines, so each statement costs far more than
its own time. The reads also say whether the user has any memories and whether the assistants
have scene prompts, so a turn skips reading what cannot be there. Core SQL: rows read once, never
changed through the ORM.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Select,
    Table,
    and_,
    bindparam,
    exists,
    false,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from datapilot.assistants.conversations import AlongWrite, Chats
from datapilot.assistants.models import AssistantInfo, ChatInfo, MessageInfo, Tenant
from datapilot.assistants.repo import PYTHON_POLICY, PYTHON_TOOL, Assistants, python_policy
from datapilot.store.models import (
    Assistant,
    AssistantTool,
    Chat,
    ChatMessage,
    Memory,
    ScenePrompt,
    utcnow,
)
from datapilot.store.models import Tool as ToolRow

_CHATS = cast(Table, Chat.__table__)
_MESSAGES = cast(Table, ChatMessage.__table__)
_ASSISTANTS = cast(Table, Assistant.__table__)
_CHAT_COLUMNS = (*ChatInfo.model_fields, "owner_id", "guest_id")
_ASSISTANT_COLUMNS = [
    name for name in AssistantInfo.model_fields if name not in ("tools", *PYTHON_POLICY.values())
]


@dataclass
class ChatRead:
    """The tenant's chat, its messages (None when not read) and whether the user has memories."""

    chat: ChatInfo
    history: list[MessageInfo] | None
    has_memories: bool


def _owner_of(owner: Any, guest: Any, user: bool) -> ColumnElement[bool]:
    """`repo.owned` with the tenant as bound parameters (`user_id` or `guest_id`)."""
    if user:
        return cast(ColumnElement[bool], owner == bindparam("user_id"))
    return (guest == bindparam("guest_id")) & owner.is_(None)


# The statements are built once per shape and run with bound parameters: building a SELECT and
# its cache key anew was a good part of a message's CPU.
@cache
def _chat_query(user: bool, history: bool) -> Select[Any]:
    chat_columns = [_CHATS.c[name].label(f"c_{name}") for name in _CHAT_COLUMNS]
    memories: ColumnElement[bool] = (
        exists().where(Memory.owner_id == bindparam("user_id")) if user else false()
    )
    query = select(*chat_columns, memories.label("c_has_memories")).where(
        _CHATS.c.id == bindparam("chat_id")
    )
    if not history:
        return query
    mine = _owner_of(_MESSAGES.c.owner_id, _MESSAGES.c.guest_id, user)
    return (
        query.add_columns(*(_MESSAGES.c[name] for name in MessageInfo.model_fields))
        .select_from(_CHATS.outerjoin(_MESSAGES, and_(_MESSAGES.c.chat_id == _CHATS.c.id, mine)))
        .order_by(_MESSAGES.c.id)
    )


def _tenant_params(tenant: Tenant) -> dict[str, Any]:
    if tenant.user_id is not None:
        return {"user_id": tenant.user_id}
    return {"guest_id": tenant.guest_id}


def read_chat(session: Session, tenant: Tenant, chat_id: str, *, history: bool) -> ChatRead:
    """The chat as `Chats.get` checks it (the tenant's, not expired, the bound key's), with its
    messages in order as `Messages.list` reads them when `history`, in one query."""
    query = _chat_query(tenant.user_id is not None, history)
    rows = session.execute(query, {"chat_id": chat_id, **_tenant_params(tenant)}).all()
    first = rows[0] if rows else None
    found = (
        {name: getattr(first, f"c_{name}") for name in _CHAT_COLUMNS} if first is not None else None
    )
    Chats(session, tenant).admit(chat_id, _Fields(found) if found is not None else None)
    assert found is not None and first is not None  # `admit` raised otherwise
    messages = (
        [MessageInfo.model_validate(row) for row in rows if row.id is not None] if history else None
    )
    return ChatRead(ChatInfo.model_validate(found), messages, bool(first.c_has_memories))


# Its parameters are named apart from the message's columns: it rides on their INSERT.
_TOUCH = (
    update(_CHATS)
    .where(_CHATS.c.id == bindparam("touch_chat_id"))
    .values(updated_at=bindparam("touch_now"))
)


def chat_touch(chat_id: str) -> AlongWrite:
    """Marking the chat as just used (the chat list's order): one UPDATE without loading it,
    stored with the message that used it."""
    return AlongWrite(_TOUCH, {"touch_chat_id": chat_id, "touch_now": utcnow()})


class _Fields:
    """A dict's items as attributes (what `Chats.admit` reads)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


@dataclass(frozen=True)
class _Id:
    id: str


@dataclass
class AssistantsRead:
    """The assistants a message may name (id → name, as `Assistants.names`), and the full
    definitions of those it could be answered by."""

    names: dict[str, str]
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Answering:
    """The assistant that answers, whose user owns it, and whether it has scene prompts."""

    info: AssistantInfo
    owner_id: str
    has_scenes: bool


@cache
def _assistants_query(user: bool) -> Select[Any]:
    wanted: BindParameter[str] = bindparam("wanted", expanding=True)
    joined = or_(
        _ASSISTANTS.c.id.in_(wanted),
        _ASSISTANTS.c.name.in_(wanted),
        func.lower(_ASSISTANTS.c.name).in_(bindparam("lowered", expanding=True)),
    )
    scenes: ColumnElement[bool] = (
        exists().where(
            ScenePrompt.owner_id == bindparam("user_id"),
            ScenePrompt.assistant_id == _ASSISTANTS.c.id,
        )
        if user
        else false()
    )
    # As `Assistants.mine`: a user's own; a guest's, the public ones.
    mine = (
        _ASSISTANTS.c.owner_id == bindparam("user_id") if user else _ASSISTANTS.c.public.is_(True)
    )
    return (
        select(
            *(_ASSISTANTS.c[name] for name in _ASSISTANT_COLUMNS),
            _ASSISTANTS.c.owner_id,
            joined.label("joined"),
            scenes.label("has_scenes"),
            ToolRow.name.label("tool_name"),
            AssistantTool.config.label("tool_config"),
        )
        .select_from(
            _ASSISTANTS.outerjoin(
                AssistantTool, and_(AssistantTool.assistant_id == _ASSISTANTS.c.id, joined)
            ).outerjoin(ToolRow, ToolRow.id == AssistantTool.tool_id)
        )
        .where(mine)
        .order_by(_ASSISTANTS.c.id, ToolRow.name)
    )


def read_assistants(session: Session, tenant: Tenant, refs: Iterable[str]) -> AssistantsRead:
    """The tenant's assistants (what `Assistants.names` lists) and, for those `refs` may name (an
    id, a name, a name in any case), their tools and bindings, in one query."""
    wanted = sorted({ref.strip() for ref in refs if ref and ref.strip()})
    params = {"wanted": wanted, "lowered": sorted({ref.lower() for ref in wanted})}
    query = _assistants_query(tenant.user_id is not None)
    read = AssistantsRead(names={})
    by_id: dict[str, dict[str, Any]] = {}
    for row in session.execute(query, {**params, **_tenant_params(tenant)}):
        if tenant.assistant_id is None or row.id == tenant.assistant_id:
            read.names[row.id] = row.name
        entry = by_id.get(row.id)
        if entry is None:
            entry = by_id[row.id] = {**row._asdict(), "tools": [], "policy": python_policy(None)}
            read.rows.append(entry)
        if row.tool_name:
            entry["tools"].append(row.tool_name)
            if row.tool_name == PYTHON_TOOL:
                entry["policy"] = python_policy(row.tool_config)
    return read


def answering(session: Session, tenant: Tenant, read: AssistantsRead, ref: str) -> Answering:
    """The assistant `ref` names, exactly as `Assistants.get` finds it (NotFound, or Forbidden
    for a key bound to another); its tools come from `read` unless the query could not tell it
    was wanted (a name whose case SQL folds differently), then from `Assistants.get`."""
    ref = ref.strip()
    entry = next((row for row in read.rows if ref in (row["id"], row["name"])), None)
    assistants = Assistants(session, tenant)
    assistants.reachable(ref, _Id(entry["id"]) if entry is not None else None)
    assert entry is not None  # `reachable` raised otherwise
    if not entry["joined"]:
        info = assistants.get(entry["id"])
    else:
        fields = {name: entry[name] for name in _ASSISTANT_COLUMNS}
        info = AssistantInfo.model_validate({**fields, "tools": entry["tools"], **entry["policy"]})
    return Answering(info, entry["owner_id"], bool(entry["has_scenes"]))
