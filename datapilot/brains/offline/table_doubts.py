"""Readings a report table allows more than one of, found before a figure is computed.

A printed statement repeats line labels under several sections ("Continuing operations" under
both basic and diluted earnings per share), prints sections named like rows, and sets columns
of different kinds side by side (shares and dollars, net additions and totals, changes already
computed). When the question does not say which is meant, the honest answer names the choices
instead of computing from the first one found. Each check returns what is unclear (for the
`no_data` message) and the choices, or None when the question settles it.
"""

from __future__ import annotations

import re

from datapilot.brains.offline.table_cells import main_words, percent_row, words
from datapilot.core.context import ClientTable
from datapilot.data.report_tables import ReportTable

Doubt = tuple[str, list[str]]


def settle_row(text: str, table: ReportTable, row: int) -> tuple[int, Doubt | None]:
    """The line the question means, given `row` is the one it names best: a twin printed
    under the section the question names instead, or a doubt when it cannot say which."""
    asked = set(words(text))
    chosen = table.rows[row]
    label = set(words(chosen.label))
    # The same line printed under several sections (amounts and percentages apart, and
    # sections that are only periods, which the columns' years settle).
    twins = [
        i
        for i, r in enumerate(table.rows)
        if i != row
        and set(words(r.label)) == label
        and r.section != chosen.section
        and percent_row(table, i) == percent_row(table, row)
        and words(r.section) != words(chosen.section)
    ]
    if twins:
        named = [
            i
            for i in [row, *twins]
            if table.rows[i].section and set(main_words(table.rows[i].section)) - label <= asked
        ]
        # "Cost of revenue of client services" names "Revenue" too: the fuller heading wins
        headings = {i: set(main_words(table.rows[i].section)) for i in named}
        named = [i for i in named if not any(headings[i] < headings[j] for j in named)]
        if len(named) != 1:
            sections = [table.rows[i].section or "(no section)" for i in [row, *twins]]
            return row, (f'which section\'s "{chosen.label}"', sections)
        row, chosen = named[0], table.rows[named[0]]
    # A section heading the question names whole, holding other lines than the one chosen
    # ("basic earnings per share" heads the cents-per-share lines, and is a row elsewhere);
    # a line after the heading's lines that repeats its name is the heading's own total.
    for section in dict.fromkeys(r.section for r in table.rows if r.section):
        heading = set(main_words(section))
        if section == chosen.section or not heading or not heading <= asked:
            continue
        opened = next(i for i, r in enumerate(table.rows) if r.section == section)
        if label <= heading and not (label == heading and row > opened):
            doubt = f'whether "{chosen.label}" or the lines under "{section}" are meant'
            return row, (doubt, [chosen.label, section])
    return row, None


def other_row_named(text: str, table: ReportTable, row: int) -> Doubt | None:
    """Another line the question names whole, sharing no word with the chosen one: "sale of
    systems" names both "Systems" and "Net sales". Words the chosen line's section explains
    ("basic net income per share": "Basic" under "Net income per share") and the base of a
    percentage ("the percentage of sales represented by …") name no other line."""
    asked = set(words(text)) - _time_words(text)
    chosen = table.rows[row]
    label = set(words(chosen.label)) | set(words(chosen.section))
    base = set()
    for found in _BASE.finditer(text):
        base |= set(words(found["base"]))
    for other in table.rows:
        other_main = set(main_words(other.label))
        if other is chosen or not other_main or other_main & label or other_main <= base:
            continue
        if other_main <= asked:
            doubt = f'one line (the question names both "{chosen.label}" and "{other.label}")'
            return doubt, [chosen.label, other.label]
    return None


_BASE = re.compile(
    r"(?i)\b(?:percent(?:age)?|proportion|share|%)\s+of\s+(?:the\s+)?(?:total\s+)?"
    r"(?P<base>(?:[\w&-]+\s+){0,2}[\w&-]+)"
)


def _time_words(text: str) -> set[str]:
    """Words the question spends on dates ("at the end of the year 2019", "year-end")."""
    spans = re.findall(
        r"(?i)\b(?:(?:at\s+)?(?:the\s+)?(?:end|beginning|start)\s+of\s+(?:the\s+)?"
        r"(?:fiscal\s+)?(?:year|period|quarter)|year[-\s]?end(?:ed)?|as\s+(?:of|at))\b",
        text,
    )
    return set(words(" ".join(spans)))


# A past participle the question puts its figure in ("the liabilities assumed", "the final
# dividend proposed", "the unrevised value", "the warrants issued in August"): the state of the
# amount asked for. A table that prints no such word gives the amount in another state (all
# liabilities, the dividend paid), which the report's text qualifies. "-eed" words (exceed,
# need) and "hundred" are not participles.
_PARTICIPLE = re.compile(r"(?i)\b(?!hundred\b)(?:[a-z]+-)?[a-z]{3,}(?<!e)ed\b")
# Participles that frame a question rather than qualify its figure: how a figure is worked
# out, shown or related ("calculated", "expressed as", "represented by", "based on"), the
# period it ends, or the question's comparison ("exceeded").
_FRAMING = frozenset(
    words(
        "calculated computed derived determined estimated measured analyzed analysed factored "
        "recorded reported provided listed shown presented disclosed stated highlighted "
        "expressed represented composed comprised considered included contained "
        "based related attributed ended exceeded compared weighted"
    )
)


def unprinted_state(text: str, table: ReportTable, sent: ClientTable) -> str | None:
    """A participle qualifying what the question asks ("assumed", "proposed", "unrevised")
    that the table, its title and description never print, or None."""
    printed = " ".join(
        [sent.name, sent.description, *table.columns, *table.notes]
        + [part for row in table.rows for part in (row.label, row.section, *row.cells)]
    )
    held = set(words(printed))
    for found in _PARTICIPLE.finditer(text):
        stems = set(words(found.group(0)))
        if stems and not stems <= held and not stems <= _FRAMING:
            return found.group(0)
    return None
