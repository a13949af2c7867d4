"""Context compression: a long chat's prompt fits the budget, keeps recent turns verbatim,
retrieves the older exchange a question needs, summarises or drops the rest and says which."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import text as sql
from support.llm import LOOPBACK
from support.platform_app import app_for, client_of, platform_settings

from datapilot.assistants.compression import compress, unique_blocks
from datapilot.assistants.context import SUMMARY_PROMPT
from datapilot.assistants.normalise import HistoryMessage, Prompts, normalise
from datapilot.core.model_messages import to_openai
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.model_client.tokens import count_chat, count_tokens

PLANTED = "My target return for the pension portfolio is 7.25% a year."
FILLER = (
    "Compare the weekly closing prices of the usual large caps for week {i} and tell me "
    "whether anything unusual happened in the market that week, in a few sentences."
)
REPLY = "In week {i} prices moved within their usual range; nothing unusual stood out. " * 3


def chat(exchanges: int, planted_at: int = 2) -> list[HistoryMessage]:
    history: list[HistoryMessage] = []
    for i in range(exchanges):
        human = PLANTED if i == planted_at else FILLER.format(i=i)
        history.append(HistoryMessage(id=2 * i + 1, role="human", content=human))
        history.append(HistoryMessage(id=2 * i + 2, role="assistant", content=REPLY.format(i=i)))
    return history


def sent_tokens(history: list[HistoryMessage], prompts: Prompts) -> int:
    return count_chat(to_openai(normalise(history, prompts=prompts)))


def test_a_long_chat_fits_and_recalls_a_planted_fact() -> None:
    history = chat(200)
    history.append(
        HistoryMessage(id=1000, role="human", content="What target return did I set for pension?")
    )
    out = compress(history, Prompts(), budget=2000, recent=4, query=history[-1].content)
    record = out.record

    assert sent_tokens(out.history, out.prompts) <= 2000 == record.budget
    assert record.full_tokens > 5 * 2000  # the whole history would not have fitted
    system = to_openai(normalise(out.history, prompts=out.prompts))[0]["content"]
    assert "7.25%" in system  # the planted exchange was retrieved
    # The last four exchanges and the question go verbatim, in order.
    assert [m.id for m in out.history] == [*range(393, 401), 1000]
    every = {m.id for m in history}
    retrieved = {
        i for b in out.blocks if b.digest in record.retrieved_blocks for i in b.message_ids
    }
    accounted = set(record.verbatim_ids) | retrieved | set(record.summarised_ids)
    assert accounted | set(record.dropped_ids) == every
    assert not set(record.dropped_ids) & accounted
    assert record.summary_by == "extractive" and record.summarised_ids


def test_the_summary_keeps_rare_facts_when_nothing_is_retrieved() -> None:
    history = chat(120, planted_at=5)
    history.append(HistoryMessage(id=1000, role="human", content="Thanks, that is all."))
    out = compress(history, Prompts(), budget=1500, recent=2, query="")
    assert "7.25%" in out.prompts.summary
    assert sent_tokens(out.history, out.prompts) <= 1500
    assert out.record.dropped_ids  # not every filler line fits the summary's share


def test_repeated_exchanges_become_one_block() -> None:
    same = [
        HistoryMessage(
            id=i, role="human" if i % 2 else "assistant", content="ping" if i % 2 else "pong"
        )
        for i in range(1, 9)
    ]
    blocks = unique_blocks([same[i : i + 2] for i in range(0, 8, 2)])
    assert len(blocks) == 1 and blocks[0].message_ids == [7, 8]  # the latest occurrence


def test_an_oversized_question_is_clipped_to_fit() -> None:
    question = "Explain the following ledger line by line. " + "Ledger entry 12345.67 USD. " * 800
    history = [HistoryMessage(id=1, role="human", content=question)]
    out = compress(history, Prompts(), budget=1200, query=question)
    assert out.record.clipped_question
    assert sent_tokens(out.history, out.prompts) <= 1200
    assert out.history[-1].content.startswith("Explain the following ledger")


def test_a_short_chat_is_sent_whole() -> None:
    history = chat(3)
    out = compress(history, Prompts(), budget=8000, recent=4)
    assert [m.id for m in out.history] == [m.id for m in history]
    assert out.record.dropped_ids == [] and out.record.summary_by is None


# --- through the platform, with a scripted model ----------------------------------------------


def is_summary(request: ChatRequest) -> bool:
    """The rolling summary's request (every model turn streams now, so its prompt tells it)."""
    return request.messages[0].get("content") == SUMMARY_PROMPT


class Model:
    def __init__(self) -> None:
        self.turns: list[ChatRequest] = []
        self.summaries: list[ChatRequest] = []

    def __call__(self, request: ChatRequest) -> Reply:
        if request.response_format is not None:
            return Reply(content='{"events": []}')
        if is_summary(request):
            self.summaries.append(request)
            return Reply(content="The user set a 7.25% target return for the pension portfolio.")
        self.turns.append(request)
        found = "7.25%" if "7.25%" in request.prompt else "unknown"
        return Reply(content=f"Your target return: {found}.")


@LOOPBACK[0]
@LOOPBACK[1]
async def test_a_long_chat_through_the_platform_stays_in_budget(store_url: str) -> None:
    model = Model()
    with ScriptedEndpoint(model) as endpoint:
        settings = platform_settings(store_url, endpoint).model_copy(
            update={"chat_prompt_tokens": 1500, "chat_recent_turns": 2}
        )
        app = app_for(settings)
        async with client_of(app) as client:
            chat_id = (await client.post("/api/v1/chats", json={})).json()["id"]
            url = f"/api/v1/chats/{chat_id}/messages"
            for human in [PLANTED] + [FILLER.format(i=i) for i in range(40)]:
                for role, text in (("human_later", human), ("assistant", REPLY.format(i=0))):
                    stored = await client.post(url, json={"content": text, "role": role})
                    assert stored.status_code == 200
            body = (
                await client.post(
                    url, json={"content": "What target return did I set?", "stream": False}
                )
            ).json()
            human_id = body["message"]["id"]
            context = await client.get(f"/api/v1/chats/{chat_id}/messages/{human_id}/context")
            missing = await client.get(f"/api/v1/chats/{chat_id}/messages/1/context")
            other = await client.get(f"/api/v1/chats/nochat/messages/{human_id}/context")
        with app.state.store.session() as session:
            kept = session.execute(
                sql("SELECT digest, text FROM message_blocks WHERE chat_id = :chat"),
                {"chat": chat_id},
            ).all()

    # Every exchange older than the two kept verbatim is kept once as a block, the planted one
    # among them, and the blocks the prompt retrieved are among those kept.
    assert len(kept) == 41 - 2 == len({digest for digest, _ in kept})
    assert sum(PLANTED in block for _, block in kept) == 1
    assert set(context.json()["retrieved_blocks"]) <= {digest for digest, _ in kept}
    request = model.turns[-1]
    tools = count_tokens(json.dumps(request.tools)) if request.tools else 0
    assert count_chat(request.messages) + tools <= 1500
    assert body["replies"][-1]["content"] == "Your target return: 7.25%."
    record: dict[str, Any] = context.json()
    assert context.status_code == 200
    assert record["budget"] == 1500 and record["prompt_tokens"] <= 1500
    assert record["summary_by"] == "model" and len(model.summaries) == 1
    assert record["summarised_ids"] and record["full_tokens"] > 1500
    assert missing.status_code == 404 and other.status_code == 404


@pytest.mark.perf
def test_compressing_a_long_chat_again_costs_a_fraction_and_gives_the_same_prompt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chat compresses its history for every message: the blocks' tokens and counts are
    kept, so the next message's fitting is cheap, and nothing a caller does with the tokens it
    got changes what the next one gets. The cost is counted as texts tokenized, not seconds (a
    busy two-core machine makes a timing ratio a coin toss)."""
    import uuid

    from datapilot.model_client import tokens as counting
    from datapilot.retrieval import tokens as retrieval_tokens
    from datapilot.retrieval.tokens import tokenize

    work: list[str] = []

    def counted(module: Any, name: str) -> None:
        original = getattr(module, name)

        def wrapper(text: str) -> Any:
            work.append(text)
            return original(text)

        monkeypatch.setattr(module, name, wrapper)

    counted(counting, "_count")
    counted(retrieval_tokens, "_tokens")
    salt = uuid.uuid4().hex  # texts no earlier test has tokenized in this process
    history = [m.model_copy(update={"content": f"{m.content} {salt}"}) for m in chat(150)]
    question = "What target return did I set for pension?"
    history.append(HistoryMessage(id=1000, role="human", content=question))

    def fitted_with_work() -> tuple[int, Any]:
        work.clear()
        fitted = compress(history, Prompts(), budget=2000, recent=4, query=question)
        return len(work), fitted

    first, fitted = fitted_with_work()
    agains = [fitted_with_work() for _ in range(3)]
    assert all(refitted == fitted for _, refitted in agains)
    # The first fitting tokenizes every old message; a later one at most a few new texts.
    assert first >= 150
    assert max(took for took, _ in agains) <= first // 10
    tokens = tokenize("Apple revenue grew")
    tokens.append("changed")
    assert tokenize("Apple revenue grew") == ["appl", "revenu", "grew"]
    assert count_tokens("Apple revenue grew") == count_tokens("Apple revenue grew")
