"""Confident wrong answers: questions answered `ok` that a corpus expects otherwise, per class.

    python bench/reading.py [CORPUS.jsonl ...] [-v]

Asks every case through the full offline pipeline (the local warehouse, each case's own `today`)
and counts, per reading class (`class` in `tests/corpus/reading.jsonl`, else the file's name),
the cases that pass, fail, and fail while saying `ok` ("wrong with ok": a number for something
other than what was asked). Defaults to every corpus in tests/corpus and the acceptance corpus.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter, defaultdict
from pathlib import Path

from datapilot.brains import answer as ask
from datapilot.core.context import QuestionContext
from datapilot.engine.context import RequestContext
from datapilot.evaluation import load_corpus, score
from datapilot.settings import get_settings

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = [
    *sorted((ROOT / "tests" / "corpus").glob("*.jsonl")),
    ROOT / "tests" / "fixtures" / "corpus" / "queries.jsonl",
]


def classes(path: Path) -> dict[str, str]:
    """Case id → its class: the line's `class`, else the corpus file's name."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            found[raw["id"]] = raw.get("class") or path.stem
    return found


async def run(paths: list[Path], verbose: bool) -> None:
    settings = get_settings()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for path in paths:
        kind = classes(path)
        for case in load_corpus(path):
            context = QuestionContext(today=case.today, brain="offline", history=case.history)
            answer = await ask(case.query, RequestContext.for_request(context, settings))
            failures, _ = score(case, answer)
            group = counts[kind[case.id]]
            group["cases"] += 1
            group["failed"] += bool(failures)
            wrong_ok = bool(failures) and answer.status == "ok"
            group["wrong_with_ok"] += wrong_ok
            if verbose and failures:
                flag = "WRONG-OK" if wrong_ok else "failed"
                print(f"{flag} {case.id} {case.query!r} ({answer.status}): {'; '.join(failures)}")
    width = max(len(k) for k in counts)
    print(f"{'class':<{width}}  cases  failed  wrong-with-ok")
    for name in sorted(counts):
        print(_row(name, counts[name], width))
    print(_row("TOTAL", sum(counts.values(), Counter()), width))


def _row(name: str, c: Counter[str], width: int) -> str:
    return f"{name:<{width}}  {c['cases']:>5}  {c['failed']:>6}  {c['wrong_with_ok']:>13}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="*", type=Path)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    asyncio.run(run(args.corpus or DEFAULTS, args.verbose))


if __name__ == "__main__":
    main()
