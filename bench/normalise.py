"""How long normalising a long chat takes before each model call: a 200-message history
(humans with stamps, replies of two assistants, tool calls and results, a dangling call,
knowledge and an image) into OpenAI chat messages.

    python bench/normalise.py                 # 2,000 runs
    python bench/normalise.py --messages 500 --runs 500
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import UTC, datetime, timedelta

from datapilot.assistants.models import ToolCallRecord
from datapilot.assistants.normalise import HistoryMessage, Prompts, normalise

TARGET_MS = 5.0  # p95 for 200 messages: negligible next to a model call


def history(size: int) -> list[HistoryMessage]:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    messages = [HistoryMessage(role="system", content="Answer in figures.")]
    for number in range(size):
        when = start + timedelta(minutes=number)
        match number % 8:
            case 0 | 4:
                text = f"Question {number}:\n\n\n\nhow did AAPL do in {2000 + number % 23}?"
                messages.append(HistoryMessage(role="human", content=text, created_at=when))
            case 1:
                call = ToolCallRecord(id=f"c{number}", name="ask_data", arguments="{}")
                messages.append(HistoryMessage(role="tool_call", tool_call=call))
            case 2:
                messages.append(
                    HistoryMessage(role="tool", content="x" * 400, tool_call_id=f"c{number - 1}")
                )
            case 3 | 5:
                author = "a1" if number % 16 < 8 else "b2"
                messages.append(
                    HistoryMessage(role="assistant", content="It rose 12.3%.", assistant_id=author)
                )
            case 6:
                call = ToolCallRecord(id=f"d{number}", name="ask_data")  # left dangling
                messages.append(HistoryMessage(role="tool_call", tool_call=call))
            case 7:
                kind = "knowledge" if number % 16 == 7 else "file"
                messages.append(
                    HistoryMessage(
                        role=kind,
                        content="A passage." if kind == "knowledge" else "",
                        image_url=None if kind == "knowledge" else "data:image/png;base64,AAAA",
                    )
                )
    messages.append(HistoryMessage(role="human", content="and now?", created_at=start))
    return messages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    chat = history(args.messages)
    prompts = Prompts(assistant="Be brief.", chat="Focus on US stocks.")
    names = {"a1": "Analyst", "b2": "Bob"}
    samples = []
    for _ in range(args.runs + 50):
        started = time.perf_counter()
        sent = normalise(chat, prompts=prompts, assistant_id="b2", names=names)
        samples.append((time.perf_counter() - started) * 1000)
    samples = sorted(samples[50:])
    p50 = statistics.median(samples)
    p95 = samples[int(len(samples) * 0.95) - 1]
    verdict = "ok" if p95 <= TARGET_MS else "SLOW"
    print(
        f"{len(chat)} stored messages -> {len(sent)} sent: p50 {p50:.3f} ms, p95 {p95:.3f} ms "
        f"(target p95 <= {TARGET_MS:g} ms: {verdict})"
    )


if __name__ == "__main__":
    main()
