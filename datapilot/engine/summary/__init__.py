"""The template summary: a first-person account of what was done and what the numbers say.

Every number it writes comes from a `Fact`, formatted with `format_value`, so the text is
grounded by construction. English by default; Chinese when the question is, with the
interfaces' English titles and units said in Chinese and entities called by the names given.

The sentences about what was done are built in `done`, those about what the numbers say in
`numbers`, the words both use in `words`; the Chinese phrase tables live in `data.phrases_zh`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from datapilot.core.intent import Intent
from datapilot.core.plan import Plan, refs_in
from datapilot.core.results import RunResult
from datapilot.data.text import is_chinese
from datapilot.engine.summary.answers import (
    answer_sentences,
    by_subject,
    dates_of,
    path_sentence,
)
from datapilot.engine.summary.averages import close_against_averages
from datapilot.engine.summary.claims import claim_sentence
from datapilot.engine.summary.done import Step, method_sentence, steps_of
from datapilot.engine.summary.kinds import Said, headline, result_kind, window_words
from datapilot.engine.summary.legs import spread_legs
from datapilot.engine.summary.numbers import fact_sentences, key_results, problems_sentence
from datapilot.engine.summary.parts import parts_compared, said_for
from datapilot.engine.summary.races import race_sentences
from datapilot.engine.summary.scaled import moves_in_points, scaled_sentence
from datapilot.engine.summary.words import Words, words_for

if TYPE_CHECKING:
    from datapilot.core.understanding import Understanding

__all__ = [
    "MISSING_DATA_PREFIXES",
    "MOVED_WINDOW_PREFIXES",
    "answer_lead",
    "is_missing_data_note",
    "is_moved_window_note",
    "summary_chunks",
    "template_summary",
    "understood_line",
]


def understood_line(intent: Intent) -> str:
    """The status line for what was understood, in the question's language: "Understood: …" or
    "已理解：…" (front ends show it before the plan)."""
    if is_chinese(intent.rewritten):
        return f"已理解：{intent.rewritten}"
    return f"Understood: {intent.rewritten}"


# A Chinese name ending in a number before a year (标普500 + 2020年第一季度): kept apart, never
# read as one number (标普5002020年).
_NAME_THEN_YEAR = re.compile(r"(?<=[\u4e00-\u9fff])(\d{1,3})(?=(?:19|20)\d\d年)")


def template_summary(
    question: str,
    understanding: Understanding,
    run: RunResult,
    names: Mapping[str, str] | None = None,
) -> str:
    """First-person summary naming the tasks and interfaces used and quoting the key facts.

    `names` maps entity ids to what to call them in the question's language (苹果 for AAPL);
    without it the intent's names are used.
    """
    return "".join(summary_chunks(question, understanding, run, names))


def summary_chunks(
    question: str,
    understanding: Understanding,
    run: RunResult,
    names: Mapping[str, str] | None = None,
) -> list[str]:
    """The summary as sentences (with their separating spaces), for streaming one at a time."""
    sentences = _sentences(question, understanding, run, names)
    if is_chinese(question):
        return [_NAME_THEN_YEAR.sub(r"\1 ", sentence) for sentence in sentences]
    return [sentence if i == 0 else " " + sentence for i, sentence in enumerate(sentences)]


def _sentences(
    question: str,
    understanding: Understanding,
    run: RunResult,
    names: Mapping[str, str] | None,
) -> list[str]:
    """Moved-window note, the answer, notes on missing data, other results, method, problems."""
    w = words_for(is_chinese(question), understanding, names)
    zh = w.zh
    plan = understanding.plan or Plan()
    steps = steps_of(plan, run)
    done = [step for step in steps if step.record.status == "ok"]
    key = key_results(steps)
    lead = headline(key)
    intent = understanding.intent
    said = _said(w, intent, steps)
    notes = [*understanding.notes, *run.notes]
    sentences = [note for note in notes if is_moved_window_note(note)]
    answer = _answer(lead, said_for(lead, said, intent) if lead else said)
    # The high less the low beside the extremes it spans: the range is what a scale in basis
    # points asks, said after its own sentence below.
    moves_apart = lead is not None and not moves_in_points(lead)
    moves_apart = moves_apart and any(
        s.call.interface == "high_low_range" and moves_in_points(s) for s in key if s is not lead
    )
    answer += scaled_sentence(lead, intent, w) if answer and not moves_apart else []
    answer += claim_sentence(lead, intent, w) if answer else []
    answer += _legs_compared(lead, said, steps) if answer else []
    answer += race_sentences(lead, question, w) if answer else []
    sentences += answer
    sentences += [note for note in notes if is_missing_data_note(note)]
    for step in key:
        if step is not lead:
            supporting = _supporting(step, lead, said_for(step, said, intent))
            sentences += supporting
            if supporting and moves_in_points(step) and lead and not moves_in_points(lead):
                # the move between two levels asked in basis points (the answer's own figure,
                # restated first, is a level)
                sentences += scaled_sentence(step, intent, w)
    sentences += parts_compared(key, intent, said)
    if done:
        sentences.append(method_sentence(plan, done, understanding, w, dated=not answer))
    problems = [step for step in steps if step.record.status != "ok"]
    if problems:
        sentences.append(problems_sentence(problems, zh))
    if not done:
        sentences.append("我没有得到可以报告的结果。" if zh else "I have no results to report.")
    return sentences


def _said(w: Words, intent: Intent | None, steps: list[Step]) -> Said:
    """What the sentences of an answer share: its words, window, results by name and inputs."""
    return Said(
        w,
        when=window_words(intent, w.zh),
        frames={s.record.output: s.value for s in steps if isinstance(s.value, pd.DataFrame)},
        entities=len(intent.entities) if intent else 0,
        inputs={s.record.output: list(refs_in(s.call.args)) for s in steps},
    )


def answer_lead(
    question: str,
    understanding: Understanding,
    run: RunResult,
    names: Mapping[str, str] | None = None,
) -> list[str]:
    """The sentences a summary starts with: the moved-window note, if any, then the answer
    (the figure, its unit, dates and base). The model's summary is asked to start the same way."""
    w = words_for(is_chinese(question), understanding, names)
    steps = steps_of(understanding.plan or Plan(), run)
    intent = understanding.intent
    said = _said(w, intent, steps)
    notes = [*understanding.notes, *run.notes]
    moved = [note for note in notes if is_moved_window_note(note)]
    lead = headline(key_results(steps))
    return moved + _answer(lead, said_for(lead, said, intent) if lead else said)


def _answer(lead: Step | None, said: Said) -> list[str]:
    if lead is None:
        return []
    said_first = answer_sentences(lead, said) or fact_sentences(lead, said.w)
    return said_first + spread_legs(lead, said) + close_against_averages(lead, said)


def _legs_compared(lead: Step | None, said: Said, steps: list[Step]) -> list[str]:
    """A difference between two dates' spreads: each spread's legs, as a spread alone has them."""
    compared = said.inputs.get(lead.record.output, []) if lead is not None else []
    return [line for s in steps if s.record.output in compared for line in spread_legs(s, said)]


def _supporting(step: Step, lead: Step | None, said: Said) -> list[str]:
    """What another key result adds to the answer, without saying the answer again."""
    kind = result_kind(step.value)
    lead_kind = result_kind(lead.value) if lead is not None else ""
    if (
        kind == "percent_series"
        and lead is not None
        and not _other_window(step, lead)
        and not _a_rates_part(step, lead)
    ):
        return []  # the returns an answer was computed from: the chart shows them
    if (
        lead is not None
        and _title(step)
        and _title(step) == _title(lead)
        and _cut_of(step.value, lead.value)
    ):
        return []  # a cut of the answer's own result (its last rows): the answer said it
    if kind == "cumulative" and lead_kind in {"period_return", "cagr"}:
        # Its end is the period return already said; its path is what it adds (of one name:
        # "it peaked" would not say whose of several).
        subjects = by_subject(step.record.facts)
        return [
            path_sentence(subject, m, said.w, dates_of(step.value))
            for subject, m in subjects.items()
            if len(subjects) == 1 and "high" in m and "low" in m
        ]
    said_first = answer_sentences(step, said) or fact_sentences(step, said.w)
    return said_first + spread_legs(step, said) + close_against_averages(step, said)


def _a_rates_part(step: Step, lead: Step) -> bool:
    """Whether `step` is a rate's own values (no returns) beside the statistics leading the
    answer: its move is said too ("the change from 1973Q4 to 1975Q2, and the peak over
    1974-1976")."""
    frame, first = step.value, lead.value
    if frame.attrs.get("returns_from") is not None or not isinstance(first, pd.DataFrame):
        return False
    if isinstance(first.index, pd.DatetimeIndex) or not {"min", "max"} <= set(first.columns):
        return False
    return isinstance(frame.index, pd.DatetimeIndex) and not frame.empty


def _other_window(step: Step, lead: Step) -> bool:
    """Whether `step` is a series over other dates than the lead's (a part of its own: "at the
    end of March 2020 and at the end of April 2020"), which the answer must say too."""
    frame, first = step.value, lead.value
    if not isinstance(frame, pd.DataFrame) or not isinstance(first, pd.DataFrame):
        return False
    if not isinstance(frame.index, pd.DatetimeIndex) or not isinstance(
        first.index, pd.DatetimeIndex
    ):
        return False
    if frame.empty or first.empty:
        return False
    # (or beyond it from the same start: "the spread in Feb 2016 and in Oct 2016, and how much
    # it tightened" runs a third part from February to October)
    inside = frame.index.isin(first.index)
    return not inside.any() or (bool(inside[0]) and not inside.all() and len(first) == 1)


def _cut_of(frame: object, lead: object) -> bool:
    """Whether `frame` holds only rows and columns of `lead`, with the same values; a result of
    the same kind over another window (a part of its own) is not one."""
    if not isinstance(frame, pd.DataFrame) or not isinstance(lead, pd.DataFrame):
        return False
    if not frame.index.isin(lead.index).all() or not set(frame.columns) <= set(lead.columns):
        return False
    try:
        return bool(frame.equals(lead.loc[frame.index, list(frame.columns)]))
    except (KeyError, ValueError, TypeError):  # duplicate labels and the like: not a plain cut
        return False


def _title(step: Step) -> str:
    value = step.value
    return str(value.attrs.get("title") or "") if isinstance(value, pd.DataFrame) else ""


# The note the time grammar writes when a relative window was moved onto the data's last date
# (it comes first), and notes about entities left out for lack of data (right after the answer).
MOVED_WINDOW_PREFIXES = (
    "The bundled data ends on",
    "The imported data ends on",
    "The data ends on",
    "内置数据截至",
    "导入的数据截至",
    "数据截至",
)
MISSING_DATA_PREFIXES: tuple[str, ...] = ("I don't know", "我不认识", "I have no bundled data for")
MISSING_DATA_PREFIXES += ("本地没有", "No prices in the window for", "No data for")
MISSING_DATA_MARKS = (", so the answer covers", "，所以只回答")


def is_moved_window_note(note: str) -> bool:
    """Whether a note says the window was moved to end on the data's last date."""
    return note.startswith(MOVED_WINDOW_PREFIXES)


def is_missing_data_note(note: str) -> bool:
    """Whether a note says some entity was left out of the answer for lack of data."""
    return note.startswith(MISSING_DATA_PREFIXES) or any(m in note for m in MISSING_DATA_MARKS)
