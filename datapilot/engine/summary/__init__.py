"""The template summary: a first-person account of what was done and what the numbers say.

Every number it writes comes from a `Fact`, formatted with `format_value`, so the text is
grounded by construction. English by default; Chinese when the question is, with the
interfaces' English titles and units said in Chinese and entities called by the names given.

The sentences about what was done are built in `done`, those about what the numbers say in
`numbers`, the words both use in `words`; the Chinese phrase tables live in `phrases_zh`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from datapilot.core.intent import Intent
from datapilot.core.plan import Plan
from datapilot.core.results import RunResult
from datapilot.data.text import is_chinese
from datapilot.engine.summary.done import actions_sentence, steps_of, tasks_sentence
from datapilot.engine.summary.numbers import fact_sentences, key_results, problems_sentence
from datapilot.engine.summary.words import words_for

if TYPE_CHECKING:
    from datapilot.core.understanding import Understanding

__all__ = ["summary_chunks", "template_summary", "understood_line"]


def understood_line(intent: Intent) -> str:
    """The status line for what was understood, in the question's language: "Understood: …" or
    "已理解：…" (front ends show it before the plan)."""
    if is_chinese(intent.rewritten):
        return f"已理解：{intent.rewritten}"
    return f"Understood: {intent.rewritten}"


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
        return sentences
    return [sentence if i == 0 else " " + sentence for i, sentence in enumerate(sentences)]


def _sentences(
    question: str,
    understanding: Understanding,
    run: RunResult,
    names: Mapping[str, str] | None,
) -> list[str]:
    w = words_for(is_chinese(question), understanding, names)
    zh = w.zh
    plan = understanding.plan or Plan()
    steps = steps_of(plan, run)
    sentences = []
    if plan.tasks:
        sentences.append(tasks_sentence(plan, zh))
    done = [step for step in steps if step.record.status == "ok"]
    if done:
        sentences.append(actions_sentence(done, understanding, w))
    for step in key_results(steps):
        sentences.extend(fact_sentences(step, w))
    problems = [step for step in steps if step.record.status != "ok"]
    if problems:
        sentences.append(problems_sentence(problems, zh))
    if not done:
        sentences.append("我没有得到可以报告的结果。" if zh else "I have no results to report.")
    return sentences
