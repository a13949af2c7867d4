"""From a Workspace query to the pipeline's input: the question and its `QuestionContext`.

The question is the last human message; earlier human/ai text is the history. Tables come from
explicit `context` items and from tool results that arrived after the question (fresh widget data).
A tool result's `extra_state` carries the state saved when the widget data was requested.
"""

from __future__ import annotations

import base64
import binascii
from datetime import date, datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from openbb_ai.models import (
    ClientCommandResult,
    ClientFunctionCallError,
    DataContent,
    DataFileReferences,
    LlmClientFunctionCallResultMessage,
    LlmClientMessage,
    RawContext,
    RawObjectDataFormat,
    RoleEnum,
    SingleDataContent,
    SpreadsheetDataFormat,
    Undefined,
    Widget,
)
from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.context import ChatMessage, ClientTable, QuestionContext, WidgetInfo
from datapilot.data.client_data import parse_client_data
from datapilot.data.documents import DocumentSource
from datapilot.server.openbb.agent import MODEL_OPTION, OFFLINE_OPTION
from datapilot.server.openbb.documents import content_document, is_document, reference_document
from datapilot.server.openbb.request import WorkspaceQuery
from datapilot.settings import BrainChoice, Settings

# Our own keys inside `extra_state`; the Workspace adds keys of its own beside them.
STATE_KEY = "datapilot"


class QueryInputError(ValueError):
    """A payload that validates against the schema but cannot be answered (e.g. no question)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class ReceivedWidget(BaseModel):
    """A widget whose data arrived with this request, and the arguments it was fetched with."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    widget: Widget
    input_args: dict[str, Any] = Field(default_factory=dict)


class PreparedQuery(BaseModel):
    """Everything the OpenBB renderer needs besides the pipeline's events."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    question: str
    context: QuestionContext
    widgets: dict[str, Widget] = Field(default_factory=dict, description="By uuid.")
    received: list[ReceivedWidget] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="Problems with client data.")
    documents: list[DocumentSource] = Field(
        default_factory=list, description="PDFs and text files to answer from."
    )
    legacy: bool = False
    turn: int = Field(default=1, description="How many questions the conversation has asked.")


def prepare_query(
    query: WorkspaceQuery, settings: Settings, owner: str | None = None
) -> PreparedQuery:
    """Build the question and context (its data with the imports of the user `owner`); raise
    `QueryInputError` when there is no question."""
    messages = query.messages
    last_human = _question_index(messages)
    last_message = messages[last_human]
    assert isinstance(last_message, LlmClientMessage)  # what _question_index looks for
    question = last_message.content
    if not isinstance(question, str) or not question.strip():
        raise QueryInputError(f"messages.{last_human}.content", "The question is empty.")

    widgets = _dashboard_widgets(query)
    tabs = _widget_tabs(query)
    by_uuid = {str(widget.uuid): widget for widget, _ in widgets}
    tables: list[ClientTable] = []
    notes: list[str] = []
    documents: list[DocumentSource] = []
    for item in query.context or []:
        tables.extend(_context_tables(item))
        for index, content in enumerate(item.data.items):
            name = item.name if index == 0 else f"{item.name}_{index + 1}"
            document, note = content_document(content, name, None)
            documents.extend([document] if document else [])
            notes.extend([note] if note else [])

    received: list[ReceivedWidget] = []
    resume_state: dict[str, Any] | None = None
    for message in messages[last_human + 1 :]:
        if not isinstance(message, LlmClientFunctionCallResultMessage):
            continue
        new_tables, new_received, new_notes, new_documents = _tool_tables(message, by_uuid)
        tables.extend(new_tables)
        documents.extend(new_documents)
        received.extend(new_received)
        notes.extend(new_notes)
        saved = message.extra_state.get(STATE_KEY)
        if isinstance(saved, dict) and isinstance(saved.get("resume_state"), dict):
            resume_state = saved["resume_state"]

    brain, model = _brain_choice(query.workspace_options, settings)
    context = QuestionContext(
        today=query.today or settings.today or _today_in(query.timezone),
        history=_history(messages[:last_human]),
        tables=tables,
        widgets=[_widget_info(widget, group, tabs) for widget, group in widgets],
        resume_state=resume_state,
        brain=brain,
        offline=settings.offline or bool(query.workspace_options.get(OFFLINE_OPTION)),
        llm_api_key=query.api_keys.openai_api_key if query.api_keys else None,
        llm_model=model,
        data_owner=owner,
    )
    return PreparedQuery(
        question=question.strip(),
        context=context,
        widgets=by_uuid,
        received=received,
        notes=notes,
        documents=documents,
        legacy=query.legacy_widgets,
        turn=sum(1 for m in _requests(messages) if m),
    )


def widget_input_args(widget: Widget) -> dict[str, Any]:
    """The arguments to fetch a widget with: the current values, else the values it last ran
    with (`executed_value`), else the defaults."""
    args: dict[str, Any] = {}
    for param in widget.params:
        value = param.current_value
        if value is None:
            value = param.executed_value
        if value is None and param.default_value is not Undefined.UNDEFINED:
            value = param.default_value
        if value is not None:
            args[param.name] = value
    return args


def _texts(messages: list[Any]) -> list[tuple[int, LlmClientMessage]]:
    """The conversation's text messages (function calls and their results left out)."""
    return [
        (index, message)
        for index, message in enumerate(messages)
        if isinstance(message, LlmClientMessage)
        and message.role in (RoleEnum.human, RoleEnum.ai)
        and isinstance(message.content, str)
    ]


def _requests(messages: list[Any]) -> list[bool]:
    """For each text message, whether it asks something: a human's message, or a message another
    agent (OpenBB Copilot) delegated to this one — an `ai` message with an `agent_id` that is
    the last message or is answered by the next `ai` message."""
    texts = [message for _, message in _texts(messages)]
    asks = []
    for position, message in enumerate(texts):
        if message.role == RoleEnum.human:
            asks.append(True)
            continue
        following = texts[position + 1] if position + 1 < len(texts) else None
        delegated = bool(message.agent_id) and (following is None or following.role == RoleEnum.ai)
        asks.append(delegated)
    return asks


def _question_index(messages: list[Any]) -> int:
    """The message to answer: the last human message, or a later request delegated by another
    agent, answered as if the user had asked it in that agent's words."""
    texts = _texts(messages)
    for (index, _), asks in zip(reversed(texts), reversed(_requests(messages)), strict=True):
        if asks:
            return index
    raise QueryInputError("messages", "No human message: send the question as a human message.")


def _history(messages: list[Any]) -> list[ChatMessage]:
    history = []
    for (_, message), asks in zip(_texts(messages), _requests(messages), strict=True):
        assert isinstance(message.content, str)  # _texts keeps text messages only
        if message.content.strip():
            role: Literal["human", "ai"] = "human" if asks else "ai"
            history.append(ChatMessage(role=role, content=message.content))
    return history


def _dashboard_widgets(query: WorkspaceQuery) -> list[tuple[Widget, str]]:
    """Every widget the request lists, with its group: primary, secondary or extra."""
    if query.widgets is None:
        return []
    return [
        *((widget, "primary") for widget in query.widgets.primary),
        *((widget, "secondary") for widget in query.widgets.secondary),
        *((widget, "extra") for widget in query.widgets.extra),
    ]


def _widget_info(widget: Widget, group: str, tabs: dict[str, str]) -> WidgetInfo:
    description = widget.description
    if str(widget.uuid) in tabs:
        # The dashboard's own layout helps find a widget: its tab is searched with it.
        description = f"{description} (tab: {tabs[str(widget.uuid)]})".strip()
    return WidgetInfo(
        uuid=str(widget.uuid),
        widget_id=widget.widget_id,
        name=widget.name,
        description=description,
        origin=widget.origin,
        params=widget_input_args(widget),
        primary=group == "primary",
        extra=group == "extra",
    )


def _widget_tabs(query: WorkspaceQuery) -> dict[str, str]:
    """Widget uuid → the name of the dashboard tab it is on (from `workspace_state`)."""
    state = query.workspace_state
    info = state.current_dashboard_info if state else None
    if info is None:
        return {}
    found = {}
    for tab in info.tabs or []:
        label = tab.tab_id if tab.tab_id != "__no_tab__" else info.name
        for widget in tab.widgets or []:
            found[widget.widget_uuid] = f"{label} — {widget.name}" if widget.name else label
    return found


def _context_tables(item: RawContext) -> list[ClientTable]:
    tables = []
    for index, content in enumerate(item.data.items):
        name = item.name if index == 0 else f"{item.name}_{index + 1}"
        tables.extend(_content_tables(content, name, item.description, "context")[0])
    return tables


def _tool_tables(
    message: LlmClientFunctionCallResultMessage, widgets: dict[str, Widget]
) -> tuple[list[ClientTable], list[ReceivedWidget], list[str], list[DocumentSource]]:
    sources = message.input_arguments.get("data_sources")
    if not isinstance(sources, list):
        # v1 clients fetch one widget per call, named by `widget_uuid`.
        sources = [message.input_arguments]
    tables: list[ClientTable] = []
    received: list[ReceivedWidget] = []
    notes: list[str] = []
    documents: list[DocumentSource] = []
    for index, result in enumerate(message.data):
        source = sources[index] if index < len(sources) and isinstance(sources[index], dict) else {}
        widget = _find_widget(source, widgets)
        name = widget.name if widget else str(source.get("id") or f"widget_{index + 1}")
        description = widget.description if widget else ""
        args = source.get("input_args")
        if not isinstance(args, dict):
            args = widget_input_args(widget) if widget else {}
        if widget is not None:
            received.append(ReceivedWidget(widget=widget, input_args=args))
        if isinstance(result, ClientFunctionCallError):
            notes.append(f"The widget {name!r} could not send its data: {result.content}")
        elif isinstance(result, ClientCommandResult):
            if result.status != "success":
                notes.append(f"The widget {name!r} reported: {result.message or result.status}")
        elif isinstance(result, DataFileReferences):
            for item in result.items:
                document = reference_document(item, str(widget.uuid) if widget else None)
                if document is not None:
                    documents.append(document)  # fetched later, through the SSRF-safe client
                    continue
                notes.append(
                    f"The widget {name!r} sent a file by link ({item.url}); "
                    "files are not downloaded, so its content was not read."
                )
        elif isinstance(result, DataContent):
            for position, content in enumerate(result.items):
                label = name if position == 0 else f"{name}_{position + 1}"
                document, note = content_document(
                    content, label, str(widget.uuid) if widget else None
                )
                if document is not None or note:
                    documents.extend([document] if document else [])
                    notes.extend([note] if note else [])
                    continue
                new_tables, note = _content_tables(content, label, description, "widget")
                for table in new_tables:
                    table.params = dict(args)  # what the data is of (symbol, country …)
                tables.extend(new_tables)
                if note:
                    notes.append(note)
    return tables, received, notes, documents


def _find_widget(source: dict[str, Any], widgets: dict[str, Widget]) -> Widget | None:
    uuid = source.get("widget_uuid")
    if uuid and str(uuid) in widgets:
        return widgets[str(uuid)]
    widget_id, origin = source.get("id"), source.get("origin")
    matches = [w for w in widgets.values() if widget_id and w.widget_id == widget_id]
    if len(matches) > 1 and origin:
        matches = [w for w in matches if w.origin == origin] or matches
    return matches[0] if matches else None


def _content_tables(
    content: SingleDataContent, name: str, description: str, source: str
) -> tuple[list[ClientTable], str | None]:
    data_format = content.data_format
    text = content.content
    if is_document(data_format):
        return [], None  # read as a document (see `documents`), not as a table
    if isinstance(data_format, SpreadsheetDataFormat):
        text = _maybe_base64(text)
    elif not isinstance(data_format, RawObjectDataFormat):  # a file: its data_type is not "object"
        kind = data_format.data_type
        return [], f"{name!r} is a {kind} file ({data_format.filename}); it was not read."
    return parse_client_data(text, name=name, description=description, source=source), None


def _maybe_base64(text: str) -> str:
    """Files may arrive base64-encoded; plain text stays as it is."""
    if "\n" in text.strip() or "," in text:
        return text
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return text


def _brain_choice(options: dict[str, Any], settings: Settings) -> tuple[BrainChoice, str | None]:
    model = options.get(MODEL_OPTION)
    if not isinstance(model, str) or model in ("", "auto"):
        return settings.brain, None
    if model == "offline":
        return "offline", None
    return "llm", model


def _today_in(timezone: str) -> date:
    try:
        return datetime.now(ZoneInfo(timezone)).date()
    except (ZoneInfoNotFoundError, ValueError):
        return date.today()
