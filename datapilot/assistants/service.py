"""Chats against the store: store the user's message, set up the turn of the assistant that
answers, store what the turn produced and charge its tokens. Blocking store work runs in the
caller's worker thread (the routes use `anyio.to_thread`); the turn itself is async."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from datapilot.assistants.files import Files
from datapilot.assistants.models import AssistantInfo, ClientRole, MessageInfo, Tenant
from datapilot.assistants.normalise import HistoryMessage, Prompts
from datapilot.assistants.repo import Assistants, Chats, Messages, NewMessage, NotFound, Usage
from datapilot.assistants.runtime import Turn, TurnSetup
from datapilot.core.context import QuestionContext
from datapilot.engine.context import RequestContext
from datapilot.llm import resolve_config
from datapilot.settings import Settings
from datapilot.store import Store
from datapilot.store.models import Assistant as AssistantRow
from datapilot.tools import Tool, available_tools

ANSWERED_ROLES = ("human", "human_hidden")
_MENTION = re.compile(r"(?<![\w@])@([\w.\-]+)")


class MessageIn(BaseModel):
    """A message a client adds to a chat."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, max_length=20000)
    role: ClientRole = Field(
        default="human",
        description="human (answered), human_later (stored only), human_hidden (answered, not "
        "shown), system, system_hidden, assistant (stored only).",
    )
    assistant: str | None = Field(
        default=None,
        description="Who answers, by id or name (default: an @mention, else the chat's).",
    )
    today: date | None = Field(default=None, description="Resolve relative windows against it.")
    stream: bool = Field(default=True, description="Stream the reply as LMC chunks.")


def files_root(settings: Settings) -> Path:
    """Where chat files live: under the data dir, one file per content hash."""
    return settings.data_dir / "files"


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
    settings: Settings, *, today: date | None = None, model: str | None = None
) -> RequestContext:
    """The request context a turn and its tools run in."""
    question = QuestionContext(
        today=today or settings.effective_today(),
        brain=settings.brain,
        offline=settings.offline,
        llm_model=model,
    )
    return RequestContext.for_request(question, settings)


def bound_tools(request: RequestContext, names: list[str]) -> dict[str, Tool]:
    """The tools of `names` that exist now (their store rows were made when they were bound)."""
    tools = available_tools(request)
    return {name: tools[name] for name in names if name in tools}


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
        with self.store.session(write=True) as session:
            chat = Chats(session, self.tenant).get(chat_id)
            assistants = Assistants(session, self.tenant)
            names = assistants.names()
            ref = body.assistant or mentioned(body.content, names) or chat.assistant_id
            assistant: AssistantInfo | None = None
            if ref is not None:
                try:
                    assistant = assistants.get(ref)
                except NotFound:
                    if body.assistant:  # asked for by name: say so; a stale default is dropped
                        raise
            messages = Messages(session, self.tenant)
            human = messages.add(chat_id, body.role, body.content)
            Chats(session, self.tenant).touch(chat_id)
            if body.role not in ANSWERED_ROLES:
                return Prepared(chat_id, human, assistant, None)
            library_owner = (
                session.scalar(select(AssistantRow.owner_id).where(AssistantRow.id == assistant.id))
                if assistant is not None and assistant.library_id
                else None
            ) or ""
            history = Files(session, self.tenant, files_root(self.settings)).history(
                messages.list(chat_id)
            )
        # Outside the transaction: it holds the store's write lock on SQLite.
        request = request_for(
            self.settings, today=body.today, model=assistant.model if assistant else None
        )
        tool_names = list(assistant.tools) if assistant else ["ask_data"]
        tools = bound_tools(request, tool_names)
        setup = setup_turn(
            request,
            assistant,
            history,
            tools,
            chat_prompt=chat.prompt,
            names=names,
        )
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

    def finish(self, prepared: Prepared) -> list[MessageInfo]:
        """Store what the turn produced and charge its tokens; returns the stored messages."""
        turn = prepared.turn
        if turn is None:
            return []
        result = turn.result
        assistant_id = prepared.assistant.id if prepared.assistant else None
        knowledge = (
            [NewMessage(role="knowledge", content=prepared.knowledge, assistant_id=assistant_id)]
            if prepared.knowledge
            else []
        )
        with self.store.session(write=True) as session:
            stored = Messages(session, self.tenant).add_many(
                prepared.chat_id,
                knowledge
                + [
                    NewMessage(
                        role=new.role,
                        content=new.content,
                        assistant_id=assistant_id,
                        tool_call=new.tool_call,
                        tool_call_id=new.tool_call_id,
                        prompt_tokens=new.prompt_tokens,
                        completion_tokens=new.completion_tokens,
                    )
                    for new in result.messages
                ],
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
