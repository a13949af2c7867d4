"""Questions over tables printed in annual reports, answered offline through `/api/v1/ask`.

    python bench/report_tables.py [SPLIT.json] [-v] [--limit N] [--kinds arithmetic,span]
        [--source table]

By default it reads the TAT-QA dev split's questions answered from the table alone, as vendored
in `tests/fixtures/report_tables/tatqa_dev_table_only.json` (TAT-QA,
https://github.com/NExTplusplus/TAT-QA, MIT licence; provenance in `tests/fixtures/README.md`).
Given a TAT-QA split as published (`tatqa_dataset_dev.json`), it reads that instead, and
`--source table-text` then asks the questions whose answer also needs the report's text, which
a reader of the table alone should decline or answer right. Each table goes to the native API of
an offline server the way a client holding the printed table sends it: the printed first row as
`columns` (blank cells named `column N`, repeats suffixed ` (2)`), the other rows as `rows`, the
paragraph sentence that states the scale (if any) as the table's description.

Each answer is one of:
- right: status `ok` and the first sentence of the summary states the expected figure (numbers
  to the precision the dataset gives; a decrease or a difference may be stated as a positive
  amount or as a negative change; a figure printed in parentheses may be stated as a magnitude
  when the dataset's derivation has no minus sign; a proportion may be a percentage and a ratio
  a fraction of 100; several values must all be present for a multi-span answer);
- wrong(ok): status `ok` with something else;
- declined: any other status; its message says what it could not find (a declined answer with
  no message is counted as `silent`).
Figures are printed overall and per operation: the answer types (arithmetic, span, multi-span,
count) and, under arithmetic, TAT-QA's derivation read as an operation (change, percentage
change, average, sum, ratio, …); `-v` lists the wrong answers, `-vv` the declined ones too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

KINDS = ("arithmetic", "count", "span", "multi-span")
VENDORED = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "fixtures"
    / "report_tables"
    / "tatqa_dev_table_only.json"
)
_NUMBER = re.compile(r"[-−]?\(?\$?\d[\d,]*(?:\.\d+)?\)?")


def client_table(table: list[list[str]], description: str) -> dict[str, Any]:
    """The printed table as a client sends it: the first printed row as its columns."""
    header = [str(cell).strip() for cell in table[0]]
    columns: list[str] = []
    for number, cell in enumerate(header, start=1):
        name = cell or f"column {number}"
        base, copy = name, 1
        while name in columns:
            copy += 1
            name = f"{base} ({copy})"
        columns.append(name)
    rows = [[str(cell) for cell in row] for row in table[1:]]
    return {"name": "report", "description": description, "columns": columns, "rows": rows}


def scale_sentence(paragraphs: list[dict[str, Any]]) -> str:
    """The paragraph sentence stating the table's scale ("(in millions)"), if one does."""
    for paragraph in paragraphs:
        found = re.search(
            r"[^.]*\b(?:in|of)\s+(?:thousands|millions|billions)\b[^.]*", paragraph["text"], re.I
        )
        if found:
            return found.group(0).strip()[:200]
    return ""


def operation(question: dict[str, Any]) -> str:
    """TAT-QA's derivation read as an operation, for the figures by operation."""
    kind = question["answer_type"]
    if kind != "arithmetic":
        return kind
    formula = question.get("derivation", "").replace(" ", "")
    if re.search(r"\)/\(?[\d.,]+\)?\*?100|/[\d.,]+-1", formula) or (
        re.search(r"^\(?[\d.,]+-[\d.,]+\)?/", formula)
    ):
        return "percentage change"
    if re.search(r"^\(.*\+.*\)/\d+$", formula):
        return "average"
    if re.fullmatch(r"-?[\d.,]+-[\d.,]+", formula):
        return "change / difference"
    if re.fullmatch(r"[\d.,]+(\+[\d.,]+)+", formula):
        return "sum"
    if re.search(r"/", formula):
        return "ratio / proportion"
    return "other"


def numbers_in(text: str) -> list[float]:
    found = []
    for raw in _NUMBER.findall(text):
        negative = raw.startswith(("-", "−")) or (raw.startswith("(") and raw.endswith(")"))
        digits = re.sub(r"[^\d.]", "", raw)
        if digits and digits != ".":
            try:
                value = float(digits)
            except ValueError:
                continue
            found.append(-value if negative else value)
    return found


def first_sentence(summary: str) -> str:
    # "U.S." ends no sentence: a full stop after a lone capital letter is an abbreviation's
    parts = re.split(
        r"(?<=[^A-Z.]\.)\s+(?=[A-Z\u4e00-\u9fff(])|(?<=。)\s*", summary.strip(), maxsplit=1
    )
    return parts[0] if parts else ""


def _close(value: float, gold: float, decreasing: bool, decimals: int | None = None) -> bool:
    candidates = [value, abs(value)] if decreasing else [value]
    for got in candidates:
        target = abs(gold) if decreasing else gold
        if abs(got - target) <= max(0.0051, abs(target) * 1e-4):
            return True
        if decimals is None:
            decimals = len(str(gold).split(".")[1]) if "." in str(gold) else 0
        if round(got, decimals) == round(target, decimals):
            return True
    return False


def right(question: dict[str, Any], summary: str) -> bool:
    """The first sentence states the expected figure (or each expected span)."""
    head = first_sentence(summary)
    gold = question["answer"]
    # TAT-QA adds and averages figures printed in parentheses (deductions) as magnitudes: when
    # its derivation has no minus sign, a figure of either sign is the one expected.
    unsigned = "-" not in question.get("derivation", "")
    decreasing = unsigned or bool(
        re.search(r"(?i)decreas|declin|drop|fall|fell|reduc|lower|differen", question["question"])
    )
    values = numbers_in(head)
    if "%" in head and str(question.get("scale")) != "percent":
        values += [v / 100 for v in values]  # a proportion stated as a percentage
    if re.search(r"(?i)\bratio\b", question["question"]):
        values += [v * 100 for v in values]  # a ratio the dataset gives as a percentage
    expected = gold if isinstance(gold, list) else [gold]
    for item in expected:
        if isinstance(item, int | float):
            if not any(_close(v, float(item), decreasing) for v in values):
                return False
            continue
        text = str(item).strip()
        plain = numbers_in(text)
        if plain and re.fullmatch(r"[-−$()\d.,%\s]+", text):
            places = len(text.split(".")[1].rstrip("%")) if "." in text else 0
            if not any(_close(v, plain[0], decreasing, places) for v in values):
                return False
        elif text.casefold() not in head.casefold():
            return False
    return True


async def _ask(client: Any, question: str, table: dict[str, Any]) -> dict[str, Any]:
    body = {"question": question, "tables": [table], "today": "2024-06-30"}
    response = await client.post("/api/v1/ask", json=body)
    if response.status_code != 200:
        return {"status": f"http {response.status_code}", "summary": response.text[:200]}
    return response.json()


Case = tuple[dict[str, Any], dict[str, Any]]  # (the client's table, the question)


def cases(
    path: Path = VENDORED, kinds: Sequence[str] = KINDS, sources: Sequence[str] = ("table",)
) -> list[Case]:
    """The questions of a split (vendored or as published) with the table each is asked over."""
    documents = json.loads(path.read_text(encoding="utf-8"))
    found: list[Case] = []
    for doc in documents:
        printed = doc["table"]["table"] if isinstance(doc["table"], dict) else doc["table"]
        scale = doc.get("scale_sentence")
        if scale is None:
            scale = scale_sentence(doc.get("paragraphs", []))
        table = client_table(printed, scale)
        for q in doc["questions"]:
            if q.get("answer_from", "table") in sources and q["answer_type"] in kinds:
                found.append((table, q))
    return found


async def score(selected: list[Case], verbose: int = 0) -> dict[str, Counter[str]]:
    """Each question asked through `/api/v1/ask`: right, wrong, declined (and silent) counts,
    overall (`all`), by answer type and by arithmetic operation (`arithmetic: <operation>`)."""
    import httpx

    from datapilot.server.app import create_app
    from datapilot.settings import Settings

    app = create_app(Settings(brain="offline", offline=True))
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        for table, q in selected:
            answer = await _ask(client, q["question"], table)
            summary = answer.get("summary") or ""
            if answer.get("status") != "ok":
                outcome = "declined"
            else:
                outcome = "right" if right(q, summary) else "wrong"
            keys = ["all", q["answer_type"]]
            if q["answer_type"] == "arithmetic":
                keys.append(f"arithmetic: {operation(q)}")
            for key in keys:
                counts[key][outcome] += 1
                if outcome == "declined" and not (answer.get("message") or "").strip():
                    counts[key]["silent"] += 1
            if verbose and outcome != "right" and (outcome == "wrong" or verbose > 1):
                said = summary if outcome == "wrong" else answer.get("message") or summary
                print(f"{outcome:>8}  {q['question']!r} → {q['answer']} ({q['derivation']})")
                print(f"          {said[:300]!r}")
    return counts


def report(counts: dict[str, Counter[str]]) -> str:
    """The figures as a table: overall, then each answer type (arithmetic's operations under it)."""
    order = ["all", "arithmetic"]
    order += sorted(k for k in counts if k.startswith("arithmetic: "))
    order += [k for k in ("span", "multi-span", "count") if k in counts]
    lines = [
        f"{'':32} {'questions':>9} {'right':>13} {'wrong(ok)':>12} {'declined':>9} {'silent':>6}"
    ]
    for key in order:
        c = counts.get(key)
        if not c:
            continue
        total = c["right"] + c["wrong"] + c["declined"]
        label = "  " + key.removeprefix("arithmetic: ") if key.startswith("arithmetic: ") else key
        lines.append(
            f"{label:32} {total:>9} {c['right']:>6} {c['right'] / total:>6.1%}"
            f" {c['wrong']:>5} {c['wrong'] / total:>6.1%} {c['declined']:>9} {c['silent']:>6}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "dataset",
        type=Path,
        nargs="?",
        default=VENDORED,
        help="a TAT-QA split (default: the dev split's table-only questions under tests/fixtures)",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--kinds", default=",".join(KINDS), help="answer types to ask")
    parser.add_argument("--source", default="table", help="where answers come from (table-text)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    selected = cases(args.dataset, args.kinds.split(","), args.source.split(","))[: args.limit]
    print(f"{args.dataset.name}: {len(selected)} questions")
    print(report(asyncio.run(score(selected, args.verbose))))


if __name__ == "__main__":
    main()
