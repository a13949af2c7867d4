"""A question of digits costs no more to read than one of words, in any script: the time
grammar once scanned runs of Arabic-Indic, Devanagari or Thai digits (which Python's `\\d`
matches) from every position, so 4,000 of them cost 10-18 s of CPU. Digits of every script
are read as the ASCII digits they stand for, as full-width digits always were."""

from __future__ import annotations

import asyncio
import time
from datetime import date

import pytest
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.settings import get_settings

LENGTH = get_settings().max_question_chars  # the longest question a server accepts
SCRIPTS = {
    "ascii": "0123456789",
    "arabic-indic": "٠١٢٣٤٥٦٧٨٩",
    "devanagari": "०१२३४५६७८९",
    "thai": "๐๑๒๓๔๕๖๗๘๙",
    "bengali": "০১২৩৪৫৬৭৮৯",
    "full-width": "０１２３４５６７８９",
    "chinese-numerals": "一二三四五六七八九",  # read by the same rules as digits
}
WORDS = "Apple Microsoft 苹果 revenue chart compare returns 2021 since 2019 "

pytestmark = pytest.mark.perf


def _ask(question: str) -> Answer:
    context = QuestionContext(today=date(2022, 6, 30), brain="offline", offline=True)
    return asyncio.run(ask(question, context))


def _cpu(question: str) -> tuple[float, Answer]:
    started = time.process_time()
    answer = _ask(question)
    return time.process_time() - started, answer


@pytest.fixture(scope="module")
def baseline(data) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds of a question of words as long as the digits."""
    _ask("Apple in 2021")  # build the grammars and the catalog's matcher first
    return min(_cpu((WORDS * LENGTH)[:LENGTH])[0] for _ in range(2))


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_question_of_digits_costs_what_one_of_words_does(baseline: float, script: str) -> None:
    digits = (SCRIPTS[script] * LENGTH)[:LENGTH]
    spent, answer = min((_cpu(digits) for _ in range(2)), key=lambda t: t[0])
    # A refusal saying what the product answers, never an error or a crash.
    assert answer.status in ("out_of_scope", "no_data"), answer
    assert answer.message
    # Both run the same reader over as many characters; the digits took 7-30x as long.
    assert spent < max(3 * baseline, 0.3), (
        f"{LENGTH} {script} digits took {spent:.2f} s of CPU, words {baseline:.2f} s"
    )


@pytest.mark.parametrize("script", [s for s in SCRIPTS if s not in ("ascii", "chinese-numerals")])
def test_a_year_in_any_digits_reads_as_that_year(data, script: str) -> None:
    year = "".join(SCRIPTS[script][int(d)] for d in "2021")
    said, plain = _ask(f"Apple close price in {year}"), _ask("Apple close price in 2021")
    assert plain.status == "ok"
    assert said.status == plain.status, said.message
    assert said.intent is not None and plain.intent is not None
    assert (said.intent.start, said.intent.end) == (plain.intent.start, plain.intent.end)
