"""Context compression on a 300-turn chat with facts planted early and asked about late.

Three facts are planted in the first turns (a number, a preference, a ticker); the rest of the
chat is varied market small talk; the last turns ask for the facts. Memory is off, so only the
compression can carry them. Two runs:

- offline: the prompt each turn would send (`compress` on the stored history, no model) —
  recalled means the planted fact is in that prompt;
- scripted model: the whole platform (SQLite, the chat routes) against a scripted endpoint that
  answers from its prompt and writes the rolling summaries — recalled means the reply states it.

Prints prompt tokens per turn (median and max, compressed vs the full history) and recall.

    python bench/compression.py                    # budget 8000 (the default), 4 recent turns
    python bench/compression.py --budget 3000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import ClassVar

import httpx
from pydantic import SecretStr

from datapilot.assistants.compression import compress
from datapilot.assistants.normalise import HistoryMessage, Prompts, normalise
from datapilot.core.model_messages import to_openai
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.model_client.tokens import count_chat, count_tokens
from datapilot.server.app import create_app
from datapilot.settings import Settings

TURNS = 300
FACTS = {  # planted at turn → (statement, question asked late, the answer that must come back)
    2: (
        "For the record, my cost basis in the bond fund is 41.37 dollars per unit.",
        "What did I say my cost basis in the bond fund was?",
        "41.37",
    ),
    5: (
        "I prefer every figure reported in Swiss francs, please.",
        "Which currency did I say I prefer figures reported in?",
        "Swiss francs",
    ),
    9: (
        "The stock I am watching most closely this year is ASML.",
        "Which stock did I say I am watching most closely this year?",
        "ASML",
    ),
}
ASKED_AT = {TURNS - 9: 2, TURNS - 5: 5, TURNS - 1: 9}
TICKERS = ["AAPL", "MSFT", "NVDA", "JPM", "XOM", "KO", "PG", "AMZN", "GOOG", "META", "BAC", "WMT"]
TEMPLATES = [
    "How did {t} trade this week compared with the index?",
    "Is {t}'s volatility of {n}% high for a stock of its size?",
    "What would a {n}% move in {t} mean for a typical portfolio?",
    "Summarise the news flow around {t} in two sentences.",
    "Was {t}'s volume unusual on Tuesday?",
    "Chart {t} against its 50-day average, please.",
]
REPLY = "Here is a short answer about {t}: prices moved about {n}% and nothing unusual stood out."


def chat_script(seed: int = 7) -> list[str]:
    """The human side of the chat, turn by turn."""
    rng = random.Random(seed)
    humans = []
    for turn in range(TURNS):
        if turn in FACTS:
            humans.append(FACTS[turn][0])
        elif turn in ASKED_AT:
            humans.append(FACTS[ASKED_AT[turn]][1])
        else:
            template = rng.choice(TEMPLATES)
            humans.append(template.format(t=rng.choice(TICKERS), n=rng.randint(1, 40)))
    return humans


def reply_for(human: str) -> str:
    found = re.search(r"\b([A-Z]{2,5})\b", human)
    number = re.search(r"(\d+)%", human)
    return REPLY.format(
        t=found.group(1) if found else "the market", n=number.group(1) if number else 2
    )


def offline(budget: int, recent: int) -> dict[str, object]:
    humans = chat_script()
    history: list[HistoryMessage] = []
    compressed, full, recalled = [], [], {}
    started = time.perf_counter()
    for turn, human in enumerate(humans):
        history.append(HistoryMessage(id=2 * turn + 1, role="human", content=human))
        out = compress(history, Prompts(), budget=budget, recent=recent, query=human)
        sent = to_openai(normalise(out.history, prompts=out.prompts))
        compressed.append(count_chat(sent))
        full.append(out.record.full_tokens)
        if turn in ASKED_AT:
            answer = FACTS[ASKED_AT[turn]][2]
            recalled[answer] = any(answer in str(m["content"]) for m in sent)
        history.append(HistoryMessage(id=2 * turn + 2, role="assistant", content=reply_for(human)))
    return {
        "run": "offline (fact in the prompt)",
        "compressed": compressed,
        "full": full,
        "recalled": recalled,
        "seconds": time.perf_counter() - started,
    }


class AnsweringModel:
    """Replies from its prompt: a late question is answered with what the prompt says."""

    # A word of the late question → where the fact is found in the prompt.
    PATTERNS: ClassVar[dict[str, str]] = {
        "cost basis": r"cost basis[^.\n]*?(\d+\.\d+)",
        "currency": r"(Swiss francs)",
        "watching": r"watching most closely[^.\n]*?\b([A-Z]{3,5})\b",
    }

    def __init__(self) -> None:
        self.prompt_tokens: list[int] = []
        self.summaries = 0

    def __call__(self, request: ChatRequest) -> Reply:
        if request.stream:  # the rolling summary: keep the user's own statements
            self.summaries += 1
            facts = [
                line.strip()
                for line in request.prompt.splitlines()
                if line.startswith("User:") and not line.rstrip().endswith("?")
            ]
            previous = request.prompt.split("Summary so far:\n", 1)[-1].split("\n\nNew", 1)[0]
            kept = [previous] if previous and previous != "(none)" else []
            return Reply(content="\n".join(kept + facts)[-3000:])
        tools = count_tokens(json.dumps(request.tools)) if request.tools else 0
        self.prompt_tokens.append(count_chat(request.messages) + tools)
        question = str(request.messages[-1].get("content") or "")
        earlier = "\n".join(str(m.get("content") or "") for m in request.messages[:-1])
        for word, pattern in self.PATTERNS.items():
            if word in question:
                found = re.search(pattern, earlier)
                return Reply(content=f"You told me: {found.group(1) if found else 'unknown'}.")
        return Reply(content=reply_for(question))


async def scripted(budget: int, recent: int) -> dict[str, object]:
    humans = chat_script()
    model = AnsweringModel()
    full: list[int] = []
    recalled: dict[str, bool] = {}
    started = time.perf_counter()
    with ScriptedEndpoint(model) as endpoint, tempfile.TemporaryDirectory() as tmp:
        forget_endpoint_modes()
        settings = Settings(
            brain="offline",
            offline=False,
            data_dir=Path(tmp),
            database_url=SecretStr(f"sqlite:///{Path(tmp) / 'store.sqlite3'}"),
            llm_base_url=endpoint.base_url,
            llm_model="scripted",
            llm_max_retries=0,
            chat_prompt_tokens=budget,
            chat_recent_turns=recent,
        )
        app = create_app(settings, warm_up=False)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=120) as c:
            assistant = (
                await c.post(
                    "/api/v1/assistants",
                    json={"name": "Bench", "disable_memory": True, "tools": []},
                )
            ).json()
            chat = (await c.post("/api/v1/chats", json={"assistant_id": assistant["id"]})).json()
            url = f"/api/v1/chats/{chat['id']}/messages"
            for turn, human in enumerate(humans):
                body = (await c.post(url, json={"content": human, "stream": False})).json()
                context = (await c.get(f"{url}/{body['message']['id']}/context")).json()
                full.append(context["full_tokens"])
                if turn in ASKED_AT:
                    answer = FACTS[ASKED_AT[turn]][2]
                    recalled[answer] = answer in body["replies"][-1]["content"]
    return {
        "run": "scripted model (reply states it)",
        "compressed": model.prompt_tokens,
        "full": full,
        "recalled": recalled,
        "summaries": model.summaries,
        "seconds": time.perf_counter() - started,
    }


def report(result: dict[str, object]) -> str:
    compressed: list[int] = result["compressed"]  # type: ignore[assignment]
    full: list[int] = result["full"]  # type: ignore[assignment]
    recalled: dict[str, bool] = result["recalled"]  # type: ignore[assignment]
    last = slice(-50, None)
    found = ", ".join(fact for fact, ok in recalled.items() if ok)
    return (
        f"| {result['run']} | {statistics.median(compressed):.0f} / {max(compressed)} "
        f"| {statistics.median(full):.0f} / {max(full)} "
        f"| {statistics.mean(compressed[last]):.0f} vs {statistics.mean(full[last]):.0f} "
        f"| {sum(recalled.values())}/{len(recalled)} ({found}) "
        f"| {result['seconds']:.0f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=8000)
    parser.add_argument("--recent", type=int, default=4)
    parser.add_argument("--offline-only", action="store_true")
    args = parser.parse_args()
    print(f"{TURNS} turns, budget {args.budget} tokens, {args.recent} recent turns verbatim")
    print(
        "| run | prompt tokens/turn, median / max | full history, median / max "
        "| last 50 turns, mean: compressed vs full | planted facts recalled | time |"
    )
    print("|---|---|---|---|---|---|")
    print(report(offline(args.budget, args.recent)))
    if not args.offline_only:
        print(report(asyncio.run(scripted(args.budget, args.recent))))


if __name__ == "__main__":
    main()
