"""Tool questions read offline: right calls, questions back, no tool, wrong calls.

    python bench/tool_questions.py [-v]

Serves the FX and weather API, the Qianfan to-do plugin and an MCP server with two tools on
loopback, imports them, and reads every question of `tests/support/tool_questions.py` against
them (and four schema-only tools) with no model: choose a tool, fill its arguments from the
question and the entities the offline reader resolved, call it. A call is right when the tool
and the arguments the service received are the expected ones, wrong otherwise; `-v` lists the
questions that did not end as expected.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run(verbose: bool) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from support.tool_questions import ASK, CALL, CASES, NONE, question_tools

    counts: Counter[str] = Counter()
    expected = Counter(case.kind for case in CASES)
    with question_tools() as tools:
        outcomes = asyncio.run(_outcomes(tools, [case.question for case in CASES]))
        for case, got in zip(CASES, outcomes, strict=True):
            kind = "wrong" if got.wrong(case) else "right" if got.right(case) else got.kind
            counts[kind] += 1
            as_expected = kind == "right" or (kind in (ASK, NONE) and kind == case.kind)
            counts[f"{kind}-as-expected"] += as_expected
            if verbose and not as_expected:
                detail = f"{got.tool} {got.arguments}" if got.kind == CALL else got.tool or ""
                print(f"{kind:>5}  {case.question!r}  expected {case.kind}: {detail}")
    print(
        f"{len(CASES)} questions: {expected[CALL]} expect a call, {expected[ASK]} a question "
        f"back, {expected[NONE]} no tool"
    )
    print(f"right calls  {counts['right']:>3}")
    print(f"asked        {counts[ASK]:>3}  (as expected: {counts[f'{ASK}-as-expected']})")
    print(f"no tool      {counts[NONE]:>3}  (as expected: {counts[f'{NONE}-as-expected']})")
    print(f"wrong calls  {counts['wrong']:>3}")


async def _outcomes(tools: Any, questions: list[str]) -> list[Any]:
    return [await tools.outcome(question) for question in questions]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.INFO)  # the services' and clients' request lines
    run(args.verbose)


if __name__ == "__main__":
    main()
