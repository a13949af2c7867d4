"""Fitting a long chat into a model's prompt budget.

The last few exchanges go verbatim. Older exchanges become blocks (one human→assistant exchange
each, unique by the hash of their text); the blocks that match the question come back whole, and
the rest is a rolling summary (written by the model when one is configured, extractive
otherwise). If the prompt still exceeds the budget, retrieved blocks go first, then summary
lines, then the oldest verbatim exchanges, and last the tail of an oversized question. What was
summarised or dropped is recorded for the turn.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from datapilot.assistants.memory_infos import ContextRecord
from datapilot.assistants.normalise import HistoryMessage, Prompts, normalise
from datapilot.core.model_messages import to_openai
from datapilot.model_client.tokens import count_chat, count_tokens
from datapilot.retrieval import Index, Passage, tokenize

HUMAN_ROLES = ("human", "human_later", "human_hidden")
BLOCKS_RETRIEVED = 3
BLOCK_CHARS = 1200  # one block's text at most (a long tool result is cut)
SUMMARY_SHARE = 0.25  # of the budget, the summary's at most
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")


class Block(BaseModel):
    """One older exchange, as retrievable text."""

    digest: str
    text: str
    first_message_id: int | None = None
    last_message_id: int | None = None
    message_ids: list[int] = Field(default_factory=list)
    tokens: int = 0


class Compressed(BaseModel):
    history: list[HistoryMessage]
    prompts: Prompts
    blocks: list[Block] = Field(default_factory=list, description="Every older exchange's block.")
    aged: list[Block] = Field(default_factory=list, description="Blocks the summary covers.")
    record: ContextRecord


def exchanges(
    history: Sequence[HistoryMessage],
) -> tuple[list[HistoryMessage], list[list[HistoryMessage]]]:
    """The leading system messages, and the rest cut before each human message."""
    leading: list[HistoryMessage] = []
    groups: list[list[HistoryMessage]] = []
    for message in history:
        if not groups and message.role in ("system", "system_hidden"):
            leading.append(message)
        elif message.role in HUMAN_ROLES or not groups:
            groups.append([message])
        else:
            groups[-1].append(message)
    return leading, groups


def block_of(group: Sequence[HistoryMessage]) -> Block:
    lines = []
    for message in group:
        text = message.content.strip()
        if not text:
            continue
        who = "User" if message.role in HUMAN_ROLES else "Assistant"
        if message.role == "tool":
            who, text = "Tool result", text[:300]
        lines.append(f"{who}: {text}")
    text = "\n".join(lines)[:BLOCK_CHARS]
    ids = [m.id for m in group if m.id is not None]
    return Block(
        digest=hashlib.sha256(text.encode()).hexdigest(),
        text=text,
        first_message_id=ids[0] if ids else None,
        last_message_id=ids[-1] if ids else None,
        message_ids=ids,
        tokens=count_tokens(text),
    )


def unique_blocks(groups: Sequence[Sequence[HistoryMessage]]) -> list[Block]:
    """One block per exchange, a repeated exchange kept once (its latest occurrence)."""
    seen: dict[str, Block] = {}
    for group in groups:
        block = block_of(group)
        if block.text:
            seen.pop(block.digest, None)
            seen[block.digest] = block
    return list(seen.values())


def summary_lines(blocks: Sequence[Block]) -> list[tuple[str, Block]]:
    """Extractive summary: the first sentence of each user turn (what the user said matters
    more than the replies, which the tools can recompute), with the block it comes from."""
    lines: list[tuple[str, Block]] = []
    seen: set[str] = set()
    for block in blocks:
        first = block.text.split("\n", 1)[0]
        if not first.startswith("User: "):
            continue
        sentence = _SENTENCE.split(first[len("User: ") :].strip(), maxsplit=1)[0][:200]
        if sentence and sentence not in seen:
            seen.add(sentence)
            lines.append((sentence, block))
    return lines


def rank_lines(lines: Sequence[str]) -> list[int]:
    """Line positions, most informative first: lines whose words are rare in the chat (a
    planted figure or ticker) before lines repeating what many others say."""
    tokens = [set(tokenize(line)) for line in lines]
    frequency = Counter(token for words in tokens for token in words)
    total = max(len(lines), 1)

    def weight(i: int) -> float:
        return sum(math.log(1 + total / frequency[t]) for t in tokens[i]) / (1 + len(tokens[i]))

    return sorted(range(len(lines)), key=lambda i: (-weight(i), -i))


def fit_lines(lines: Sequence[str], limit: int) -> list[int]:
    """Positions of the most informative lines within `limit` tokens, in chat order."""
    kept: set[int] = set()
    used = 0
    for i in rank_lines(lines):
        cost = count_tokens(lines[i]) + 2
        if used + cost <= limit:
            kept.add(i)
            used += cost
    return sorted(kept)


def _render_summary(lines: Sequence[str], model_summary: str | None) -> str:
    parts = [model_summary.strip()] if model_summary and model_summary.strip() else []
    parts += [f"- {line}" for line in lines]
    return "\n".join(parts)


def compress(
    history: Sequence[HistoryMessage],
    prompts: Prompts,
    *,
    budget: int,
    recent: int = 4,
    query: str = "",
    extra_tokens: int = 0,
    model_summary: str | None = None,
    summarised_through: int = 0,
    assistant_id: str | None = None,
) -> Compressed:
    """The history and prompts to send so that the prompt (plus `extra_tokens`, e.g. the tool
    schemas) fits `budget`. `model_summary` covers the aged exchanges up to message id
    `summarised_through`; later aged exchanges are summarised extractively."""
    leading, groups = exchanges(history)
    full = count_chat(to_openai(normalise(history, prompts=prompts, assistant_id=assistant_id)))
    keep = min(len(groups), recent + 1)  # the exchange being answered, and `recent` before it
    older = groups[: len(groups) - keep]
    verbatim = groups[len(groups) - keep :]
    blocks = unique_blocks(older)
    index = Index.build([Passage(text=b.text, source=b.digest) for b in blocks])
    hits = index.search(query, BLOCKS_RETRIEVED) if query else []
    wanted = {hit.passage.source for hit in hits}
    retrieved = [b for b in blocks if b.digest in wanted]
    aged = [b for b in blocks if b.digest not in wanted]
    # The model's summary covers aged blocks up to `summarised_through`; newer ones go in lines.
    fresh = [b for b in aged if (b.last_message_id or 0) > summarised_through]
    covered = model_summary if model_summary and len(fresh) < len(aged) else None
    candidates = summary_lines(fresh if covered else aged)
    chosen = fit_lines([text for text, _ in candidates], int(budget * SUMMARY_SHARE))
    lines = [candidates[i][0] for i in chosen]
    line_blocks = [candidates[i][1] for i in chosen]
    dropped: list[int] = []
    clipped = False

    def assemble() -> tuple[list[HistoryMessage], Prompts, int]:
        sent = leading + [m for group in verbatim for m in group]
        with_context = prompts.model_copy(
            update={
                "summary": _render_summary(lines, covered),
                "blocks": [b.text for b in retrieved],
            }
        )
        messages = normalise(sent, prompts=with_context, assistant_id=assistant_id)
        return sent, with_context, count_chat(to_openai(messages)) + extra_tokens

    sent, final, tokens = assemble()
    while tokens > budget:
        if retrieved:
            retrieved.pop()
        elif lines:
            keep_lines = sorted(rank_lines(lines)[: len(lines) // 2])  # the more informative half
            lines = [lines[i] for i in keep_lines]
            line_blocks = [line_blocks[i] for i in keep_lines]
        elif len(verbatim) > 1:
            dropped += [m.id for m in verbatim.pop(0) if m.id is not None]
        elif covered:
            covered = None
        else:
            question = verbatim[-1][0]
            length = len(question.content)
            share = 1 - (tokens - budget) / max(count_tokens(question.content), 1)
            keep_chars = int(length * share) - 16  # a little under: token lengths vary
            if keep_chars <= 0:
                break  # nothing left to cut: the fixed prompts alone exceed the budget
            cut = question.content[:keep_chars] + " […]"
            verbatim[-1][0] = question.model_copy(update={"content": cut})
            clipped = True
        sent, final, tokens = assemble()
    kept_blocks = line_blocks + ([b for b in aged if b not in fresh] if covered else [])
    summarised = sorted(i for b in kept_blocks for i in b.message_ids)
    gone = [i for b in aged if b not in kept_blocks for i in b.message_ids]
    record = ContextRecord(
        budget=budget,
        prompt_tokens=tokens,
        full_tokens=full + extra_tokens,
        verbatim_ids=[m.id for m in sent if m.id is not None],
        retrieved_blocks=[b.digest for b in retrieved],
        summarised_ids=summarised,
        dropped_ids=sorted(dropped + gone),
        summary_by=("model" if covered else "extractive") if (lines or covered) else None,
        clipped_question=clipped,
    )
    return Compressed(history=sent, prompts=final, blocks=blocks, aged=aged, record=record)
