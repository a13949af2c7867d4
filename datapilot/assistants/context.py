"""What a turn's prompt holds beyond the chat itself: the scene, the user's memories, and the
compressed history (summary and retrieved blocks) that fits the model's budget.

`ContextInputs` is read from the store before the turn; `build` runs at the start of the turn
(async, because the scene choice and the summary may call the model) and returns the history and
prompts to send with the record of what they hold; the store keeps that record afterwards.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from datapilot.assistants.compression import Block, Compressed, ContextRecord, compress
from datapilot.assistants.memory import Explicit, MemoryEventInfo, MemoryInfo, language_of
from datapilot.assistants.memory import prompt_section as memory_section
from datapilot.assistants.models import ScenePromptInfo
from datapilot.assistants.normalise import HistoryMessage, Prompts
from datapilot.assistants.scenes import SceneChoice, by_model, by_words
from datapilot.core.model_messages import SystemPrompt, UserPrompt
from datapilot.model_client.errors import LLMError
from datapilot.model_client.tokens import count_tokens

if TYPE_CHECKING:  # the client (and the OpenAI SDK) loads when a model is called
    from datapilot.model_client import LLMClient

log = logging.getLogger(__name__)
SUMMARY_BATCH = 4  # aged exchanges the model's summary may lag behind before it is rewritten
SUMMARY_PROMPT = (
    "Update the running summary of a conversation between a user and a finance data assistant. "
    "Keep every fact the user stated (figures, holdings, tickers, preferences, constraints, "
    "decisions) and drop small talk. Write at most 200 words, in the language the user wrote "
    "in, as short lines. Reply with the summary only."
)


@dataclass
class ContextInputs:
    """The store's part of a turn's context, read before the turn."""

    chat_id: str | None
    budget: int
    recent: int = 4
    memory: bool = False
    memories: list[MemoryInfo] = field(default_factory=list)
    command: Explicit | None = None
    command_events: list[MemoryEventInfo] = field(default_factory=list)
    scenes: list[ScenePromptInfo] = field(default_factory=list)
    summary: str | None = None
    summarised_through: int = 0


class SummaryUpdate(BaseModel):
    text: str
    through_message_id: int


class BuiltContext(BaseModel):
    history: list[HistoryMessage]
    prompts: Prompts
    record: ContextRecord
    blocks: list[Block] = Field(default_factory=list)
    summary: SummaryUpdate | None = None


def _last_texts(history: list[HistoryMessage], n: int = 3) -> list[str]:
    texts = [m.content for m in history if m.role in ("human", "human_hidden", "assistant")]
    return [t for t in texts if t.strip()][-n:]


async def choose_scene(
    inputs: ContextInputs, history: list[HistoryMessage], client: LLMClient | None
) -> SceneChoice:
    if not inputs.scenes:
        return SceneChoice()
    texts = _last_texts(history)
    if client is None:
        return SceneChoice(scene=by_words(inputs.scenes, texts), by="words")
    return await by_model(client, inputs.scenes, texts)


async def write_summary(client: LLMClient, previous: str | None, blocks: list[Block]) -> str | None:
    """The model's new rolling summary; None when the call fails (the extractive one stays)."""
    exchanges = "\n\n".join(block.text for block in blocks)
    body = f"Summary so far:\n{previous or '(none)'}\n\nNew exchanges:\n{exchanges}"
    try:
        chunks = [
            piece
            async for piece in client.stream_text(
                [SystemPrompt(text=SUMMARY_PROMPT), UserPrompt(content=body)],
                purpose="summary",
                max_tokens=400,
            )
        ]
    except LLMError as error:
        log.warning("the model could not summarise the older turns (%s); extractive instead", error)
        return None
    text = "".join(chunks).strip()
    return text or None


async def build(
    inputs: ContextInputs,
    history: list[HistoryMessage],
    prompts: Prompts,
    *,
    question: str,
    tool_schemas: list[dict[str, object]],
    client: LLMClient | None,
    assistant_id: str | None,
) -> BuiltContext:
    """The history and prompts a turn sends, within the budget, and what they hold."""
    choice = await choose_scene(inputs, history, client)
    language = language_of(question)
    prompts = prompts.model_copy(
        update={
            "scene": choice.scene.prompt if choice.scene else "",
            "memories": memory_section(inputs.memories, language) if inputs.memory else "",
            "language": language,
        }
    )
    extra = count_tokens(json.dumps(tool_schemas)) if tool_schemas else 0

    def squeeze(summary: str | None, through: int) -> Compressed:
        return compress(
            history,
            prompts,
            budget=inputs.budget,
            recent=inputs.recent,
            query=question,
            extra_tokens=extra,
            model_summary=summary,
            summarised_through=through,
            assistant_id=assistant_id,
        )

    compressed = squeeze(inputs.summary, inputs.summarised_through)
    update: SummaryUpdate | None = None
    fresh = [b for b in compressed.aged if (b.last_message_id or 0) > inputs.summarised_through]
    if client is not None and len(fresh) >= SUMMARY_BATCH:
        written = await write_summary(client, inputs.summary, fresh)
        if written:
            through = max(b.last_message_id or 0 for b in fresh)
            update = SummaryUpdate(text=written, through_message_id=through)
            compressed = squeeze(written, through)
    record = compressed.record.model_copy(
        update={
            "memory_ids": [m.id for m in inputs.memories] if inputs.memory else [],
            "scene_id": choice.scene.id if choice.scene else None,
            "scene_label": choice.scene.label if choice.scene else None,
            "scene_by": choice.by if inputs.scenes else None,
        }
    )
    return BuiltContext(
        history=compressed.history,
        prompts=compressed.prompts,
        record=record,
        blocks=compressed.blocks,
        summary=update,
    )
