"""The rows a table question names beyond one line: the two sides of a ratio, share or
difference (split where both sides name a row best), a share of a column total, several rows
"X and Y respectively", the rows printed under a section.
"""

from __future__ import annotations

import re

from datapilot.brains.offline.table_cells import (
    GOOD_MATCH,
    find_rows,
    literal_columns,
    one_row,
    row_score,
    words,
)
from datapilot.data.report_tables import ReportTable

TWO_ROWS = (
    re.compile(r"(?i)\bratio\s+of\s+(?P<a>.+?)\s+(?:to|and|over|against)\s+(?P<b>.+)"),
    re.compile(
        r"(?i)(?P<a>\b[\w-]+(?:\s+[\w-]+)?)[-\s]to[-\s](?P<b>[\w-]+(?:\s+[\w-]+)?)\s+ratio\b"
    ),
    re.compile(
        r"(?i)(?:percentage|proportion|share|fraction|portion|percent)\s+(?:\w+\s+)?(?:of|constitution of)\s+(?P<a>.+?)\s+(?:in|out of|among|over|within)\s+(?:the\s+)?(?P<b>.+)"  # noqa: E501
    ),
    re.compile(
        r"(?i)(?:percentage|proportion|share|fraction|portion|percent)\s+(?:\w+\s+)?(?:of|constitution of)\s+(?P<a>.+?)\s+(?:of|to|from)\s+(?:the\s+)?(?P<b>.+)"  # noqa: E501
    ),
    re.compile(r"(?i)(?P<a>.+?)\s+as\s+a\s+(?:percentage|proportion|%)\s+of\s+(?P<b>.+)"),
    re.compile(
        r"(?i)\b(?P<how>difference|change)\b(?:\s+in\s+[^?]{1,60}?)?\s+between\s+(?:the\s+)?"
        r"(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>.+)"
    ),
    re.compile(
        r"(?i)\bhow\s+much\s+(?:more|less|higher|lower)\s+(?P<a>.+?)\s+(?:as\s+)?"
        r"(?:compared\s+(?:to|with)|than)\s+(?P<b>.+)"
    ),
    re.compile(r"(?P<a>.+?)占(?P<b>.+?)的?(?:比例|比重|百分比)"),
)


def two_rows(text: str, operation: str, table: ReportTable) -> tuple[str, str] | None:
    """The two row phrases of a ratio, share or difference; where the joining word ("and",
    "to", "of") occurs several times, the split whose two sides both name rows best."""
    patterns = {"ratio": TWO_ROWS[:2], "proportion": TWO_ROWS[2:5] + TWO_ROWS[7:],
                "difference": TWO_ROWS[5:7]}.get(operation, ())  # fmt: skip
    for pattern in patterns:
        found = pattern.search(text)
        if not (found and words(found["a"]) and words(found["b"])):
            continue
        joiner = text[found.end("a") : found.start("b")]
        whole = found["a"] + joiner + found["b"]
        splits = [(found["a"], found["b"])]
        for at in [m.start() for m in re.finditer(re.escape(joiner), whole)]:
            left, right = whole[:at], whole[at + len(joiner) :]
            if words(left) and words(right) and (left, right) not in splits:
                splits.append((left, right))
        best = max(splits, key=lambda split: split_quality(split, table))
        if "how" in found.groupdict() and (found["how"] or "").lower() == "change":
            return best[1], best[0]  # "the change between Q3 and Q4": Q4 less Q3
        return best
    return None


ALL_ROWS = re.compile(r"(?i)\b(?:all|every|each)\b|\bsum\s+of\b|所有|全部")


def section_rows(text: str, table: ReportTable, keep_totals: bool = False) -> list[int]:
    """ "The sum of all tax credit carryforwards": the rows printed under the section the
    question names (its total line left out, unless `keep_totals`)."""
    asked = set(words(text))
    sections = {row.section for row in table.rows if row.section}
    scored = []
    for section in sections:
        named = words(section)
        if named and all(w in asked for w in named):
            scored.append((len(named), section))
    if not scored:
        return []
    section = max(scored)[1]
    return [
        i
        for i, row in enumerate(table.rows)
        if row.section == section
        and row.label
        and (keep_totals or not re.search(r"(?i)\btotal\b", row.label))
    ]


def headed_rows(text: str, table: ReportTable) -> list[int]:
    """ "The total monetary assets": the lines printed as that name and a qualifier after a
    comma ("Monetary assets, current", "Monetary assets, non-current"), when the table prints
    no line of the name alone; [] unless one such name is the question's."""
    asked = set(words(text))
    groups: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(table.rows):
        head, comma, _ = row.label.partition(",")
        if comma and head.strip():
            groups.setdefault((row.section, head.strip().casefold()), []).append(i)
    named = [
        (len(words(head)), rows)
        for (_, head), rows in groups.items()
        if len(rows) >= 2 and words(head) and set(words(head)) <= asked
    ]
    if not named:
        return []
    best = max(size for size, _ in named)
    top = [rows for size, rows in named if size == best]
    return top[0] if len(top) == 1 else []


# A line that closes a list of components: a total, a gross or sub-total, a deduction.
_CLOSING_LINE = re.compile(
    r"(?i)\btotal\b|^(?:gross|subtotal|sub-total|less|allowance|accumulated)\b|合计|总计|小计"
)


# The table as a whole named as what holds the lines ("What financial items are listed in the
# table?", "the items shown in this table").
_WHOLE_TABLE = re.compile(
    r"(?i)\b(?:listed|included|shown|presented|given|in)\s+(?:in\s+)?(?:the|this)\s+table\b"
)


_TIMES_ASKED = re.compile(r"(?i)\b(?:dates|years|periods|quarters|months)\b")


def listed_lines(text: str, table: ReportTable) -> list[int]:
    """ "What are the components under deferred tax liabilities?": the lines printed under the
    section the question names, down to the line that closes them (a total, a gross or a
    deduction, or a line whose figure is the sum of the lines above it); each label once.
    "What financial items are listed in the table?" names no section: the table's own lines,
    when it prints no sections, down to the line that closes them."""
    rows = section_rows(text, table, keep_totals=True)
    if (
        not rows
        and _WHOLE_TABLE.search(text)
        and not _TIMES_ASKED.search(text)  # "the 3 dates listed in the table": its columns
        and not any(r.section for r in table.rows)
    ):
        rows = [i for i, row in enumerate(table.rows) if row.label]
    listed: list[int] = []
    for i in rows:
        row = table.rows[i]
        if listed and (
            _CLOSING_LINE.search(row.label)
            or _sums_the_above(table, listed, i)
            or _deducted(table, listed, i)
        ):
            break
        if row.label not in {table.rows[j].label for j in listed}:
            listed.append(i)
    return listed if len(listed) >= 2 else []


def _deducted(table: ReportTable, above: list[int], row: int) -> bool:
    """Whether `row` is printed as a deduction (in brackets) under lines that are not."""
    for column in range(len(table.columns)):
        value = table.rows[row].value(column)
        if value is not None:
            before = [table.rows[i].value(column) for i in above]
            return value < 0 and all(v is not None and v >= 0 for v in before)
    return False


def _sums_the_above(table: ReportTable, above: list[int], row: int) -> bool:
    """Whether `row`'s figure in the first column all of them print is the sum of `above`."""
    for column in range(len(table.columns)):
        values = [table.rows[i].value(column) for i in [*above, row]]
        known = [v for v in values if v is not None]
        if len(known) == len(values) and len(above) >= 2:
            *parts, total = known
            return abs(sum(parts) - total) <= 0.51 + 1e-9
    return False


def split_quality(split: tuple[str, str], table: ReportTable) -> float:
    """How well both sides of a split name a row each."""
    return sum(max((m.score for m in find_rows(part, table)[:1]), default=0.0) for part in split)


def column_pair(pair: tuple[str, str], table: ReportTable) -> tuple[list[int], list[int]] | None:
    """ "the operating leases of more than 5 years in the total operating leases": one row,
    the part's column over the total's."""
    row, _ = one_row(pair[0], table)
    columns = []
    for part in pair:
        found = literal_columns(part, table, table.value_columns)
        if not found:
            said = set(words(part))
            scored = {j: len(set(words(table.columns[j])) & said) for j in table.value_columns}
            best = max(scored.values(), default=0)
            found = [j for j, n in scored.items() if n == best and n > 0]
        if len(found) != 1:
            return None
        columns.append(found[0])
    if row is None or columns[0] == columns[1]:
        return None
    if one_row(re.sub(r"(?i)\btotal\b", " ", pair[1]), table)[0] != row:
        return None
    return [row], columns


def distinct(pair: tuple[str, str], table: ReportTable) -> bool:
    found = [one_row(part, table)[0] for part in pair]
    return None not in found and found[0] != found[1]


def of_total(text: str, table: ReportTable) -> tuple[str, str] | None:
    """ "What percentage of total X is Y": Y over the row labelled total that the question
    names, as label texts to be found again."""
    totals = [i for i, r in enumerate(table.rows) if "total" in r.label.casefold()]
    parts = [i for i in range(len(table.rows)) if i not in totals]
    if not totals or not parts:
        return None
    asked = words(text)
    part = max(parts, key=lambda i: row_score(asked, table, i))
    total = max(totals, key=lambda i: row_score(asked, table, i))
    if row_score(asked, table, part) < GOOD_MATCH * 0.8:
        return None
    return table.rows[part].label, table.rows[total].label


def several_rows(text: str, table: ReportTable) -> list[int]:
    parts = re.split(r"(?i)\s*,\s*|\s+and\s+|、|和", text)
    found: list[int] = []
    for part in parts:
        if not words(part):
            continue
        row, _ = one_row(part, table)
        if row is not None and row not in found:
            found.append(row)
    return found if len(found) >= 2 else []
