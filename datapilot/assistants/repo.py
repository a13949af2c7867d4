"""Repositories of assistants, chats, messages, scene prompts and usage, scoped to one tenant.

Every query names the tenant's rows (`owner_id`, or `guest_id` for a guest), so a row of
another tenant is simply not found: reads, updates and deletes of it fail exactly like those of
an id that does not exist (a 404 that leaks nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy import (
    ColumnElement,
    Executable,
    Table,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.orm import Session

from datapilot.assistants.errors import Forbidden, NotFound, PlatformError
from datapilot.assistants.models import (
    AssistantIn,
    AssistantInfo,
    AssistantPatch,
    ChatIn,
    ChatInfo,
    ChatPatch,
    MessageInfo,
    ScenePromptIn,
    ScenePromptInfo,
    Tenant,
    ToolCallRecord,
    UsageReport,
    UsageTotals,
)
from datapilot.core.messages import Role
from datapilot.store.models import (
    ApiKey,
    Assistant,
    AssistantTool,
    Chat,
    ChatMessage,
    ScenePrompt,
    UsageEntry,
    User,
    utcnow,
)
from datapilot.store.models import Tool as ToolRow


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


R = TypeVar("R", bound=_Identified)
PYTHON_TOOL = "python"  # the interpreter's tool: its binding carries the auto-run policy
LOCAL_USER = "owner"  # the user of a server without keys (the first key's user, too)


# The assistant fields its `python` binding's config holds, by config key.
PYTHON_POLICY = {"auto_run": "interpreter_auto_run", "guests": "interpreter_guests"}


def python_policy(config: Mapping[str, Any] | None) -> dict[str, bool]:
    """The run policy held by an assistant's `python` binding (all off without one)."""
    return {field: bool((config or {}).get(key)) for key, field in PYTHON_POLICY.items()}


def bound_refusal(tenant: Tenant, what: str) -> Forbidden:
    return Forbidden(
        f"this API key is bound to the assistant {tenant.assistant_id!r} and may not use "
        f"{what}; use that assistant, or a key that is not bound to one"
    )


def first_user(session: Session) -> str | None:
    """The id of the store's first user (the local user), or None before there is one."""
    return session.scalar(select(User.id).order_by(User.created_at).limit(1))


def local_user(session: Session) -> str:
    """The id of the user a keyless (loopback) server acts for, created on first use."""
    found = first_user(session)
    if found is not None:
        return found
    user = User(name=LOCAL_USER)
    session.add(user)
    session.flush()
    return user.id


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


def owned(column_owner: Any, column_guest: Any, tenant: Tenant) -> ColumnElement[bool]:
    if tenant.user_id is not None:
        return column_owner == tenant.user_id
    return (column_guest == tenant.guest_id) & column_owner.is_(None)


class Assistants:
    def __init__(self, session: Session, tenant: Tenant) -> None:
        self.session = session
        self.tenant = tenant

    def mine(self) -> ColumnElement[bool]:
        """The tenant's assistants: a user's own; a guest's, the public ones."""
        if self.tenant.user_id is None:  # a guest owns no assistant, and sees public ones
            return Assistant.public.is_(True)
        return Assistant.owner_id == self.tenant.user_id

    def _row(self, ref: str) -> Assistant:
        ref = ref.strip()
        row = self.session.scalar(
            select(Assistant).where(self.mine(), or_(Assistant.id == ref, Assistant.name == ref))
        )
        return self.reachable(ref, row)

    def reachable(self, ref: str, row: R | None) -> R:
        """`row` (an assistant's columns as attributes) if this tenant may use it; else raise."""
        if row is None:
            raise NotFound(f"no assistant {ref!r}; list yours with GET /api/v1/assistants")
        if self.tenant.assistant_id is not None and row.id != self.tenant.assistant_id:
            raise bound_refusal(self.tenant, f"the assistant {ref!r}")
        return row

    def _user(self) -> str:
        if self.tenant.user_id is None:
            raise PlatformError("guests cannot create or change assistants")
        return self.tenant.user_id

    def create(self, body: AssistantIn, tool_ids: Mapping[str, str]) -> AssistantInfo:
        owner = self._user()
        if self.tenant.assistant_id is not None:
            raise bound_refusal(self.tenant, "new assistants")
        name = self._free_name(owner, body.name)
        fields = body.model_dump(exclude={"tools", *PYTHON_POLICY.values()})
        fields["library_id"] = self._library(owner, body.library_id)
        row = Assistant(owner_id=owner, **{**fields, "name": name})
        self.session.add(row)
        self.session.flush()
        self._bind(row, body.tools, tool_ids)
        self._set_python_policy(row, body.model_dump(include=set(PYTHON_POLICY.values())))
        return self._info(row)

    def list(self) -> list[AssistantInfo]:
        query = select(Assistant).where(self.mine())
        if self.tenant.assistant_id is not None:
            query = query.where(Assistant.id == self.tenant.assistant_id)
        rows = self.session.scalars(query.order_by(Assistant.name))
        return [self._info(row) for row in rows]

    def get(self, ref: str) -> AssistantInfo:
        """The assistant and its tools' names in one query (read on every chat message)."""
        ref = ref.strip()
        found = self.session.execute(
            select(Assistant, ToolRow.name, AssistantTool.config)
            .outerjoin(AssistantTool, AssistantTool.assistant_id == Assistant.id)
            .outerjoin(ToolRow, ToolRow.id == AssistantTool.tool_id)
            .where(self.mine(), or_(Assistant.id == ref, Assistant.name == ref))
            .order_by(Assistant.id, ToolRow.name)
        ).all()
        row = self.reachable(ref, found[0][0] if found else None)
        mine = [(name, config) for assistant, name, config in found if assistant is row and name]
        # The python tool's binding holds the assistant's run policy (see `_set_python_policy`).
        python = next((config for name, config in mine if name == PYTHON_TOOL), None)
        update = {"tools": [name for name, _ in mine], **python_policy(python)}
        return AssistantInfo.model_validate(row).model_copy(update=update)

    def names(self) -> dict[str, str]:
        """The id and name of each assistant `list` shows, in one query (no tools)."""
        query = select(Assistant.id, Assistant.name).where(self.mine())
        if self.tenant.assistant_id is not None:
            query = query.where(Assistant.id == self.tenant.assistant_id)
        return {row.id: row.name for row in self.session.execute(query)}

    def update(self, ref: str, patch: AssistantPatch, tool_ids: Mapping[str, str]) -> AssistantInfo:
        self._user()
        row = self._row(ref)
        changes = patch.model_dump(exclude_unset=True, exclude={"tools", *PYTHON_POLICY.values()})
        if "name" in changes:  # checked here: the unique index would fail the whole request
            changes["name"] = self._free_name(row.owner_id, changes["name"], row.id)
        if "library_id" in changes:
            changes["library_id"] = self._library(row.owner_id, patch.library_id)
        if self.tenant.assistant_id is not None:
            self._no_widening(row, patch, changes)
        for name, value in changes.items():
            setattr(row, name, value)
        link = self._python_link(row.id)
        policy = python_policy(link.config if link is not None else None)
        if patch.tools is not None:
            self._bind(row, patch.tools, tool_ids)
        asked = patch.model_dump(include=set(PYTHON_POLICY.values()), exclude_none=True)
        policy |= asked
        # Kept across a change of tools while `python` stays; gone with it.
        if self._python_link(row.id) is None and not any(asked.values()):
            policy = dict.fromkeys(policy, False)
        self._set_python_policy(row, policy)
        self.session.flush()
        return self._info(row)

    def _no_widening(
        self, row: Assistant, patch: AssistantPatch, changes: Mapping[str, Any]
    ) -> None:
        """Refuse a bound key's change that widens its assistant: it reaches its assistant's
        own objects only, so it may not bind the owner's other libraries or tools, let code run
        unasked, or open the assistant to guests. Keeping or narrowing what it has is fine."""
        now = self._info(row)
        widened = []
        if changes.get("library_id") not in (None, now.library_id):
            widened.append("library_id (another library of the owner)")
        added = sorted(set(patch.tools or ()) - set(now.tools))
        if added:
            widened.append(f"tools (adds {', '.join(added)})")
        if changes.get("public") and not now.public:
            widened.append("public (opens it to guests)")
        # The owner's memories are the user's, across assistants: turning them on widens too.
        if changes.get("disable_memory") is False and now.disable_memory:
            widened.append("disable_memory (turns the owner's memories on)")
        if changes.get("enable_memory_for_api") and not now.enable_memory_for_api:
            widened.append("enable_memory_for_api")
        for field in PYTHON_POLICY.values():
            if getattr(patch, field) and not getattr(now, field):
                widened.append(field)
        if widened:
            raise Forbidden(
                f"this API key is bound to the assistant {self.tenant.assistant_id!r} and may "
                f"not widen what it reaches: {'; '.join(widened)}. A bound key may keep or "
                "narrow the assistant's library, tools, interpreter policy, memory and "
                "publicity; its owner widens them with a key that is not bound to an assistant"
            )

    def delete(self, ref: str) -> None:
        """Delete the assistant, revoking every key bound to it: the store would otherwise
        unbind them (SET NULL), turning a key confined to one assistant into one for all."""
        self._user()
        row = self._row(ref)
        self.session.execute(
            update(ApiKey)
            .where(ApiKey.assistant_id == row.id, ApiKey.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
        self.session.delete(row)
        self.session.flush()

    def add_tokens(self, assistant_id: str, prompt: int, completion: int) -> None:
        row = self.session.get(Assistant, assistant_id)
        if row is not None:
            row.prompt_tokens += prompt
            row.completion_tokens += completion
            row.total_tokens += prompt + completion

    def _free_name(self, owner: str, name: str, renamed: str | None = None) -> str:
        """`name` stripped, if no other assistant of `owner` (than `renamed`) has it."""
        name = name.strip()
        if not name:
            raise PlatformError("an assistant's name cannot be blank")
        taken = self.session.scalar(
            select(Assistant.id).where(Assistant.owner_id == owner, Assistant.name == name)
        )
        if taken is not None and taken != renamed:
            raise PlatformError(f"you have an assistant named {name!r} already; pick another name")
        return name

    def _library(self, owner: str, ref: str | None) -> str | None:
        """The id of the caller's library `ref` (an id or a name)."""
        if ref is None:
            return None
        from datapilot.knowledge.library import LibraryNotFound, library_id_of

        try:
            return library_id_of(self.session, owner, ref)
        except LibraryNotFound as error:
            raise NotFound(str(error)) from None

    def _bind(self, row: Assistant, names: Sequence[str], tool_ids: Mapping[str, str]) -> None:
        unknown = [name for name in names if name not in tool_ids]
        if unknown:
            raise PlatformError(
                f"unknown tool(s) {', '.join(unknown)}; choose from {', '.join(sorted(tool_ids))}"
            )
        self.session.execute(delete(AssistantTool).where(AssistantTool.assistant_id == row.id))
        for name in dict.fromkeys(names):
            self.session.add(
                AssistantTool(assistant_id=row.id, tool_id=tool_ids[name], owner_id=row.owner_id)
            )
        self.session.flush()

    def _python_link(self, assistant_id: str) -> AssistantTool | None:
        """The assistant's binding of the `python` tool, whose config holds its run policy."""
        return self.session.scalar(
            select(AssistantTool)
            .join(ToolRow, AssistantTool.tool_id == ToolRow.id)
            .where(AssistantTool.assistant_id == assistant_id, ToolRow.name == PYTHON_TOOL)
        )

    def _set_python_policy(self, row: Assistant, policy: Mapping[str, bool]) -> None:
        """Store the run policy (`PYTHON_POLICY` fields) on the `python` binding."""
        link = self._python_link(row.id)
        if link is None:
            if any(policy.values()):
                on = ", ".join(name for name, value in policy.items() if value)
                raise PlatformError(f"{on} applies to the `python` tool; add it to `tools` first")
            return
        values = {key: bool(policy.get(field)) for key, field in PYTHON_POLICY.items()}
        link.config = {**(link.config or {}), **values}  # a new dict: tracked change
        self.session.flush()

    def _info(self, row: Assistant) -> AssistantInfo:
        names = self.session.scalars(
            select(ToolRow.name)
            .join(AssistantTool, AssistantTool.tool_id == ToolRow.id)
            .where(AssistantTool.assistant_id == row.id)
            .order_by(ToolRow.name)
        )
        info = AssistantInfo.model_validate(row)
        link = self._python_link(row.id)
        update = {"tools": list(names), **python_policy(link.config if link else None)}
        return info.model_copy(update=update)


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


class ScenePrompts:
    def __init__(self, session: Session, tenant: Tenant) -> None:
        self.session = session
        self.tenant = tenant

    def _user(self) -> str:
        if self.tenant.user_id is None:
            raise PlatformError("guests have no scene prompts")
        return self.tenant.user_id

    def create(self, body: ScenePromptIn) -> ScenePromptInfo:
        owner = self._user()
        if body.assistant_id is not None:  # by id or name; stored by id
            assistant = Assistants(self.session, self.tenant).get(body.assistant_id)
            body = body.model_copy(update={"assistant_id": assistant.id})
        row = ScenePrompt(owner_id=owner, **body.model_dump())
        self.session.add(row)
        self.session.flush()
        return ScenePromptInfo.model_validate(row)

    def list(self, assistant_id: str | None = None) -> list[ScenePromptInfo]:
        # The columns, not ORM objects: read on every chat message with an assistant.
        columns = [getattr(ScenePrompt, name) for name in ScenePromptInfo.model_fields]
        query = select(*columns).where(ScenePrompt.owner_id == self._user())
        if assistant_id is not None:
            query = query.where(ScenePrompt.assistant_id == assistant_id)
        rows = self.session.execute(query.order_by(ScenePrompt.label))
        return [ScenePromptInfo.model_validate(row) for row in rows]

    def delete(self, prompt_id: str) -> None:
        row = self.session.scalar(
            select(ScenePrompt).where(
                ScenePrompt.id == prompt_id, ScenePrompt.owner_id == self._user()
            )
        )
        if row is None:
            raise NotFound(f"no scene prompt {prompt_id!r}")
        self.session.delete(row)
        self.session.flush()


class Usage:
    def __init__(self, session: Session, tenant: Tenant) -> None:
        self.session = session
        self.tenant = tenant

    def record(
        self,
        *,
        model: str,
        prompt_tokens: int,
        completion_tokens: int,
        assistant_id: str | None = None,
        chat_id: str | None = None,
        message_id: int | None = None,
    ) -> None:
        self.session.add(
            UsageEntry(
                owner_id=self.tenant.user_id,
                guest_id=self.tenant.guest_id,
                api_key_id=self.tenant.key_id,
                assistant_id=assistant_id,
                chat_id=chat_id,
                message_id=message_id,
                model=model,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                total_tokens=prompt_tokens + completion_tokens,
            )
        )
        if assistant_id is not None:
            Assistants(self.session, self.tenant).add_tokens(
                assistant_id, prompt_tokens, completion_tokens
            )
        self.session.flush()

    def report(self) -> UsageReport:
        mine = owned(UsageEntry.owner_id, UsageEntry.guest_id, self.tenant)
        sums = (
            func.coalesce(func.sum(UsageEntry.prompt_tokens), 0),
            func.coalesce(func.sum(UsageEntry.completion_tokens), 0),
            func.coalesce(func.sum(UsageEntry.total_tokens), 0),
            func.count(UsageEntry.id),
        )

        def totals(row: Any) -> UsageTotals:
            return UsageTotals(
                prompt_tokens=row[0], completion_tokens=row[1], total_tokens=row[2], calls=row[3]
            )

        total = totals(self.session.execute(select(*sums).where(mine)).one())
        per_assistant = self.session.execute(
            select(UsageEntry.assistant_id, *sums).where(mine).group_by(UsageEntry.assistant_id)
        )
        per_key = self.session.execute(
            select(UsageEntry.api_key_id, *sums).where(mine).group_by(UsageEntry.api_key_id)
        )
        return UsageReport(
            total=total,
            by_assistant={str(row[0] or "none"): totals(row[1:]) for row in per_assistant},
            by_key={str(row[0] or "none"): totals(row[1:]) for row in per_key},
        )
