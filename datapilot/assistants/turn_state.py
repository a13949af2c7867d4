"""What one assistant turn runs with (`TurnSetup`) and leaves to store (`TurnResult`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from datapilot.assistants.compression import Block, ContextRecord
from datapilot.assistants.context import ContextInputs, SummaryUpdate
from datapilot.assistants.memory import MemoryInfo, MemoryOp
from datapilot.assistants.models import ToolCallRecord
from datapilot.assistants.normalise import HistoryMessage, Prompts
from datapilot.core.answer import Answer
from datapilot.core.messages import Role
from datapilot.core.model_messages import ToolCall
from datapilot.core.outputs import Output
from datapilot.core.quotes import Citation
from datapilot.engine.context import EventSource, RequestContext
from datapilot.model_client import LLMConfig
from datapilot.model_client.function import ToolModel
from datapilot.tools import Tool, ToolResult

MAX_ROUNDS = 5


class TurnMessage(BaseModel):
    """A message the turn produced, to be stored in the chat in this order (as the store's
    `StoredMessageIn`, with the assistant that wrote it)."""

    role: Role
    content: str = ""
    tool_call: ToolCallRecord | None = None
    tool_call_id: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class TurnResult(BaseModel):
    text: str = ""
    outputs: list[Output] = Field(default_factory=list)
    messages: list[TurnMessage] = Field(default_factory=list)
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    client_calls: list[ToolCall] = Field(
        default_factory=list, description="Calls of the client's own tools, for it to run."
    )
    tool_results: list[ToolResult] = Field(default_factory=list)
    pending: list[ToolCallRecord] = Field(
        default_factory=list, description="Calls waiting for the user's go-ahead."
    )
    answer: Answer | None = None
    finish_reason: str | None = Field(
        default=None, description="The last model call's: `length` when a client's limit cut it."
    )
    context: ContextRecord | None = Field(
        default=None, description="What the prompt held and what was left out of it."
    )
    blocks: list[Block] = Field(default_factory=list)
    summary: SummaryUpdate | None = None
    memory_ops: list[MemoryOp] = Field(default_factory=list)
    memory_shown: list[MemoryInfo] = Field(default_factory=list)


@dataclass
class TurnSetup:
    """Everything one turn runs with."""

    request: RequestContext
    history: list[HistoryMessage]
    prompts: Prompts = field(default_factory=Prompts)
    assistant_id: str | None = None
    names: dict[str, str] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict)
    client_tools: list[dict[str, Any]] = field(default_factory=list)
    llm: LLMConfig | None = None
    temperature: float | None = None
    max_rounds: int = MAX_ROUNDS
    tool_timeout_s: float = 60.0
    # Calls the user confirmed, run before the model goes on.
    resume: list[ToolCallRecord] = field(default_factory=list)
    # False where nobody can answer a confirmation (the stateless OpenAI and OpenBB faces): a
    # call that needs one does not run, and the model hears why instead.
    can_ask: bool = True
    context: ContextInputs | None = None
    citations: list[Citation] = field(default_factory=list)  # the knowledge passages given
    offline_source: EventSource | None = None  # answers offline instead of the data brain
    # The model to call in place of `llm`'s endpoint (tests: `FunctionModel`).
    model: ToolModel | None = None
    # A client's own request fields for the model (OpenAI face: stop, seed, tool_choice…) and
    # its token limit per call (a reply cut there is the answer, with finish_reason length).
    options: dict[str, Any] = field(default_factory=dict)
    max_tokens: int | None = None
    # Why this chat cannot make watches (English, Chinese): a guest's, or a bound key's; a
    # message asking for one is answered with it. None where the chat can (or is no chat).
    no_watches: tuple[str, str] | None = None
