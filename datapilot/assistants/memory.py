"""What a user asked the assistants to remember, scoped to that user.

Offline, explicit statements ("remember …", "记住…", "forget …", "忘记…") add and delete
memories. With a model, the facts of each turn are extracted and reconciled against the user's
memories as ADD / UPDATE / DELETE events (mem0's scheme), written in the user's language. Every
change is an event kept for audit after the memory itself is gone. Relevant memories (BM25 over
the user's memories, fused with vectors when an embeddings endpoint is set — `memory_vectors` —
then the newest) go into the system prompt.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from datapilot.assistants.memory_infos import EventKind, MemoryEventInfo, MemoryInfo
from datapilot.assistants.models import AssistantInfo, Tenant
from datapilot.assistants.repo import NotFound, PlatformError
from datapilot.core.model_messages import ModelMessage, SystemPrompt, UserPrompt
from datapilot.knowledge.index import fuse
from datapilot.model_client.errors import LLMError
from datapilot.model_client.jsontext import NoJSONError, extract_json_object
from datapilot.retrieval import Index, Passage, tokenize
from datapilot.store.models import Memory, MemoryEvent

if TYPE_CHECKING:  # the client (and the OpenAI SDK) loads when a model is called
    from datapilot.model_client import LLMClient

log = logging.getLogger(__name__)

PROMPT_MEMORIES = 8  # memories put in one prompt at most
MAX_MEMORY_CHARS = 500
_CJK = re.compile(r"[\u3400-\u9fff]")
_TRAIL = " \t\r\n.。!！;；"
_REMEMBER = re.compile(
    r"^\s*(?:please\s+)?(?:remember|keep in mind|note)(?:\s+that)?\s*[:：,，]?\s+(?P<text>.+)$"
    r"|^\s*(?:请)?(?:记住|记一下|记得)(?:一下)?[:：,，\s]*(?P<zh>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_FORGET = re.compile(
    r"^\s*(?:please\s+)?forget(?:\s+(?:that|about))?\s*[:：,，]?\s+(?P<text>.+)$"
    r"|^\s*(?:请)?(?:忘记|忘掉|忘了|不要再?记)[:：,，\s]*(?P<zh>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_EVERYTHING = re.compile(
    r"^(?:everything|all(?: of it| memories| that you remember)?|所有|全部|一切)"
    r"(?:的?记忆|的?内容)?$",
    re.IGNORECASE,
)


class Explicit(BaseModel):
    """A message that is itself a memory command."""

    action: Literal["remember", "forget"]
    text: str
    everything: bool = False


class MemoryOp(BaseModel):
    """One reconciliation step a model proposed; `id` names an existing memory for UPDATE and
    DELETE (by its number in the list the model was shown)."""

    model_config = ConfigDict(extra="ignore")

    event: Literal["ADD", "UPDATE", "DELETE", "NONE"]
    id: int | None = None
    text: str = ""


def language_of(text: str) -> Literal["zh", "en"]:
    """Chinese when the text has any Han characters, else English."""
    return "zh" if _CJK.search(text) else "en"


def explicit(text: str) -> Explicit | None:
    """The memory command a message is, if it is one."""
    for action, pattern in (("forget", _FORGET), ("remember", _REMEMBER)):
        match = pattern.match(text.strip())
        if match:
            found = (match.group("text") or match.group("zh") or "").strip(_TRAIL)
            if not found:
                return None
            return Explicit(
                action=action,  # type: ignore[arg-type]
                text=found[:MAX_MEMORY_CHARS],
                everything=action == "forget" and bool(_EVERYTHING.match(found)),
            )
    return None


def memory_on(assistant: AssistantInfo | None, tenant: Tenant, *, api: bool = False) -> bool:
    """Whether a turn reads and writes memory: users only (a guest has none), not when the
    assistant disables it, and through the OpenAI-compatible API only when it enables that."""
    if tenant.user_id is None:
        return False
    if assistant is None:
        return not api
    if assistant.disable_memory:
        return False
    return assistant.enable_memory_for_api if api else True


def acknowledgement(command: Explicit, changed: list[MemoryEventInfo]) -> str:
    """What the assistant says to a memory command, in the user's language."""
    zh = language_of(command.text) == "zh"
    if command.action == "remember":
        if zh:
            return f"好的，我记住了：{command.text}"
        return f"Noted. I will remember: {command.text}"
    if not changed:
        if zh:
            return f"我的记忆里没有与“{command.text}”相符的内容。"
        return f"I had nothing in memory matching “{command.text}”."
    gone = "; ".join(event.text for event in changed)
    return f"好的，我已忘记：{gone}" if zh else f"Done. I forgot: {gone}"


def prompt_section(memories: list[MemoryInfo], language: str) -> str:
    """The system-prompt section listing memories, headed in the user's language."""
    if not memories:
        return ""
    lines = "\n".join(f"- {memory.text}" for memory in memories)
    if language == "zh":
        return f"关于这位用户，你记得以下内容（回答时请考虑）：\n{lines}"
    return f"What you remember about this user (take it into account):\n{lines}"


def choose(
    memories: list[MemoryInfo],
    query: str,
    k: int = PROMPT_MEMORIES,
    dense: list[tuple[int, float]] | None = None,
) -> list[MemoryInfo]:
    """Up to `k` memories for `query`: BM25's matches fused with `dense` ((position, cosine),
    best first) by reciprocal rank when vectors are there, then the newest others: a standing
    preference ("report in CNY") shares no word with most questions yet applies."""
    if len(memories) <= k:
        return memories
    index = Index.build([Passage(text=m.text, source=str(n)) for n, m in enumerate(memories)])
    bm25 = [(int(hit.passage.source), hit.score) for hit in index.search(query, k)]
    chosen = [memories[ranked.id] for ranked in fuse(bm25, dense or [])][:k]
    for memory in sorted(memories, key=lambda m: m.updated_at, reverse=True):
        if len(chosen) >= k:
            break
        if memory not in chosen:
            chosen.append(memory)
    return chosen


class Memories:
    """One user's memories and their events."""

    def __init__(self, session: Session, tenant: Tenant) -> None:
        if tenant.user_id is None:
            raise PlatformError("guests have no memory")
        self.session = session
        self.owner = tenant.user_id

    def all(self) -> list[MemoryInfo]:
        # The columns, not ORM objects: read on every chat message, never changed from here.
        columns = [getattr(Memory, name) for name in MemoryInfo.model_fields]
        rows = self.session.execute(
            select(*columns).where(Memory.owner_id == self.owner).order_by(Memory.created_at)
        )
        return [MemoryInfo.model_validate(row) for row in rows]

    def events(self) -> list[MemoryEventInfo]:
        rows = self.session.scalars(
            select(MemoryEvent).where(MemoryEvent.owner_id == self.owner).order_by(MemoryEvent.id)
        )
        return [MemoryEventInfo.model_validate(row) for row in rows]

    def _row(self, memory_id: str) -> Memory:
        row = self.session.scalar(
            select(Memory).where(Memory.id == memory_id, Memory.owner_id == self.owner)
        )
        if row is None:
            raise NotFound(f"no memory {memory_id!r}; list yours with GET /api/v1/memories")
        return row

    def _event(
        self,
        kind: EventKind,
        row: Memory,
        *,
        source: str,
        previous: str | None = None,
        chat_id: str | None = None,
        assistant_id: str | None = None,
    ) -> MemoryEventInfo:
        event = MemoryEvent(
            owner_id=self.owner,
            memory_id=row.id,
            event=kind,
            text=row.text,
            previous=previous,
            source=source,
            assistant_id=assistant_id,
            chat_id=chat_id,
        )
        self.session.add(event)
        self.session.flush()
        return MemoryEventInfo.model_validate(event)

    def add(
        self,
        text: str,
        *,
        source: str = "explicit",
        assistant_id: str | None = None,
        chat_id: str | None = None,
    ) -> MemoryEventInfo | None:
        """Remember `text`; None when the user already has exactly this memory."""
        text = text.strip()[:MAX_MEMORY_CHARS]
        if not text or any(m.text.casefold() == text.casefold() for m in self.all()):
            return None
        row = Memory(owner_id=self.owner, assistant_id=assistant_id, text=text)
        self.session.add(row)
        self.session.flush()
        return self._event("ADD", row, source=source, chat_id=chat_id, assistant_id=assistant_id)

    def update(
        self,
        memory_id: str,
        text: str,
        *,
        source: str = "model",
        assistant_id: str | None = None,
        chat_id: str | None = None,
    ) -> MemoryEventInfo | None:
        row = self._row(memory_id)
        text = text.strip()[:MAX_MEMORY_CHARS]
        if not text or text == row.text:
            return None
        previous, row.text = row.text, text
        row.embedding, row.dim = None, None  # the vector of the old text: made again when needed
        self.session.flush()
        return self._event(
            "UPDATE",
            row,
            source=source,
            previous=previous,
            chat_id=chat_id,
            assistant_id=assistant_id,
        )

    def delete(
        self,
        memory_id: str,
        *,
        source: str = "explicit",
        assistant_id: str | None = None,
        chat_id: str | None = None,
    ) -> MemoryEventInfo:
        row = self._row(memory_id)
        event = self._event(
            "DELETE", row, source=source, chat_id=chat_id, assistant_id=assistant_id
        )
        self.session.delete(row)
        self.session.flush()
        return event

    def delete_all(self, *, source: str = "explicit") -> list[MemoryEventInfo]:
        events = [self._event("DELETE", row, source=source) for row in self._rows()]
        self.session.execute(delete(Memory).where(Memory.owner_id == self.owner))
        self.session.flush()
        return events

    def _rows(self) -> list[Memory]:
        return list(self.session.scalars(select(Memory).where(Memory.owner_id == self.owner)))

    def relevant(self, query: str, k: int = PROMPT_MEMORIES) -> list[MemoryInfo]:
        """The memories that match `query` best (BM25), then the newest others, up to `k`."""
        return choose(self.all(), query, k)

    def matching(self, text: str) -> list[MemoryInfo]:
        """Memories a "forget …" names: those holding at least half of its words."""
        wanted = set(tokenize(text))
        if not wanted:
            return []
        return [m for m in self.all() if len(wanted & set(tokenize(m.text))) * 2 >= len(wanted)]

    def obey(
        self, command: Explicit, *, assistant_id: str | None, chat_id: str | None
    ) -> list[MemoryEventInfo]:
        """Carry out a memory command; the events it caused."""
        if command.action == "remember":
            added = self.add(command.text, assistant_id=assistant_id, chat_id=chat_id)
            return [added] if added else []
        if command.everything:
            return self.delete_all()
        return [
            self.delete(m.id, assistant_id=assistant_id, chat_id=chat_id)
            for m in self.matching(command.text)
        ]

    def apply(
        self,
        ops: list[MemoryOp],
        shown: list[MemoryInfo],
        *,
        assistant_id: str | None,
        chat_id: str | None,
    ) -> list[MemoryEventInfo]:
        """Apply a model's reconciliation; steps naming a memory it was not shown are skipped."""
        events: list[MemoryEventInfo] = []
        mine = {m.id for m in self.all()}
        for op in ops:
            target = shown[op.id - 1] if op.id and 0 < op.id <= len(shown) else None
            if target is not None and target.id not in mine:
                continue  # deleted meanwhile
            event: MemoryEventInfo | None = None
            if op.event == "ADD":
                event = self.add(
                    op.text, source="model", assistant_id=assistant_id, chat_id=chat_id
                )
            elif op.event == "UPDATE" and target is not None:
                event = self.update(target.id, op.text, assistant_id=assistant_id, chat_id=chat_id)
            elif op.event == "DELETE" and target is not None:
                event = self.delete(
                    target.id, source="model", assistant_id=assistant_id, chat_id=chat_id
                )
                mine.discard(target.id)
            if event is not None:
                events.append(event)
        return events


EXTRACT_PROMPT = """You keep a long-term memory of facts about one user: their holdings, \
preferences, constraints, goals and facts about them that matter in later conversations.
Read the latest exchange and the memories below (numbered). Reply with one JSON object \
{"events": [...]}; each event is one of
  {"event": "ADD", "text": "<a new fact>"}
  {"event": "UPDATE", "id": <number>, "text": "<the memory as it should now read>"}
  {"event": "DELETE", "id": <number>}
Add only lasting facts about the user (not questions, not market data, not what the assistant \
said); update a memory the exchange changes; delete one it contradicts or the user withdraws. \
Write each memory as a short statement in the language the user wrote in. \
No change: {"events": []}."""

EXTRACT_SCHEMA = {
    "type": "object",
    "properties": {
        "events": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "event": {"type": "string", "enum": ["ADD", "UPDATE", "DELETE", "NONE"]},
                    "id": {"type": "integer"},
                    "text": {"type": "string"},
                },
                "required": ["event"],
            },
        }
    },
    "required": ["events"],
}


def parse_ops(text: str) -> list[MemoryOp]:
    """The events of a model's reply; a malformed reply (no JSON, wrong shapes) changes
    nothing, and a malformed event among good ones is skipped alone."""
    try:
        body = extract_json_object(text)
    except (NoJSONError, ValueError):
        log.warning("memory extraction: the model's reply holds no JSON object; nothing changed")
        return []
    raw = body.get("events")
    if not isinstance(raw, list):
        return []
    ops = []
    for item in raw:
        try:
            op = MemoryOp.model_validate(item)
        except ValidationError:
            continue
        if op.event != "NONE":
            ops.append(op)
    return ops


async def extract(
    client: LLMClient, human: str, reply: str, shown: list[MemoryInfo]
) -> list[MemoryOp]:
    """Ask the model which memory events the exchange causes; [] when the call fails."""
    listed = "\n".join(f"{n}. {m.text}" for n, m in enumerate(shown, start=1)) or "(none yet)"
    exchange = json.dumps({"user": human, "assistant": reply}, ensure_ascii=False)
    messages: list[ModelMessage] = [
        SystemPrompt(text=EXTRACT_PROMPT),
        UserPrompt(content=f"Memories:\n{listed}\n\nLatest exchange:\n{exchange}"),
    ]
    try:
        answer = await client.complete_json(
            messages,
            schema=EXTRACT_SCHEMA,
            schema_name="memory_events",
            purpose="memory",
            max_tokens=600,
        )
    except LLMError as error:
        log.warning("memory extraction failed: %s", error)
        return []
    return parse_ops(answer.text)
