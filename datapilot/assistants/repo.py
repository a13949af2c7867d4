"""Repositories of assistants, scene prompts and usage, scoped to one tenant (chats and their
messages: `conversations`).

Every query names the tenant's rows (`owner_id`, or `guest_id` for a guest), so a row of
another tenant is simply not found: reads, updates and deletes of it fail exactly like those of
an id that does not exist (a 404 that leaks nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from sqlalchemy import (
    ColumnElement,
    delete,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from datapilot.assistants.errors import Forbidden, NotFound, PlatformError
from datapilot.assistants.models import (
    AssistantIn,
    AssistantInfo,
    AssistantPatch,
    ScenePromptIn,
    ScenePromptInfo,
    Tenant,
    UsageReport,
    UsageTotals,
)
from datapilot.store.models import (
    ApiKey,
    Assistant,
    AssistantTool,
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
