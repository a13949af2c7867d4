"""LLM calls and planning-prompt tokens per question, with a scripted model, on the test corpus.

    python bench/llm.py [--corpus DIR] [--limit N] [--plan-only] [--long N]

For every corpus question a scripted OpenAI-compatible endpoint on loopback answers the planning
call with the plan the offline planner makes for that question (so the plan is valid and the
run is realistic) and the summary call with a short sentence. The whole pipeline runs, the LLM
brain included, and the endpoint records what was sent. Prompt tokens are counted offline with
the o200k_base tokenizer (bpe-openai): the planning messages plus the JSON schema sent as
`response_format`. Compared with Data-Copilot's pipeline: about 14,000 prompt tokens over 5
sequential calls for one stock question. Targets: <= 2 calls per typical question, planning
prompt <= 4,000 tokens. The long-conversation scenario asks the first N questions again after a
30-turn conversation (long answers) with 5 client tables, and reports the fitted prompt beside
what the same request would have cost unfitted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

DATA_COPILOT_TOKENS = 14_000
DATA_COPILOT_CALLS = 5
TARGET_TOKENS = 4_000
TARGET_CALLS = 2
SUMMARY_TEXT = "I ran the plan; the chart and table above show the results."
LONG_TURNS = 30
LONG_TABLES = 5


@dataclass
class Measured:
    id: str
    status: str
    expected: str | None
    calls: int
    planning_tokens: int
    schema_tokens: int
    usage_prompt_tokens: int
    unfitted_tokens: int = 0


def long_context(today: date) -> Any:
    """A 30-turn conversation whose answers summarise charts, and 5 widget tables of 40 rows."""
    from datapilot.core.context import ChatMessage, ClientTable, QuestionContext

    history = []
    for turn in range(LONG_TURNS):
        history.append(ChatMessage(role="human", content=f"How did JPM do in Q{turn % 4 + 1}?"))
        summary = " ".join(f"JPM closed at {150 + day / 10:.2f} on day {day};" for day in range(60))
        history.append(ChatMessage(role="ai", content=summary))
    tables = [
        ClientTable(
            name=f"widget {n}",
            columns=["date", "ticker", "quantity", "price", "market value", "sector"],
            rows=[["2021-01-04", f"T{row}", row * 10, 100.5, 1005.0, "Tech"] for row in range(40)],
        )
        for n in range(LONG_TABLES)
    ]
    return QuestionContext(today=today, history=history, tables=tables)


def unfitted_tokens(question: str, context: Any, schema_tokens: int) -> int:
    """What the planning prompt would cost with every section at its own cap, no overall budget."""
    from datapilot.brains.llm.prompt import entity_hint, planning_messages
    from datapilot.core.model_messages import to_openai
    from datapilot.data import get_catalog
    from datapilot.engine.executor import default_registry
    from datapilot.model_client import count_chat

    hint = entity_hint(get_catalog().entities(available=True))
    messages = planning_messages(question, context, default_registry(), entity_hint=hint)
    return count_chat(to_openai(messages)) + schema_tokens


def corpus(directory: Path) -> list[dict[str, Any]]:
    cases = []
    for name in ("queries.jsonl", "windows.jsonl"):
        path = directory / name
        if path.exists():
            cases += [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return cases


def reply_for(understanding: Any) -> str:
    """The planning reply a model would give: the offline planner's reading, as JSON."""
    status = {"ok": "ok", "out_of_scope": "out_of_scope"}.get(understanding.status, "no_data")
    body: dict[str, Any] = {"status": status, "message": understanding.message}
    intent = understanding.intent
    if intent is not None:
        body["intent"] = {
            **intent.model_dump(mode="json", exclude={"entities"}),
            "entities": [{"name": e.name, "id": e.id} for e in intent.entities],
        }
    if understanding.plan is not None and status == "ok":
        body["plan"] = understanding.plan.model_dump(mode="json")
    return json.dumps(body, ensure_ascii=False)


async def measure(case: dict[str, Any], plan_only: bool, long: bool = False) -> Measured:
    from datapilot.brains.llm import LLMBrain
    from datapilot.brains.offline import OfflineBrain
    from datapilot.core.context import QuestionContext
    from datapilot.engine.context import RequestContext
    from datapilot.engine.pipeline import ask
    from datapilot.model_client import count_chat, count_tokens
    from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
    from datapilot.settings import Settings

    today = date.fromisoformat(case["today"])
    offline = await OfflineBrain().understand(case["query"], QuestionContext(today=today))
    planned = reply_for(offline)
    context = long_context(today) if long else QuestionContext(today=today)

    def script(request: ChatRequest) -> Reply:
        return Reply(content=SUMMARY_TEXT if request.stream else planned)

    with ScriptedEndpoint(script) as endpoint:
        settings = Settings(llm_base_url=endpoint.base_url, llm_model="scripted", brain="llm")
        request = RequestContext.for_request(context, settings)
        brain = LLMBrain(settings, registry=request.registry, data=request.data)
        answer = await ask(case["query"], request, brain=brain, plan_only=plan_only)
    planning = endpoint.requests[0]
    schema = json.dumps(planning.response_format or {}, separators=(",", ":"))
    schema_tokens = count_tokens(schema) if planning.response_format else 0
    return Measured(
        id=case["id"],
        status=answer.status,
        expected=case["expect"].get("status"),
        calls=answer.usage.llm_calls,
        planning_tokens=count_chat(planning.messages) + schema_tokens,
        schema_tokens=schema_tokens,
        usage_prompt_tokens=answer.usage.prompt_tokens,
        unfitted_tokens=unfitted_tokens(case["query"], context, schema_tokens) if long else 0,
    )


def report_long(rows: list[Measured]) -> bool:
    fitted = [row.planning_tokens for row in rows]
    unfitted = [row.unfitted_tokens for row in rows]
    print(
        f"long conversation ({LONG_TURNS} turns, {LONG_TABLES} client tables), "
        f"{len(rows)} questions: planning prompt p50 {statistics.median(fitted):,.0f}, "
        f"max {max(fitted):,} (target <= {TARGET_TOKENS:,}); unfitted it would be "
        f"p50 {statistics.median(unfitted):,.0f}, max {max(unfitted):,}"
    )
    return max(fitted) <= TARGET_TOKENS


def report(rows: list[Measured]) -> bool:
    print(f"{'id':<6} {'status':<13} {'calls':>5} {'plan prompt':>12} {'all prompts':>12}")
    for row in rows:
        flag = "" if row.expected in {None, row.status} else f"  (expected {row.expected})"
        print(
            f"{row.id:<6} {row.status:<13} {row.calls:>5} {row.planning_tokens:>12,} "
            f"{row.usage_prompt_tokens:>12,}{flag}"
        )
    tokens = [row.planning_tokens for row in rows]
    calls = [row.calls for row in rows]
    typical = [row.calls for row in rows if row.status == "ok"]
    p50_tokens, max_tokens = statistics.median(tokens), max(tokens)
    p50_calls, max_calls = statistics.median(calls), max(calls)
    print()
    print(f"questions: {len(rows)} (answered ok: {len(typical)})")
    print(
        f"planning prompt tokens (o200k, messages + {rows[0].schema_tokens} schema): "
        f"p50 {p50_tokens:,.0f}, max {max_tokens:,} (target <= {TARGET_TOKENS:,})"
    )
    print(
        f"LLM calls per question: p50 {p50_calls:g}, max {max_calls} "
        f"(answered questions: max {max(typical, default=0)}; target <= {TARGET_CALLS})"
    )
    print(
        f"vs Data-Copilot ({DATA_COPILOT_TOKENS:,} prompt tokens, {DATA_COPILOT_CALLS} calls): "
        f"{DATA_COPILOT_TOKENS / p50_tokens:.1f}x fewer planning prompt tokens "
        f"({DATA_COPILOT_TOKENS / max_tokens:.1f}x at the max), "
        f"{DATA_COPILOT_CALLS / max(max_calls, 1):.1f}x fewer calls at the max"
    )
    return max_tokens <= TARGET_TOKENS and max(typical, default=0) <= TARGET_CALLS


def breakdown() -> str:
    """Where the planning prompt's tokens go."""
    from datapilot.brains.llm.prompt import SYSTEM_RULES, compact_catalog, entity_hint
    from datapilot.brains.llm.reply import reply_schema
    from datapilot.data import get_catalog
    from datapilot.engine.executor import default_registry
    from datapilot.model_client import count_tokens

    registry = default_registry()
    parts = {
        "rules": count_tokens(SYSTEM_RULES),
        f"interfaces ({len(registry)})": count_tokens(compact_catalog(registry)),
        "entities with data": count_tokens(entity_hint(get_catalog().entities(available=True))),
        "schema": count_tokens(json.dumps(reply_schema(), separators=(",", ":"))),
    }
    return ", ".join(f"{name} {tokens:,}" for name, tokens in parts.items())


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "corpus"
    parser.add_argument("--corpus", type=Path, default=default, help="Folder of *.jsonl cases.")
    parser.add_argument("--limit", type=int, default=0, help="Only the first N questions.")
    parser.add_argument("--plan-only", action="store_true", help="Skip execution and summary.")
    parser.add_argument(
        "--long",
        type=int,
        default=20,
        help="Questions in the long-conversation scenario (0: skip).",
    )
    options = parser.parse_args()
    cases = corpus(options.corpus)
    if not cases:
        print(f"no corpus found in {options.corpus}; pass --corpus DIR", file=sys.stderr)
        return 2
    if options.limit:
        cases = cases[: options.limit]
    rows = [await measure(case, options.plan_only) for case in cases]
    ok = report(rows)
    print(f"planning prompt parts (o200k): {breakdown()}; the rest is the request itself")
    if options.long:
        long_rows = [
            await measure(case, options.plan_only, long=True) for case in cases[: options.long]
        ]
        ok = report_long(long_rows) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    # A private data dir: the bench seeds its own warehouse and never touches the user's.
    os.environ.setdefault("DATAPILOT_DATA_DIR", tempfile.mkdtemp(prefix="datapilot-bench-"))
    for name in [n for n in os.environ if n.startswith("DATAPILOT_LLM_")]:
        del os.environ[name]
    raise SystemExit(asyncio.run(main()))
