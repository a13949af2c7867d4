"""Confident wrong answers: questions answered `ok` that a corpus expects otherwise, per class.

    python bench/reading.py [CORPUS.jsonl ...] [-v]

Asks every case through the full offline pipeline (the local warehouse, each case's own `today`)
and counts, per reading class (`class` in `tests/corpus/reading.jsonl`, else the file's name),
the cases that pass, fail, and fail while saying `ok` ("wrong with ok": a number for something
other than what was asked). Defaults to every corpus in tests/corpus, the blind sets in
tests/corpus/blind (whose `figures` and `figure_dates`, computed with pandas by their authors,
must be shown by an `ok` answer) and the acceptance corpus.
"""

from __future__ import annotations

import argparse
import asyncio
import calendar
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from datapilot.brains import answer as ask
from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput
from datapilot.engine.context import RequestContext
from datapilot.evaluation import load_corpus, score
from datapilot.settings import get_settings

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = [
    *sorted((ROOT / "tests" / "corpus").glob("*.jsonl")),
    *sorted((ROOT / "tests" / "corpus" / "blind").glob("*.jsonl")),
    ROOT / "tests" / "fixtures" / "corpus" / "queries.jsonl",
]
TOLERANCE = 0.01 + 1e-9
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])[-−+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?")
_ZH_QUARTERS = {1: "一", 2: "二", 3: "三", 4: "四"}


def raw_expectations(path: Path) -> dict[str, dict[str, Any]]:
    """Case id → its `expect` as written (a blind set's `figures` and `figure_dates` too)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            found[raw["id"]] = raw.get("expect", {})
    return found


def figure_failures(expect: dict[str, Any], answer: Answer) -> list[str]:
    """A blind set's figures (±0.01, ±0.5 from 10,000 up; a negative one also as its magnitude,
    "fell 12.18%") and their dates (as a day, a month or a quarter, in either language) missing
    from the summary and tables of an `ok` answer. `alternatives` (each a `figures` /
    `figure_dates` pair) are the figures under another documented convention: any one complete
    set is right."""
    if answer.status != "ok":
        return []
    missing = _missing_figures(expect, answer)
    for other in expect.get("alternatives") or []:
        if missing and not _missing_figures(other, answer):
            return []
    return missing


def _missing_figures(expect: dict[str, Any], answer: Answer) -> list[str]:
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    text = "\n".join([answer.summary, *(f"{t.title} {t.columns} {t.rows}" for t in tables)])
    numbers = [float(c) for t in tables for r in t.rows for c in r if _is_number(c)]
    for match in _NUMBER.finditer(_ISO_DAY.sub(" ", text)):
        numbers.append(float(match.group().replace(",", "").replace("−", "-")))
    missing = []
    for figure in expect.get("figures") or []:
        want = float(figure)
        # Counts of shares, dollars of volume and the like are shown in whole units.
        near = TOLERANCE if abs(want) < 10_000 else 0.5 + 1e-9
        if not any(abs(v - want) <= near or abs(v + want) <= near for v in numbers):
            missing.append(f"figure {figure}")
    lowered = text.casefold()
    for day in expect.get("figure_dates") or []:
        if not any(form.casefold() in lowered for form in _date_forms(day)):
            missing.append(f"date {day}")
    return missing


def _is_number(cell: object) -> bool:
    return isinstance(cell, int | float) and not isinstance(cell, bool)


def _date_forms(day: str) -> list[str]:
    """Ways an answer may write a day (YYYY-MM-DD), a month (YYYY-MM) or a quarter (YYYYQn,
    YYYY-Qn)."""
    if quarter := re.fullmatch(r"(\d{4})-?Q([1-4])", day):
        year, q = int(quarter.group(1)), int(quarter.group(2))
        first, last = 3 * q - 2, 3 * q
        end = calendar.monthrange(year, last)[1]
        zh = _ZH_QUARTERS[q]
        return [
            f"{year}Q{q}", f"{year}-Q{q}", f"{year} Q{q}", f"Q{q} {year}", f"{year}年第{zh}季度",
            f"{year}年{zh}季度", f"{year}年Q{q}", f"{year}年第{q}季度",
            f"{year}-{first:02d}-01", f"{year}-{last:02d}-{end}", f"{year}-{first:02d}",
        ]  # fmt: skip
    if month := re.fullmatch(r"(\d{4})-(\d{2})", day):
        year, m = int(month.group(1)), int(month.group(2))
        return [
            f"{year}-{m:02d}", f"{year}/{m:02d}", f"{year}年{m}月", f"{year}年{m:02d}月",
            f"{calendar.month_name[m]} {year}", f"{calendar.month_abbr[m]} {year}",
        ]  # fmt: skip
    if full := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", day):
        year, m, d = (int(x) for x in full.groups())
        return [
            day, f"{year}/{m:02d}/{d:02d}", f"{year}年{m}月{d}日",
            f"{calendar.month_name[m]} {d}, {year}", f"{calendar.month_abbr[m]} {d}, {year}",
        ]  # fmt: skip
    return [day]


def classes(path: Path) -> dict[str, str]:
    """Case id → its class: the line's `class`, else the corpus file's name; a blind set's
    classes are prefixed with its name ("blind3/count_days") and counted apart."""
    blind = path.parent.name == "blind"
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            name = raw.get("class") or path.stem
            found[raw["id"]] = f"{path.stem}/{name}" if blind else name
    return found


async def run(paths: list[Path], verbose: bool) -> None:
    settings = get_settings()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for path in paths:
        kind = classes(path)
        expects = raw_expectations(path)
        for case in load_corpus(path):
            context = QuestionContext(today=case.today, brain="offline", history=case.history)
            answer = await ask(case.query, RequestContext.for_request(context, settings))
            failures, _ = score(case, answer)
            failures += figure_failures(expects[case.id], answer)
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
    own = [c for name, c in counts.items() if "/" not in name]
    print(_row("TOTAL", sum(own, Counter()), width))
    for blind in sorted({name.split("/")[0] for name in counts if "/" in name}):
        found = [c for name, c in counts.items() if name.startswith(f"{blind}/")]
        print(_row(f"TOTAL {blind}", sum(found, Counter()), width))


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
