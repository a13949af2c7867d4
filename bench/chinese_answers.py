"""English left in Chinese answers: every Chinese question of the corpora, answered offline, and
the answers whose summary, message, notes, chart axis titles or follow-up suggestions still hold
English prose (code, commands and the catalog's Latin brand names aside).

    python bench/chinese_answers.py [CORPUS.jsonl ...] [-v]

Prints how many answers leak and in which part; -v lists them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from collections import Counter
from datetime import date
from pathlib import Path

from datapilot.brains import answer as ask
from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.outputs import ChartOutput
from datapilot.engine.context import RequestContext
from datapilot.render.charts import to_plotly
from datapilot.server.suggestions import follow_ups
from datapilot.settings import get_settings

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = [
    *sorted((ROOT / "tests" / "corpus").glob("*.jsonl")),
    ROOT / "tests" / "fixtures" / "corpus" / "queries.jsonl",
]
_CJK = re.compile(r"[\u4e00-\u9fff]")
_PROSE = re.compile(r"(?<![\w`$.-])[A-Za-z][a-z]{2,}(?![\w`(])")
# Code: `quoted`, interface names (get_prices, 用 rank), settings (NAME=a,b) and paths (a/b.toml).
_CODE = re.compile(r"`[^`]*`|\b\w+_\w+\b|(?:用|应用了) \w+|[\w.,-]*[=/][\w.,/=-]*")
_LATIN_NAMES = {"Nasdaq", "Apple", "Microsoft", "Range", "Resources"}


def _questions(paths: list[Path]) -> list[tuple[str, date]]:
    seen: dict[str, date] = {}
    for path in paths:
        for line in path.open(encoding="utf-8"):
            row = json.loads(line)
            question = row.get("query") or row.get("question") or ""
            if _CJK.search(question) and question not in seen:
                seen[question] = date.fromisoformat(row.get("today") or "2024-06-30")
    return list(seen.items())


def _axes(answer: Answer) -> list[str]:
    titles = []
    for chart in (o for o in answer.outputs if isinstance(o, ChartOutput)):
        layout = to_plotly(chart)["layout"]
        axes = [v for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))]
        titles += [a["title"]["text"] for a in axes if isinstance(a, dict) and a.get("title")]
    return titles


def _english(text: str) -> list[str]:
    return [w for w in _PROSE.findall(_CODE.sub(" ", text)) if w not in _LATIN_NAMES]


async def main(paths: list[Path], verbose: bool) -> None:
    settings = get_settings()
    questions = _questions(paths)
    leaks: dict[str, dict[str, list[str]]] = {}
    for question, today in questions:
        context = QuestionContext(today=today, brain="offline", offline=True)
        answer = await ask(question, RequestContext.for_request(context, settings))
        parts = {
            "summary": [answer.summary],
            "message": [answer.message or ""],
            "notes": list(answer.notes),
            "axes": _axes(answer),
            "suggestions": follow_ups(answer) if answer.status == "ok" else [],
        }
        found = {k: [w for t in v for w in _english(t)] for k, v in parts.items()}
        found = {k: v for k, v in found.items() if v}
        if found:
            leaks[question] = found
    by_part = Counter(part for found in leaks.values() for part in found)
    print(f"Chinese questions: {len(questions)}; answers with English prose: {len(leaks)}")
    print("by part: " + (", ".join(f"{k} {n}" for k, n in by_part.most_common()) or "none"))
    if verbose:
        for question, found in leaks.items():
            print(f"  {question} → {found}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", type=Path, default=DEFAULTS)
    parser.add_argument("-v", "--verbose", action="store_true")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.corpora, arguments.verbose))
