"""The question restated with explicit dates, as Data-Copilot does before planning."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from datapilot.brains.offline.windows import Clause


def rewrite(
    text: str,
    clauses: Sequence[Clause],
    *,
    start: date | None,
    end: date | None,
    today: date,
    zh: bool,
    refers_to: Sequence[str] = (),
) -> str:
    """`text` with each time phrase replaced by its dates; the window appended when the question
    had none; `refers_to` (a follow-up's entities) appended too."""
    pieces: list[str] = []
    cursor = 0
    replaced = False
    for clause in sorted(clauses, key=lambda c: c.span[0]):
        first, last = clause.span
        if first < cursor or clause.rule == "horizon" or last > len(text):
            continue
        if text[first:last].strip() != clause.text:
            continue  # a clause of the previous question
        if clause.start is not None and clause.start > today:
            continue  # a forecast target stays as written
        begin = start if clause.rule == "first" else clause.start
        finish = min(clause.end or today, today)
        pieces += [text[cursor:first], window_words(begin, finish, zh)]
        cursor = last
        replaced = True
    pieces.append(text[cursor:])
    rewritten = "".join(pieces)
    extra: list[str] = [", ".join(refers_to)] if refers_to else []
    if not replaced and start and end:
        extra.append(window_words(start, end, zh))
    if extra:
        rewritten += f"（{'，'.join(extra)}）" if zh else f" ({'; '.join(extra)})"
    return rewritten


def window_words(start: date | None, end: date | None, zh: bool) -> str:
    if zh:
        if start is None:
            return f"截至{zh_date(end)}" if end else ""
        return zh_date(start) if start == end else f"从{zh_date(start)}到{zh_date(end)}"
    if start is None:
        return f"up to {end}" if end else ""
    return f"on {start}" if start == end else f"from {start} to {end}"


def zh_date(day: date | None) -> str:
    return f"{day.year}年{day.month}月{day.day}日" if day else ""
