"""The answer-as-code tests' pieces: a sample of the corpora's answerable questions, asked
offline, and the rows of an output as a frame (shared by the in-process and the sandboxed runs)."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from typing import Any

import pandas as pd

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from support import paths

# Every 22nd answerable question of the corpora: a broad sample (all families, both
# languages, every corpus) that stays within a few seconds of asking.
STRIDE = 22


def corpus_sample() -> list[dict[str, Any]]:
    cases = []
    for name in ("offline", "heldout", "heldout2", "numeric"):
        for line in (paths.CORPUS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if case["expect"].get("status", "ok") == "ok":
                cases.append(case)
    return cases[::STRIDE]


def ask_offline(question: str, today: str) -> Answer:
    from support.asking import ask

    context = QuestionContext(today=date.fromisoformat(today), brain="offline", offline=True)
    return asyncio.run(ask(question, context))


def output_frame(output: dict[str, Any]) -> pd.DataFrame:
    rows, columns = (
        (output["spec"]["rows"], output["spec"]["columns"])
        if output["kind"] == "chart"
        else (output["rows"], output["columns"])
    )
    return pd.DataFrame(rows, columns=columns)
