"""English left in Chinese answers: every Chinese question of the corpora, answered offline, and
the answers whose summary, message, notes, chart titles, axis titles, legend (and hover) names,
table titles, headers and cells or follow-up suggestions still hold English prose (code, commands,
the catalog's Latin brand names and the user's own words in “quotes” aside). Chinese questions
about the test tables (`tests/fixtures/tables`, sent as a widget's data) are asked too: their
answers name the tables' English columns.

    python bench/chinese_answers.py [CORPUS.jsonl ...] [-v]

Prints how many answers leak and in which part; -v lists them.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import re
from collections import Counter
from datetime import date
from pathlib import Path

from datapilot.brains import answer as ask
from datapilot.core.answer import Answer
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.core.outputs import ChartOutput, TableOutput
from datapilot.engine.context import RequestContext
from datapilot.render.charts import to_plotly
from datapilot.render.markdown import table_headers
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
TABLES = ROOT / "tests" / "fixtures" / "tables"
# Chinese questions about the test tables: (table, question).
TABLE_QUESTIONS = [
    ("prices", "最新收盘价是多少？"),
    ("prices", "收盘价的走势"),
    ("prices", "每天的收盘价和成交量"),
    ("prices", "平均成交量是多少"),
    ("prices", "最高价是哪天"),
    ("prices", "2024-05-22的收盘价"),
    ("estimates", "哪一年的预期最低？基于多少个分析师的预测？"),
    ("estimates", "每年的平均预期分别是多少"),
    ("estimates", "分析师人数最多的是哪一年"),
    ("annual_results", "按年份画出营收"),
    ("annual_results", "净利润从2019年到2023年增长了多少"),
    ("annual_results", "这个表有什么"),
    ("quarterly_revenue", "按年画出营收"),
    ("quarterly_revenue", "各季度的净利润"),
]


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


def _legend(answer: Answer) -> list[str]:
    """The names of a chart's traces: its legend, and what a hover says beside each value."""
    names = []
    for chart in (o for o in answer.outputs if isinstance(o, ChartOutput)):
        names += [str(t["name"]) for t in to_plotly(chart)["data"] if t.get("name")]
    return names


def _tables(answer: Answer) -> dict[str, list[str]]:
    """Titles (of charts and tables), table headers and the tables' text cells."""
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    charts = [o for o in answer.outputs if isinstance(o, ChartOutput)]
    return {
        "titles": [o.title for o in (*charts, *tables)],
        "headers": [h for t in tables for h in table_headers(t)],
        "cells": [c for t in tables for row in t.rows for c in row if isinstance(c, str)],
    }


# Words in Chinese quotes are the user's own: what they typed ("Sharp ratio") or named (a table).
_QUOTED = re.compile(r"“[^”]*”")


def _english(text: str) -> list[str]:
    text = _QUOTED.sub(" ", _CODE.sub(" ", text))
    return [w for w in _PROSE.findall(text) if w not in _LATIN_NAMES]


def _table(name: str) -> ClientTable:
    with (TABLES / f"{name}.csv").open(encoding="utf-8") as file:
        header, *rows = list(csv.reader(file))
    return ClientTable(name=name, source="widget", columns=header, rows=rows)


async def main(paths: list[Path], verbose: bool) -> None:
    settings = get_settings()
    asked = [(q, today, None) for q, today in _questions(paths)]
    asked += [(f"{q} [{t}]", date(2024, 6, 30), _table(t)) for t, q in TABLE_QUESTIONS]
    leaks: dict[str, dict[str, list[str]]] = {}
    for question, today, table in asked:
        context = QuestionContext(
            today=today, brain="offline", offline=True, tables=[table] if table else []
        )
        question = question.split(" [")[0] if table else question
        answer = await ask(question, RequestContext.for_request(context, settings))
        question += f" [{table.name}]" if table else ""
        parts = {
            "summary": [answer.summary],
            "message": [answer.message or ""],
            "notes": list(answer.notes),
            "axes": _axes(answer),
            "legend": _legend(answer),
            **_tables(answer),
            "suggestions": follow_ups(answer) if answer.status == "ok" else [],
        }
        found = {k: [w for t in v for w in _english(t)] for k, v in parts.items()}
        found = {k: v for k, v in found.items() if v}
        if found:
            leaks[question] = found
    by_part = Counter(part for found in leaks.values() for part in found)
    tables = sum(1 for q in leaks if q.endswith("]"))
    print(
        f"Chinese questions: {len(asked)} ({len(TABLE_QUESTIONS)} about a table); "
        f"answers with English prose: {len(leaks)} ({tables} about a table)"
    )
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
