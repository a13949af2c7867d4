"""Repositories of chats and their messages, scoped to one tenant (as `repo`'s are).

A chat of another tenant is not found, exactly like an id that does not exist. Messages are
written with Core SQL in one round trip per batch (a turn's messages, with its `AlongWrite`s).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any, cast

from sqlalchemy import Executable, Table, bindparam, insert, or_, select, true
from sqlalchemy.orm import Session

from datapilot.assistants.errors import NotFound, PlatformError
from datapilot.assistants.models import (
    ChatIn,
    ChatInfo,
    ChatPatch,
    MessageInfo,
    Tenant,
    ToolCallRecord,
)
from datapilot.assistants.repo import Assistants, bound_refusal, owned
from datapilot.core.messages import Role
from datapilot.store.models import Chat, ChatMessage, utcnow

_MESSAGES = cast(Table, ChatMessage.__table__)  # Core SQL on the hot path (see add_many)
# Built once: a statement built per call cost its construction and cache key every time.
_INSERT_MESSAGES = insert(_MESSAGES).returning(*_MESSAGES.c, sort_by_parameter_order=True)


@dataclass(frozen=True)
class AlongWrite:
    """A write whose result nobody reads, stored with a batch of messages (`add_many`).

    On PostgreSQL it rides on the messages' INSERT as a data-modifying CTE: one round trip
    instead of two, and under load each round trip waits for the interpreter lock behind the
    busy request threads. Elsewhere it runs as its own statement after the INSERT. `statement`
    is built once (a module constant); its bound parameters are named apart from the
    messages' columns (a prefix), since both travel in one parameter set.
    """

    statement: Executable
    params: Mapping[str, Any]


_ROW_COLUMNS = (
    "chat_id",
    "owner_id",
    "guest_id",
    "assistant_id",
    "role",
    "content",
    "tool_call",
    "tool_call_id",
    "file_id",
    "hidden",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "created_at",  # given: a default is not filled in for these prefixed parameters
)


@cache
def _insert_along(statements: tuple[Executable, ...]) -> Executable:
    """The messages' INSERT with `statements` as CTEs (built once per combination). Its
    parameters are prefixed (`m_`): SQLAlchemy adds a parameter named like a column of a CTE's
    table to that CTE's SET or VALUES (a chat's `owner_id` would be overwritten)."""
    values = {name: bindparam(f"m_{name}", type_=_MESSAGES.c[name].type) for name in _ROW_COLUMNS}
    ctes = [cast(Any, statement).cte(f"along_{n}") for n, statement in enumerate(statements)]
    return (
        insert(_MESSAGES)
        .values(values)
        .returning(*_MESSAGES.c, sort_by_parameter_order=True)
        .add_cte(*ctes)
    )


class Chats:
    def __init__(self, session: Session, tenant: Tenant) -> None:
        self.session = session
        self.tenant = tenant

    def _row(self, chat_id: str) -> Chat:
        # By primary key: a chat this transaction loaded already costs no round trip (the
        # session's identity map holds rows weakly, so the transaction keeps them here).
        loaded: dict[str, Chat] = self.session.info.setdefault("chats", {})
        row = loaded.get(chat_id) or self.session.get(Chat, chat_id)
        self.admit(chat_id, row)
        assert row is not None  # `admit` raised otherwise
        loaded[chat_id] = row
        return row

    def admit(self, chat_id: str, row: Any | None) -> None:
        """Raise unless `row` (a chat's columns as attributes, or None) is a chat this tenant
        may use now: theirs, not expired, and the bound key's assistant's."""
        if row is None or not self._owns(row):
            raise NotFound(f"no chat {chat_id!r}; list yours with GET /api/v1/chats")
        if row.expires_at is not None and row.expires_at <= utcnow():
            raise NotFound(f"the chat {chat_id!r} has expired; start a new one")
        if self.tenant.assistant_id is not None and row.assistant_id != self.tenant.assistant_id:
            raise bound_refusal(self.tenant, f"the chat {chat_id!r} (it is not that assistant's)")

    def _owns(self, row: Any) -> bool:
        if self.tenant.user_id is not None:
            return row.owner_id == self.tenant.user_id
        return row.owner_id is None and row.guest_id == self.tenant.guest_id

    def create(self, body: ChatIn, *, expires_in: timedelta | None = None) -> ChatInfo:
        if body.assistant_id is None and self.tenant.assistant_id is not None:
            body = body.model_copy(update={"assistant_id": self.tenant.assistant_id})
        if body.assistant_id is not None:  # reachable, by id or name; stored by id
            body = body.model_copy(update={"assistant_id": self._assistant(body.assistant_id)})
        row = Chat(
            owner_id=self.tenant.user_id,
            guest_id=self.tenant.guest_id,
            name=body.name,
            assistant_id=body.assistant_id,
            prompt=body.prompt,
            expires_at=utcnow() + expires_in if expires_in is not None else None,
        )
        self.session.add(row)
        self.session.flush()
        return ChatInfo.model_validate(row)

    def list(self) -> list[ChatInfo]:
        rows = self.session.scalars(
            select(Chat)
            .where(owned(Chat.owner_id, Chat.guest_id, self.tenant))
            .where(or_(Chat.expires_at.is_(None), Chat.expires_at > utcnow()))
            .where(
                Chat.assistant_id == self.tenant.assistant_id
                if self.tenant.assistant_id is not None
                else true()
            )
            .order_by(Chat.updated_at.desc())
        )
        return [ChatInfo.model_validate(row) for row in rows]

    def get(self, chat_id: str) -> ChatInfo:
        return ChatInfo.model_validate(self._row(chat_id))

    def update(self, chat_id: str, patch: ChatPatch) -> ChatInfo:
        row = self._row(chat_id)
        changes = patch.model_dump(exclude_unset=True)
        if "assistant_id" in changes and changes["assistant_id"] is None:
            if self.tenant.assistant_id is not None:  # its chats stay its assistant's
                raise bound_refusal(self.tenant, "a chat without its assistant")
        elif changes.get("assistant_id") is not None:  # null detaches; a ref must exist
            changes["assistant_id"] = self._assistant(changes["assistant_id"])
        for name, value in changes.items():
            setattr(row, name, value)
        self.session.flush()
        return ChatInfo.model_validate(row)

    def _assistant(self, ref: str) -> str:
        """The id of the assistant `ref` (id or name) this tenant may use; raises `NotFound`."""
        return Assistants(self.session, self.tenant).get(ref).id

    def touch(self, chat_id: str) -> None:
        self._row(chat_id).updated_at = utcnow()

    def delete(self, chat_id: str) -> None:
        self.session.delete(self._row(chat_id))
        self.session.info.get("chats", {}).pop(chat_id, None)
        self.session.flush()


@dataclass(frozen=True)
class StoredMessageIn:
    """A message to store in a chat (see `Messages.add` for the fields); a turn's own
    messages (`runtime.TurnMessage`) become these, with the assistant that wrote them."""

    role: Role
    content: str = ""
    assistant_id: str | None = None
    tool_call: ToolCallRecord | None = None
    tool_call_id: str | None = None
    file_id: str | None = None
    hidden: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Messages:
    def __init__(self, session: Session, tenant: Tenant) -> None:
        self.session = session
        self.tenant = tenant

    def add(
        self,
        chat_id: str,
        role: Role,
        content: str = "",
        *,
        assistant_id: str | None = None,
        tool_call: ToolCallRecord | None = None,
        tool_call_id: str | None = None,
        file_id: str | None = None,
        hidden: bool = False,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
    ) -> MessageInfo:
        new = StoredMessageIn(
            role=role,
            content=content,
            assistant_id=assistant_id,
            tool_call=tool_call,
            tool_call_id=tool_call_id,
            file_id=file_id,
            hidden=hidden,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
        return self.add_many(chat_id, [new])[0]

    def add_many(
        self,
        chat_id: str,
        messages: Sequence[StoredMessageIn],
        *,
        chat_checked: bool = False,
        along: Sequence[AlongWrite] = (),
    ) -> list[MessageInfo]:
        """Store messages in order with one round trip (an INSERT of many rows), and the
        `along` writes with them (see `AlongWrite`).

        `chat_checked`: the caller read the chat as the tenant's earlier (a turn's reply, stored
        after the turn): not read again; a chat deleted meanwhile fails on its foreign key.
        """
        if any(new.role == "system_override" for new in messages):
            raise PlatformError("a system_override message applies to one call and is not stored")
        if not chat_checked:
            Chats(self.session, self.tenant)._row(chat_id)  # the chat must be the tenant's
        if not messages:
            for write in along:
                self.session.execute(write.statement, dict(write.params))
            return []
        # Core SQL, not ORM objects: a chat message is written once and never changed here, and
        # the unit of work's bookkeeping was a good part of a message's CPU.
        rows = [
            {
                "chat_id": chat_id,
                "owner_id": self.tenant.user_id,
                "guest_id": self.tenant.guest_id,
                "assistant_id": new.assistant_id,
                "role": new.role,
                "content": new.content,
                "tool_call": new.tool_call.model_dump() if new.tool_call else None,
                "tool_call_id": new.tool_call_id or (new.tool_call.id if new.tool_call else None),
                "file_id": new.file_id,
                "hidden": new.hidden or new.role in ("human_hidden", "system_hidden"),
                "prompt_tokens": new.prompt_tokens,
                "completion_tokens": new.completion_tokens,
                "total_tokens": new.prompt_tokens + new.completion_tokens,
            }
            for new in messages
        ]
        dialect = self.session.get_bind().dialect
        # More rows than one INSERT holds would repeat the CTEs in each page's statement.
        ride = bool(along) and dialect.name == "postgresql"
        ride = ride and len(rows) <= dialect.insertmanyvalues_page_size
        statement: Executable = _INSERT_MESSAGES
        if ride:
            statement = _insert_along(tuple(write.statement for write in along))
            extra = {key: value for write in along for key, value in write.params.items()}
            extra["m_created_at"] = utcnow()
            rows = [{**{f"m_{key}": value for key, value in row.items()}, **extra} for row in rows]
        stored = [MessageInfo.model_validate(row) for row in self.session.execute(statement, rows)]
        if not ride:
            for write in along:
                self.session.execute(write.statement, dict(write.params))
        return stored

    def list(self, chat_id: str) -> list[MessageInfo]:
        Chats(self.session, self.tenant)._row(chat_id)
        table = _MESSAGES
        rows = self.session.execute(
            select(*table.c)
            .where(
                table.c.chat_id == chat_id,
                owned(table.c.owner_id, table.c.guest_id, self.tenant),
            )
            .order_by(table.c.id)
        )
        return [MessageInfo.model_validate(row) for row in rows]
