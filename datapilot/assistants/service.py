"""Chats against the store: store the user's message, set up the turn of the assistant that
answers, store what the turn produced and charge its tokens. Blocking store work runs in the
caller's worker thread (the routes use `anyio.to_thread`); the turn itself is async."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from datapilot.assistants.confirm import confirmed, decline, declined, pending_calls
from datapilot.assistants.context import ContextInputs
from datapilot.assistants.context_store import context_write, keep, read_inputs
from datapilot.assistants.conversations import Chats, Messages, StoredMessageIn
from datapilot.assistants.files import Files, attached_tables, files_root
from datapilot.assistants.memory import explicit
from datapilot.assistants.memory_vectors import with_vectors
from datapilot.assistants.messages_in import ANSWERED_ROLES, MessageIn
from datapilot.assistants.models import AssistantInfo, MessageInfo, Tenant
from datapilot.assistants.normalise import HistoryMessage, Prompts
from datapilot.assistants.reads import (
    Answering,
    ChatRead,
    answering,
    chat_touch,
    read_assistants,
    read_chat,
)
from datapilot.assistants.repo import Assistants, NotFound, PlatformError, Usage
from datapilot.assistants.runtime import Turn
from datapilot.assistants.turn_state import TurnSetup
from datapilot.assistants.watch_tool import watch_refusal, with_watch_tool
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.engine.context import RequestContext
from datapilot.model_client import resolve_config
from datapilot.settings import Settings
from datapilot.store import Store
from datapilot.tools import Tool, available_tools

_MENTION = re.compile(r"(?<![\w@])@([\w.\-]+)")


def mentioned(text: str, names: dict[str, str]) -> str | None:
    """The id of the first assistant (of `names`, id → name) a message addresses as `@name`
    or `@id`."""
    by_ref = {name.lower(): id_ for id_, name in names.items()} | {id_: id_ for id_ in names}
    for match in _MENTION.finditer(text):
        found = by_ref.get(match.group(1).lower()) or by_ref.get(match.group(1))
        if found is not None:
            return found
    return None


def request_for(
    settings: Settings,
    *,
    today: date | None = None,
    model: str | None = None,
    owner: str | None = None,
    tables: list[ClientTable] | None = None,
) -> RequestContext:
    """The request context a turn and its tools run in; its data includes the imports of the
    user `owner` (the tenant's user: a guest reads everyone's data only), and `tables` are the
    client's (the spreadsheets attached to the chat)."""
    question = QuestionContext(
        today=today or settings.effective_today(),
        brain=settings.brain,
        offline=settings.offline,
        llm_model=model,
        data_owner=owner,
        tables=tables or [],
    )
    return RequestContext.for_request(question, settings)


def bound_tools(
    request: RequestContext,
    names: list[str],
    imported: dict[str, Tool] | None = None,
    builtin: dict[str, Tool] | None = None,
) -> dict[str, Tool]:
    """The tools of `names` that exist now (their store rows were made when they were bound):
    built-in ones (`builtin` when the caller listed them for this same request already), and
    the user's `imported` ones."""
    # Imported tools last: the request's registry also lists them as acquisition interfaces,
    # and the tool itself (with its confirmation) must be what a model calls.
    tools = {**(builtin or available_tools(request)), **(imported or {})}
    return {name: tools[name] for name in names if name in tools}


def with_run_policy(
    tools: dict[str, Tool], assistant: AssistantInfo | None, tenant: Tenant, settings: Settings
) -> dict[str, Tool]:
    """The `python` tool runs unasked only where the server, the caller's key AND the
    assistant all allow it (each can only narrow); otherwise every run is confirmed. A guest
    gets the tool only where the assistant lets guests run code (`interpreter_guests`)."""
    from datapilot.interpreter.policy import may_auto_run

    python = tools.get("python")
    guests_run = assistant is not None and assistant.interpreter_guests
    if python is not None and tenant.guest_id is not None and not guests_run:
        # A guest confirms runs of code on the owner's server only where the owner chose.
        return {name: tool for name, tool in tools.items() if name != "python"}
    if python is not None and hasattr(python, "auto_run"):
        allowed = assistant is not None and assistant.interpreter_auto_run
        python.auto_run = may_auto_run(settings.interpreter_auto_run, tenant.scopes, allowed)
    return tools


def with_imported_interfaces(request: RequestContext, imported: dict[str, Tool]) -> RequestContext:
    """The request whose plans may also fetch from the user's imported tools."""
    if not imported:
        return request
    from dataclasses import replace

    from datapilot.tools.acquisition import with_imported

    return replace(request, registry=with_imported(request.registry, imported.values()))


def tool_ids(session: Any, settings: Settings, tenant: Tenant | None = None) -> dict[str, str]:
    """Tool name → store id: the built-ins (recorded on first use), and the tools the tenant's
    user imported — the names an assistant of theirs may be bound to."""
    from sqlalchemy import select

    from datapilot.store.models import Tool as ToolRow
    from datapilot.tools import record_tools

    ids = record_tools(session, available_tools(request_for(settings)))
    if tenant is not None and tenant.user_id is not None:
        owned = session.execute(
            select(ToolRow.name, ToolRow.id).where(ToolRow.owner_id == tenant.user_id)
        )
        ids.update({name: id_ for name, id_ in owned})
    return ids


def imported_tools(
    session: Any, tenant: Tenant, settings: Settings, assistant: AssistantInfo | None = None
) -> dict[str, Tool]:
    """The imported tools a turn for `tenant` may call: a user's own; a guest of a public
    assistant gets its owner's that run without asking (not consequential, or trusted) — a
    guest cannot confirm an act on the owner's behalf, and the owner chose to bind them."""
    from datapilot.tools.sources import Sources

    if tenant.user_id is not None:
        return Sources(session, tenant.user_id, settings).tools()
    if assistant is None:
        return {}
    from datapilot.store.models import Assistant as AssistantRow

    row = session.get(AssistantRow, assistant.id)
    if row is None or not row.public:
        return {}
    sources = Sources(session, row.owner_id, settings)
    safe = {
        tool.name
        for source in sources.list()
        for tool in source.tools
        if tool.trusted or not tool.consequential
    }
    return {name: tool for name, tool in sources.tools().items() if name in safe}


def assistant_tools(
    store: Store,
    tenant: Tenant,
    settings: Settings,
    request: RequestContext,
    assistant: AssistantInfo | None,
) -> tuple[RequestContext, dict[str, Tool]]:
    """The tools the assistant is bound to, imported ones included, and the request whose plans
    may fetch from those: the same wherever the assistant runs (chats, the OpenAI-compatible
    API, its OpenBB agent). The store is read only when a bound tool is not a built-in."""
    names = list(assistant.tools) if assistant else ["ask_data"]
    imported: dict[str, Tool] = {}
    builtin = available_tools(request, names)
    if not all(name in builtin for name in names):
        with store.session() as session:
            imported = imported_tools(session, tenant, settings, assistant)
    request = with_imported_interfaces(request, imported)
    # Built-in tools only: reuse the ones just built instead of building them again.
    tools = bound_tools(request, names, imported, builtin if not imported else None)
    return request, with_run_policy(tools, assistant, tenant, settings)


def setup_turn(
    request: RequestContext,
    assistant: AssistantInfo | None,
    history: list[HistoryMessage],
    tools: dict[str, Tool],
    *,
    chat_prompt: str | None = None,
    names: dict[str, str] | None = None,
    client_tools: list[dict[str, Any]] | None = None,
) -> TurnSetup:
    settings = request.settings
    offline = settings.offline or request.question.offline
    return TurnSetup(
        request=request,
        history=history,
        prompts=Prompts(
            disable_default=assistant.disable_default_prompt if assistant else False,
            assistant=assistant.prompt if assistant else "",
            chat=chat_prompt,
        ),
        assistant_id=assistant.id if assistant else None,
        names=names or {},
        tools=tools,
        client_tools=client_tools or [],
        # Offline forbids every network access, a model endpoint's included.
        llm=None if offline else resolve_config(settings, request.question),
        temperature=assistant.temperature if assistant else None,
        tool_timeout_s=settings.call_timeout_s * 2,
    )


@dataclass
class Prepared:
    chat_id: str
    human: MessageInfo
    assistant: AssistantInfo | None
    turn: Turn | None  # None when the message is stored without a reply
    knowledge: str = ""  # the library passages given to this turn, stored before its reply


def with_knowledge(
    store: Store,
    settings: Settings,
    owner_id: str,
    library_id: str,
    history: list[HistoryMessage],
    question: str,
    setup: TurnSetup,
) -> str:
    """Retrieve the passages of the assistant's library that answer `question` into the turn:
    one `knowledge` message (the normaliser merges it into the system prompt; earlier turns'
    passages are left out, so the prompt holds this question's only), the citations, and the
    library as the offline answer. Returns the knowledge text ('' when nothing answers)."""
    from datapilot.knowledge.answering import (
        PASSAGES,
        knowledge_text,
        library_source,
        relevant,
        search_library,
    )

    setup.offline_source = library_source(store, owner_id, library_id, fallback=True)
    history[:] = [message for message in history if message.role != "knowledge"]
    result = search_library(store, owner_id, library_id, question, settings, PASSAGES)
    if not result.answered:
        return ""
    found = relevant(result.passages)
    text = knowledge_text(found)
    history.insert(len(history) - 1, HistoryMessage(role="knowledge", content=text))
    setup.history = history
    setup.citations = [passage.citation for passage in found]
    return text


class Conversation:
    """One tenant's chats in one store."""

    def __init__(self, store: Store, tenant: Tenant, settings: Settings) -> None:
        self.store = store
        self.tenant = tenant
        self.settings = settings

    def prepare(self, chat_id: str, body: MessageIn) -> Prepared:
        """Store the message; when it asks for a reply, set up the answering assistant's turn."""
        if body.command is not None:
            return self._command(chat_id, body)
        # The reads (the turn's inputs among them), then the message's write, each in its own
        # transaction: on SQLite a write transaction holds the store's write lock, and with the
        # reads and their Python work inside it, twenty concurrent chats queued behind one
        # another's.
        answered = body.role in ANSWERED_ROLES
        # A memory command ("remember …") is carried out with the message, in its transaction.
        command = answered and explicit(body.content) is not None
        with self.store.session() as session:
            # Two reads (see `reads`): the chat with its history, and the assistants with the
            # tools of those the message may be answered by.
            read = read_chat(session, self.tenant, chat_id, history=body.role.startswith("human"))
            chat, earlier = read.chat, read.history
            mentions = [match.group(1) for match in _MENTION.finditer(body.content)]
            refs = [body.assistant or "", chat.assistant_id or "", *mentions]
            found = read_assistants(session, self.tenant, refs)
            names = found.names
            ref = body.assistant or mentioned(body.content, names) or chat.assistant_id
            picked: Answering | None = None
            if ref is not None:
                try:
                    picked = answering(session, self.tenant, found, ref)
                except NotFound:
                    if body.assistant:  # asked for by name: say so; a stale default is dropped
                        raise
            # The turn's inputs are read here too, before the message is stored (it only adds
            # messages): one transaction fewer per message.
            if answered and not command:
                before = self._history(session, read.history or [])
                pending = [HistoryMessage(role=body.role, content=body.content)]
                inputs = self._inputs(session, body.content, read, before + pending, picked)
        assistant = picked.info if picked is not None else None
        # A call still waiting for confirmation is older than this message: declined, and
        # stored before it, so the model reads the call closed before the new question.
        new = declined(pending_calls(earlier or []))
        new.append(StoredMessageIn(role=body.role, content=body.content))
        with self.store.session(write=True) as session:
            messages = Messages(session, self.tenant)
            try:
                stored = messages.add_many(
                    chat_id, new, chat_checked=True, along=[chat_touch(chat_id)]
                )
            except IntegrityError as error:  # the chat's foreign key: deleted since the read
                raise NotFound(
                    f"the chat {chat_id!r} was deleted as the message arrived"
                ) from error
            human = stored[-1]
            if not answered:
                return Prepared(chat_id, human, assistant, None)
            if command:
                history = self._history(session, [*(read.history or []), *stored])
                inputs = self._inputs(session, body.content, read, history, picked)
        if not command:
            # What was stored now holds no file: only a human message and declined calls.
            history = before + [HistoryMessage.of(message) for message in stored]
        library_owner = picked.owner_id if picked is not None else ""
        # Outside the transaction: it holds the store's write lock on SQLite.
        with_vectors(self.store, self.tenant, self.settings, inputs, body.content)
        setup = self._setup(body, assistant, history, chat.prompt, names)
        setup.context = inputs
        knowledge = ""
        if assistant is not None and assistant.library_id:
            knowledge = with_knowledge(
                self.store,
                self.settings,
                library_owner,  # the assistant's owner: a guest of a public one reads it too
                assistant.library_id,
                history,
                body.content,
                setup,
            )
        return Prepared(chat_id, human, assistant, Turn(setup), knowledge)

    def _setup(
        self,
        body: MessageIn,
        assistant: AssistantInfo | None,
        history: list[HistoryMessage],
        chat_prompt: str | None,
        names: dict[str, str],
    ) -> TurnSetup:
        """The turn's setup: a request at the assistant's model, its tools, prompts and history."""
        request = request_for(
            self.settings,
            today=body.today,
            model=assistant.model if assistant else None,
            owner=self.tenant.user_id,
            tables=attached_tables(history),
        )
        request, tools = assistant_tools(self.store, self.tenant, self.settings, request, assistant)
        # Watches are made in a user's own chats, whatever the assistant's tools (see
        # `watch_tool`); a guest's or a bound key's chat says why not.
        tools = with_watch_tool(tools, self.store, self.tenant, self.settings, history)
        setup = setup_turn(request, assistant, history, tools, chat_prompt=chat_prompt, names=names)
        setup.no_watches = watch_refusal(self.tenant)
        return setup

    def _history(self, session: Session, listed: list[MessageInfo]) -> list[HistoryMessage]:
        """Stored messages as the turn reads them (a file message with its image)."""
        return Files(session, self.tenant, files_root(self.settings)).history(listed)

    def _inputs(
        self,
        session: Session,
        question: str,
        read: ChatRead,
        history: list[HistoryMessage],
        picked: Answering | None,
    ) -> ContextInputs:
        """The turn's context inputs (memories, scenes, the chat's summary); a memory command
        in `question` is carried out now (inside the message's write transaction)."""
        return read_inputs(
            session,
            self.tenant,
            self.settings,
            chat_id=read.chat.id,
            assistant=picked.info if picked is not None else None,
            question=question,
            history=history,
            has_memories=read.has_memories,
            has_scenes=picked is not None and picked.has_scenes,
        )

    def _command(self, chat_id: str, body: MessageIn) -> Prepared:
        """Run or cancel the chat's calls waiting for confirmation."""
        with self.store.session(write=True) as session:
            chat = Chats(session, self.tenant).get(chat_id)
            messages = Messages(session, self.tenant)
            listed = messages.list(chat_id)
            pending = pending_calls(listed)
            if not pending:
                raise PlatformError(
                    "nothing in this chat waits for confirmation; send a message instead"
                )
            Chats(session, self.tenant).touch(chat_id)
            if body.command == "cancel":
                stored = decline(messages, chat_id, pending)
                return Prepared(chat_id, stored[0], None, None)
            assistants = Assistants(session, self.tenant)
            assistant: AssistantInfo | None = None
            ref = pending[0].assistant_id or chat.assistant_id
            if ref is not None:
                try:
                    assistant = assistants.get(ref)
                except NotFound:
                    assistant = None
            names = assistants.names()
            history = Files(session, self.tenant, files_root(self.settings)).history(listed)
        setup = self._setup(body, assistant, history, chat.prompt, names)
        setup.resume = confirmed(pending, body.arguments)
        return Prepared(chat_id, pending[0], assistant, Turn(setup))

    def finish(self, prepared: Prepared) -> list[MessageInfo]:
        """Store what the turn produced and charge its tokens; returns the stored messages."""
        turn = prepared.turn
        if turn is None:
            return []
        result = turn.result
        assistant_id = prepared.assistant.id if prepared.assistant else None
        knowledge = (
            [
                StoredMessageIn(
                    role="knowledge", content=prepared.knowledge, assistant_id=assistant_id
                )
            ]
            if prepared.knowledge
            else []
        )
        replies = knowledge + [
            StoredMessageIn(
                role=new.role,
                content=new.content,
                assistant_id=assistant_id,
                tool_call=new.tool_call,
                tool_call_id=new.tool_call_id,
                prompt_tokens=new.prompt_tokens,
                completion_tokens=new.completion_tokens,
            )
            for new in result.messages
        ]
        with self.store.session(write=True) as session:
            try:
                # `prepare` read the chat as the tenant's: not read again.
                stored = Messages(session, self.tenant).add_many(
                    prepared.chat_id,
                    replies,
                    chat_checked=True,
                    along=context_write(prepared.chat_id, prepared.human.id, result.context),
                )
            except IntegrityError as error:  # the chat's foreign key: deleted during the turn
                raise NotFound(
                    f"the chat {prepared.chat_id!r} was deleted while it was answering"
                ) from error
            keep(
                session,
                self.tenant,
                chat_id=prepared.chat_id,
                message_id=prepared.human.id,
                result=result,
                assistant_id=assistant_id,
                memory=turn.setup.context is not None and turn.setup.context.memory,
            )
            if result.calls:
                charged = [m for m in stored if m.total_tokens]
                Usage(session, self.tenant).record(
                    model=result.model or "",
                    prompt_tokens=result.prompt_tokens,
                    completion_tokens=result.completion_tokens,
                    assistant_id=assistant_id,
                    chat_id=prepared.chat_id,
                    message_id=charged[-1].id if charged else None,
                )
        return stored
