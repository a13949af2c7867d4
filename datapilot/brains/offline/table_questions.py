"""Arithmetic questions over report tables the client sent, read without a model.

"What was the percentage change in total assets from 2018 to 2019?", "average other assets for
2018 and 2019", "the ratio of current to non-current deferred revenue", 2019年营业收入比2018年增长
了多少: the operation comes from the question's words, the columns from the years (or column
words) it names, the rows from the line labels it names by meaning (case, plurals, abbreviations,
word order, a row under its section). The plan is one `report_figure` call naming the cells.

A question this reader recognises as table arithmetic but whose row or column it cannot find is
answered `no_data`, naming what was not found and the closest rows or columns: never `ok` with
something else. Questions it does not recognise go to the general table reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from datapilot.brains.offline.builder import PlanBuilder
from datapilot.brains.offline.table_cells import (
    GOOD_MATCH,
    RANGE,
    find_columns,
    find_rows,
    one_row,
    rows_carry_years,
    words,
    years_named,
)
from datapilot.brains.offline.table_doubts import other_row_named, settle_row, unprinted_state
from datapilot.brains.offline.table_rows import (
    ALL_ROWS,
    column_pair,
    distinct,
    headed_rows,
    listed_lines,
    of_total,
    section_rows,
    several_rows,
    two_rows,
)
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.core.intent import EntityRef, Intent
from datapilot.core.understanding import Understanding
from datapilot.data.report_tables import (
    SCALE_FACTORS,
    ReportTable,
    read_report,
    report_shaped,
)

CJK = re.compile(r"[\u4e00-\u9fff]")
_DESCRIBE = re.compile(
    r"(?i)\b(?:summari[sz]e|summary|overview|describe|what(?:'s| is) in)\b|总结|概述|概括"
)
_CONDITION = re.compile(
    r"(?i)(?:\b(?:less|more|greater|fewer|lower|higher)\s+than|\b(?:above|below|exceed(?:s|ed)?|under|over))"
    r"\s+[-−]?\$?\d[\d,.]*(?!\s*(?:years?|months?|days?|weeks?)\b)(?![\d,.])"
)
_LISTING = re.compile(
    r"(?i)^\s*(?:what|which)\s+(?:are|were)\s+the\s+(?:\w+\s+){0,3}(?:types|kinds|components|items|categories|segments|elements)\b"
    r"|^\s*what\s+(?:types|kinds|components|items|categories)\b|\bconsist\s+of\b|\blisted\b"
    r"|\bhow\s+many\s+(?:\w+\s+)?(?:categories|components|items|types|kinds|segments|elements)\b"
)
_WHICH_YEAR = re.compile(
    r"(?i)\b(?:which|what)\s+(?:(?:fiscal|financial|calendar)\s+)?(?:year|period)\b|哪一?年"
)
# What a report's text says rather than its table: why a line moved, who someone is, what a
# line means or holds, how it is worked out. A figure from the table answers something else.
_WHY_WHO = re.compile(r"(?i)^\s*(?:why\b|who\s+(?:is|was|are|were)\b)|为什么|为何|是谁")
_MEANING = re.compile(
    r"(?i)\bwhat\s+(?:does|do|did)\b[^?]*\b(?:represent|mean|refer\s+to|include|comprise|"
    r"consist|stand\s+for|relate\s+to|entail)s?\b|\b(?:comprised|composed|made\s+up)\s+of\b"
    r"|\bhow\s+(?:is|are|was|were)\b[^?]*\b(?:derived|calculated|computed|determined|defined|"
    r"measured)\b|指的?是什么|是什么意思|如何计算|怎么计算|怎样计算|由哪些"
)
_CHART = re.compile(r"(?i)\b(?:plot|chart|draw|graph|visuali[sz]e)\b|画|图")
_OPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "pct_change",
        re.compile(
            r"(?i)\bpercent(?:age)?\s*(?:change|increase|decrease|growth|decline|rise|drop|fall)"
            r"|%\s*change|\bgrowth\s+rate|\brate\s+of\s+(?:change|growth)|增长率|变化率|增幅|降幅|变动率"
            r"|增长了?百分之|同比增长"
        ),
    ),
    (
        "proportion",
        re.compile(
            r"(?i)\b(?:percentage|proportion|share|fraction|portion|percent)\b(?:\s+\w+){0,2}\s+"
            r"(?:of|constitution)\b|\bas\s+a\s+(?:percentage|proportion|%)|占.*(?:比例|比重|百分比)"
        ),
    ),
    ("ratio", re.compile(r"(?i)\bratio\b|之比|比率")),
    ("difference", re.compile(r"(?i)\bhow\s+much\s+(?:more|less|higher|lower)\b|多(?:出|了)多少")),
    # "weighted average" names a measure (the weighted-average exchange rate), not an operation
    ("average", re.compile(r"(?i)(?<!weighted[\s-])\baverage\b|\bmean\b|(?<!加权)平均")),
    (
        "change",
        re.compile(
            r"(?i)\b(?:change[ds]?|increase[ds]?|decrease[ds]?|difference|growth|grew|decline[ds]?|"
            r"variance|movement)\b|变化|变动|增加|减少|增长|下降|差额|相差|增减"
        ),
    ),
    ("sum", re.compile(r"(?i)\bsum\b|\bcombined\b|\baltogether\b|\bin\s+total\b|合计|总和|加起来")),
    ("extreme", re.compile(r"(?i)\b(?:which|what)\s+(?:year|period)|\bin\s+which\b|哪一?年|哪个")),
)
_MAX = re.compile(r"(?i)\b(?:largest|highest|greatest|most|larger|higher|greater|more|bigger|max)"
                  r"|最大|最高|最多|更大|更高|更多")  # fmt: skip
_MIN = re.compile(r"(?i)\b(?:smallest|lowest|least|smaller|lower|less|fewer|min)|最小|最低|最少")


@dataclass
class Asked:
    """What the question asks of the table, resolved to cells, or what could not be found."""

    operation: str
    rows: list[int] = field(default_factory=list)
    columns: list[int] = field(default_factory=list)
    subject: str = ""
    missing: str = ""
    closest: list[str] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    threshold: float | None = None


def operation_of(text: str) -> str | None:
    if _WHICH_YEAR.search(text) and (_MAX.search(text) or _MIN.search(text)):
        # "In which year was the net debt to EBITDA ratio larger?": a year, not a ratio
        return "max" if _MAX.search(text) else "min"
    for name, pattern in _OPS:
        if pattern.search(text):
            if name == "extreme":
                if _MAX.search(text):
                    return "max"
                if _MIN.search(text):
                    return "min"
                continue
            return name
    return None


# Items asked by name ("What services have their costs included within the audit fees?", "What
# charges does the table summarize …", "How many services have …"): names, or a count of them,
# never one line's figure. Time nouns ("which years does the table show") are read elsewhere.
_ITEMS_ASKED = re.compile(
    r"(?i)^\s*(?:what|which)\s+(?:are\s+the\s+)?(?P<noun>[a-z]+s)\s+(?:in\s+the\s+table\s+)?"
    r"(?:have|has|are|were|does|do|did|is|was|whereby)\b"
    r"|^\s*how\s+many\s+(?P<noun2>[a-z]+s)\s+(?:have|has)\b"
)
_TIME_NOUNS = frozenset({"years", "periods", "months", "quarters", "dates", "days", "weeks"})


def items_asked(text: str) -> bool:
    """Whether `text` asks which items (by name) rather than a figure."""
    found = _ITEMS_ASKED.search(text)
    return found is not None and (found["noun"] or found["noun2"]).lower() not in _TIME_NOUNS


def not_a_figure(text: str) -> bool:
    """Whether `text` asks what a report's text says rather than a figure of its table: why a
    line moved, who someone is, what a line means or holds, how it is worked out."""
    return _WHY_WHO.search(text) is not None or (
        operation_of(text) is None and _MEANING.search(text) is not None
    )


def read_table_question(text: str, table: ReportTable) -> Asked | None:
    """The cells `text` asks about in `table` and the operation, or None for a question that
    is not table arithmetic (left to the general reader). Cells of other years than every
    year the question names answer another question ("Fiscal 2018" beside columns of 2019)."""
    moved = table.movement_years() if years_named(text) else None
    table = moved or table  # (a roll-forward table's movements labelled by year, rows in place)
    asked = _read_table_question(text, table)
    if asked is not None and not asked.missing and rows_carry_years(table):
        _lines_of_the_years(text, table, asked, movements=moved is not None)
    if asked is None or asked.missing or not asked.columns:
        return asked
    if _LENGTH_ASKED.search(text) and not any(
        _LENGTH_WORDS.search(
            " ".join([table.rows[i].label, table.columns[j], table.rows[i].cells[j]])
        )
        for i in asked.rows
        for j in asked.columns
        if j < len(table.rows[i].cells)
    ):
        # "How many years is the minimum lifespan of …": a length, which an amount is not.
        asked.missing = "a length in years, months or days (the cells found are amounts)"
        asked.closest = [table.rows[i].label for i in asked.rows]
        return asked
    named = years_named(text)
    printed = {year for j in asked.columns for year in table.years(j)}
    if named and printed and not set(named) & printed:
        asked.missing = f"the columns of {' and '.join(named)}"
        asked.closest = [table.columns[j] for j in table.value_columns][:5]
    elif (
        asked.operation in ("proportion", "ratio", "ratio_columns")
        and _RESPECTIVELY.search(text)
        and len(named) > len(printed)
    ):
        # "the respective proportion … in 2017 and 2018": one figure for each year
        asked.missing = f"one figure for each of {' and '.join(named)} (asked respectively)"
    return asked


def _read_table_question(text: str, table: ReportTable) -> Asked | None:
    operation = operation_of(text) or "value"
    if operation == "proportion" and _CHANGE_OF_SHARE.search(text):
        operation = "change"  # "the increase in percentage of net revenues": a change of a row
    if (
        operation == "value"
        and (RANGE.search(text) or _ALL_YEARS.search(text))
        and re.search(r"(?i)\btotal\b", text)
        and not _RESPECTIVELY.search(text)
    ):
        operation = "sum"  # "the total X between 2017 to 2019", "… across all 3 years"
    if operation == "change" and len(years_named(text)) <= 1 and _named_in_a_line(text, table):
        operation = "value"  # "the Net decrease in cash in 2019": a line's figure
    if operation == "change" and _between_rows(text) and len(years_named(text)) <= 1:
        operation = "difference"
    asked = Asked(operation=operation)
    bound = _CONDITION.search(text)
    if bound and _YEARS_WHEN.search(text):
        # "Which years did net sales exceed $1,000,000 thousand?": the years past the bound.
        return _years_past(text, table, asked, bound)
    lines = listed_lines(text, table) if not bound and _LISTING.search(text) else []
    if lines:
        # "What are the components under deferred tax liabilities?": the section's own lines
        asked.operation = "count_lines" if _HOW_MANY.search(text) else "lines"
        asked.rows, asked.subject = lines, table.rows[lines[0]].section
        return asked
    if bound or _LISTING.search(text):
        asked.missing = (
            "a single figure to compute (the question asks for rows meeting a condition or a list)"
        )
        return asked
    named = {name for name, pattern in _OPS if pattern.search(text) and name != "extreme"}
    if "average" in named and len(named) > 1 and _averaged_line(text, table):
        named.discard("average")  # "the change in the Average invested capital": its name
    if "average" in named and "proportion" in named and _printed_shares(text, table):
        # "the average percentage of net revenues of OEM": the shares the line prints, averaged
        named.discard("proportion")
        operation = asked.operation = "average"
    if "average" in named and "change" in named and _change_in_line(text, table):
        # "the average net change in cash balance": the line's name says "change"
        named.discard("change")
        operation = asked.operation = "average"
    if _WHICH_YEARS.search(text):
        # "In which years was X calculated?": the row's figures in every year it is given for.
        asked.operation = "value"
        return _every_year(text, table, asked)
    composite = named & {"pct_change", "ratio", "proportion"} and _SUM_OF.search(text)
    if "average" in named and named & {"change", "difference"} and not named & _SHARES:
        # "the difference between average A and average B", "the change between the 2018 and
        # 2019 average free cash flow": two averages, then their difference
        compared = _averages_compared(text, table, asked)
        if compared is not None:
            return compared
    if composite or (
        "average" in named and named & {"change", "pct_change", "ratio", "proportion"}
    ):
        # An average of changes, a change of averages: not one of the operations read here.
        asked.missing = "one operation to compute (the question combines several)"
        return asked
    if "ratio" in named and named & {"change", "pct_change"}:
        ranked = find_rows(text, table)
        if (
            ranked
            and ranked[0].score >= GOOD_MATCH
            and _RATIO_ROW.search(table.rows[ranked[0].row].label)
        ):
            operation = asked.operation = next(n for n in ("pct_change", "change") if n in named)
        else:
            # "the change in current ratio": a ratio of each year, then their change
            asked.missing = "one operation (a change of a ratio the table does not print)"
            return asked
    if _WHICH_ROW.search(text) and (_MAX.search(text) or _MIN.search(text)):
        computed = named & {"pct_change", "change", "ratio", "proportion", "average"}
        if computed:
            # "Which segment has a higher percentage change?": rows ranked by a figure each
            # would need computed first, never by the values printed in one column.
            said = next(n for n in _COMPUTED_NAMES if n in computed)
            asked.missing = f"a ranking of the rows by their {_COMPUTED_NAMES[said]}"
            asked.closest = [r.label for r in table.rows if r.label][:5]
            return asked
        asked.operation = "max" if _MAX.search(text) else "min"
        return _row_extreme(text, table, asked)
    pair = two_rows(text, operation, table)
    if operation == "ratio" and pair is None:
        operation = asked.operation = "ratio_columns"
    totals = [j for j in table.value_columns if "total" in table.columns[j].casefold()]
    if (
        operation == "proportion"
        and pair is not None
        and (not distinct(pair, table) or (totals and "total" in pair[1].casefold()))
    ):
        across = column_pair(pair, table)
        if across is not None:
            asked.rows, asked.columns = across
            asked.subject = table.rows[across[0][0]].label
            return asked
    shares_printed = operation == "proportion" and _base_named(text, table)
    if shares_printed:
        # "the percentage of sales represented by gross profit" where the sales line prints
        # 100%: each line's own figure is its share of sales
        operation = asked.operation = "value"
        pair = None
    if operation == "proportion":
        pair = pair if pair is not None and distinct(pair, table) else None
        if pair is None:
            part_of_total = of_total(text, table)
            if part_of_total is None:
                asked.missing = "the part and the total of the proportion"
                asked.closest = [r.label for r in table.rows if "total" in r.label.casefold()][:5]
                return asked
            pair = part_of_total
            parts = [i for i in several_rows(text, table) if not _TOTAL.search(table.rows[i].label)]
            if len(parts) >= 2:
                listed = ", ".join(table.rows[i].label for i in parts)
                asked.missing = f"one row for the part (the question adds several: {listed})"
                return asked
    if pair is not None:
        for part in pair:
            joined = several_rows(part, table)
            whole, _ = one_row(part, table)
            if len(joined) >= 2 and (
                whole is None or not re.search(r"\band\b|&", table.rows[whole].label)
            ):
                listed = ", ".join(table.rows[i].label for i in joined)
                asked.missing = f"one row for each side (the question adds several: {listed})"
                return asked
        rows = []
        for part in pair:
            row, closest = one_row(part, table)
            if row is None:
                asked.missing, asked.closest = part.strip(" ?"), closest
                return asked
            row, doubt = settle_row(text, table, row)
            if doubt:
                asked.missing, asked.closest = doubt
                return asked
            rows.append(row)
        asked.rows = rows
        asked.subject = f"{table.rows[rows[0]].label} / {table.rows[rows[1]].label}"
    else:
        ranked = find_rows(text, table)
        if not ranked or ranked[0].score < GOOD_MATCH:
            if re.search(r"(?i)\band\b|、|和", text) and operation in ("value", "sum", "average"):
                split = several_rows(text, table)
                if split:
                    asked.rows = split
            if (
                not asked.rows
                and (operation == "sum" or ALL_ROWS.search(text))
                and operation != "average"
            ):
                asked.rows = section_rows(text, table)
                if asked.rows and operation == "value":
                    asked.operation = operation = "sum"
            if not asked.rows and operation in ("value", "sum") and _TOTAL.search(text):
                # "the total monetary assets": "Monetary assets, current" and ", non-current"
                asked.rows = headed_rows(text, table)
                if asked.rows:
                    asked.operation = operation = "sum"
            if not asked.rows and (closing := _closing_line(ranked, table)) is not None:
                # "the change in goodwill from 2018 to 2019" beside "Goodwill, beginning of the
                # year" and "Goodwill, end of the year": a balance at a year is its closing one
                asked.rows = [closing]
                asked.trace.append(f'"{table.rows[closing].label}": the balance at each year end')
            if not asked.rows:
                asked.missing = "the row"
                asked.closest = [
                    table.rows[m.row].label for m in ranked[:3] if table.rows[m.row].label
                ]
                return asked
        else:
            row, doubt = settle_row(text, table, _closing_for(ranked[0].row, text, table))
            if doubt:
                asked.missing, asked.closest = doubt
                return asked
            asked.rows = [row]
            best = table.rows[row].label.casefold()
            if operation in ("change", "pct_change") and not re.search(r"\band\b|&", best):
                several = several_rows(text, table)
                if len(several) >= 2 and not _label_written(best, text):
                    listed = ", ".join(table.rows[i].label for i in several)
                    asked.missing = f"one row (the question names several: {listed})"
                    return asked
            # "X and Y respectively": a second row as good as the first
            if (
                len(ranked) > 1
                and operation in ("value", "sum", "average")
                and re.search(r"(?i)\band\b", text)
                and not re.search(r"\band\b|&", best)
            ):
                split = several_rows(text, table)
                if split and ranked[0].row in split:
                    asked.rows = split
            doubt = other_row_named(text, table, row) if len(asked.rows) == 1 else None
            if doubt:
                asked.missing, asked.closest = doubt
                return asked
        asked.subject = " and ".join(table.rows[i].label for i in asked.rows)
    col_op = "ratio" if operation == "ratio_columns" else operation
    if pair is not None and operation in ("ratio", "proportion", "difference"):
        col_op = "value"
    columns, missing = find_columns(text, table, col_op)
    if not columns:
        asked.missing = missing or "the column"
        asked.closest = list(table.columns)
        return asked
    each_year = operation == "proportion" and bool(_RESPECTIVELY.search(text))
    if pair is not None and not (each_year and len(columns) == len(years_named(text)) > 1):
        columns = columns[:1]  # (a share "respectively" for each year named keeps each year)
    if (
        operation == "value"
        and len(columns) * len(asked.rows) > 1
        and re.search(r"(?i)\btotal\b|合计|总", text)
        and (
            not any("total" in table.rows[i].label.casefold() for i in asked.rows)
            or _BOTH.search(text)
        )
    ):
        asked.operation = operation = "sum"  # "the total cost of revenue in both 2019 and 2018"
    if operation == "value" and _SHARE_WORDS.search(text) and not shares_printed:
        printed = [table.rows[i].cells[j] for i in asked.rows for j in columns]
        if not all("%" in c for c in printed):
            # "the proportion of A and B over C": a share the reading did not compute
            asked.missing = "the share asked for (its part and whole)"
            asked.closest = [table.rows[i].label for i in asked.rows]
            return asked
    if re.search(r"(?i)\brespective(?:ly)?\b|分别", text) and len(columns) * len(asked.rows) < 2:
        asked.missing = "the several figures asked for respectively"
        asked.closest = list(table.columns)
        return asked
    if operation in ("change", "pct_change") and len(set(columns)) < 2:
        asked.missing = "two different columns to compare"
        asked.closest = list(table.columns)
        return asked
    if operation == "sum" and len(columns) * len(asked.rows) < 2:
        asked.missing = "the cells to add up (name the years or rows)"
        asked.closest = list(table.columns)
        return asked
    if operation == "average" and len(columns) * len(asked.rows) < 2:
        asked.missing = "the cells to average (name the years or rows)"
        asked.closest = list(table.columns)
        return asked
    if operation == "value" and len(columns) > 1 and len(asked.rows) == 1 and not years_named(text):
        asked.missing = "which column"
        asked.closest = list(table.columns)
        return asked
    if operation == "ratio_columns":
        if len(columns) < 2:
            asked.missing = "the two columns of the ratio"
            asked.closest = list(table.columns)
            return asked
        asked.operation = "ratio_columns"
    asked.columns = columns
    return asked


_TOTAL = re.compile(r"(?i)\btotal\b|合计|总计")
_HOW_MANY = re.compile(r"(?i)\bhow\s+many\b|多少个|几个|几项|几种")
# A difference between two rows: "the difference between A and B", "the difference in net
# sales in 2019 between APAC and EMEA", "the change in high price between the third quarter and
# fourth quarter" (with one year or none: between two years it is a change over time).
_BETWEEN_ROWS = re.compile(
    r"(?i)\b(?P<how>difference|change)\b(?:\s+in\s+[^?]{1,60}?)?\s+between\b(?P<sides>.*)"
)
_BOTH_COLUMNS = re.compile(r"(?i)\s*(?:both|the\s+two|these\s+two|those\s+two)\b")
# Dates between which a change runs over the columns ("between June 30 and December 31").
_DATE_WORD = re.compile(
    r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:19|20)\d\d\b"
)


def _between_rows(text: str) -> bool:
    """A difference or change "between" two rows, not between two dates (the columns)."""
    found = _BETWEEN_ROWS.search(text)
    if found is None:
        return False
    if _BOTH_COLUMNS.match(found["sides"]):
        return False  # "the difference in net profit between both FYs": over the columns
    return found["how"].lower() == "difference" or not _DATE_WORD.search(found["sides"])


# Figures a row has only once computed, most specific first ("percentage change" also says
# "change").
_COMPUTED_NAMES = {
    "pct_change": "percentage change",
    "ratio": "ratio",
    "proportion": "proportion",
    "average": "average",
    "change": "change",
}
# A length asked ("how many years is the lifespan", "how long is the term"), not a count of years.
_LENGTH_ASKED = re.compile(
    r"(?i)\bhow\s+(?:many\s+(?:years?|months?|days?)|long)\s+(?:is|are|was|were|will)\b"
)
_LENGTH_WORDS = re.compile(r"(?i)\b(?:years?|months?|days?|yrs?|life|lives|term|duration)\b")
# "across all 3 years", "over the three years", "in all years": every year column.
_ALL_YEARS = re.compile(
    r"(?i)\b(?:across|over|in|for)\s+(?:all\s+(?:the\s+)?|the\s+(?=(?:\d|two|three|four|five)\s))"
    r"(?:(?:\d|two|three|four|five)\s+)?years\b|\ball\s+(?:\d|two|three|four|five)\s+years\b"
)
_RESPECTIVELY = re.compile(r"(?i)\brespective(?:ly)?\b|\beach\b|分别")
_CHANGE_WORD = re.compile(r"(?i)\b(?:net\s+)?(?:increase|decrease|change|growth|decline)\b")


def _named_in_a_line(text: str, table: ReportTable) -> bool:
    """Whether the question's change word belongs to the name of the line it asks about ("Net
    decrease in cash and cash equivalents"), which the table prints as its own figure."""
    if re.search(r"(?i)\b(?:from|between|compared|than|versus|vs)\b", text):
        return False
    return _change_in_line(text, table)


_CLOSING = re.compile(
    r"(?i),?\s*(?:(?:at\s+)?(?:the\s+)?end\s+of\s+(?:the\s+)?(?:fiscal\s+)?(?:year|period)|"
    r"ending(?:\s+balance)?|closing(?:\s+balance)?)\b"
)
_OPENING = re.compile(
    r"(?i),?\s*(?:(?:at\s+)?(?:the\s+)?(?:beginning|start)\s+of\s+(?:the\s+)?(?:fiscal\s+)?"
    r"(?:year|period)|beginning(?:\s+balance)?|opening(?:\s+balance)?)\b"
)


def _item_of(label: str, said: re.Pattern[str]) -> str:
    """A balance line's item, its closing or opening words (`said`) taken off ("Goodwill, end
    of the year" → "goodwill")."""
    return said.sub("", label).strip(" ,").casefold()


def _closing_line(ranked: list[Any], table: ReportTable) -> int | None:
    """Of the best-named lines, the closing one of an opening and closing pair of one item
    ("Goodwill, beginning of the year" and "Goodwill, end of the year"), or None."""
    labels = {m.row: table.rows[m.row].label for m in ranked[:3] if m.score > 0.3}
    for i, label in labels.items():
        if not _CLOSING.search(label):
            continue
        item = _item_of(label, _CLOSING)
        if any(j != i and _item_of(other, _OPENING) == item for j, other in labels.items()):
            return i
    return None


def _closing_for(row: int, text: str, table: ReportTable) -> int:
    """The closing line of the item an opening line names ("Goodwill, beginning of the year"
    → "Goodwill, end of the year"), unless the question asks for the opening one."""
    label = table.rows[row].label
    if not _OPENING.search(label) or _OPENING.search(text) or _STARTING.search(text):
        return row
    item = _item_of(label, _OPENING)
    for other, line in enumerate(table.rows):
        if other != row and _CLOSING.search(line.label) and _item_of(line.label, _CLOSING) == item:
            return other
    return row


_STARTING = re.compile(r"(?i)\b(?:start(?:ing)?|initial|opening|beginning)\b")


def _base_named(text: str, table: ReportTable) -> bool:
    """Whether the question names the line the table prints as 100% in every column (a
    common-size statement's "Sales 100.0 %"), and another line besides it."""
    bases = [
        i
        for i, row in enumerate(table.rows)
        if (figures := [table.rows[i].value(j) for j in table.value_columns])
        and all(f is not None and abs(f - 100) < 0.05 for f in figures)
        and any("%" in cell for cell in row.cells)
    ]
    said = set(words(text))
    named = [i for i in bases if set(words(table.rows[i].label)) <= said]
    ranked = [m for m in find_rows(text, table) if m.row not in bases]
    return bool(named) and bool(ranked) and ranked[0].score >= GOOD_MATCH


_SHARES = {"pct_change", "ratio", "proportion"}
_AVERAGE_WORD = re.compile(r"(?i)\baverage\b|\bavg\b|平均")
_PAIRED_YEARS = re.compile(
    r"(?i)\b(?:19|20)\d\d\s*(?:-|–|and|to)\s*(?:19|20)\d\d\s*,?\s*and\s+(?:19|20)\d\d\s*"
    r"(?:-|–|and|to)\s*(?:19|20)\d\d\b|\bbetween\s+(?:19|20)\d\d\s+and\s+(?:19|20)\d\d\s+"
    r"averages?\b"
)


def _averages_compared(text: str, table: ReportTable, asked: Asked) -> Asked | None:
    """Two averages set against each other, or None when the question is not read so: of two
    lines over the same years, or of one line over two consecutive pairs of years ("between
    2017-2018, and 2018-2019", "between 2018 and 2019 average", a year's average being it and
    the year before)."""
    if _PAIRED_YEARS.search(text):
        years = sorted({int(y) for y in years_named(text)})
        if len(years) == 2:
            years = [years[0] - 1, *years]
        by_year = {
            int(table.years(j)[0]): j for j in reversed(table.value_columns) if table.years(j)
        }
        if len(years) != 3 or years != list(range(years[0], years[0] + 3)):
            return None
        if not all(y in by_year for y in years):
            return None
        ranked = find_rows(text, table)
        if not ranked or ranked[0].score < GOOD_MATCH:
            return None
        asked.operation = "change_of_averages"
        asked.rows = [ranked[0].row]
        asked.columns = [by_year[y] for y in years]
        asked.subject = table.rows[ranked[0].row].label
        return asked
    pair = two_rows(text, "difference", table)
    if pair is None or not all(_AVERAGE_WORD.search(part) for part in pair):
        return None  # "the average difference between A and B" averages each year's difference
    rows = [one_row(part, table)[0] for part in pair]
    if rows[0] is None or rows[1] is None or rows[0] == rows[1]:
        return None
    columns, _ = find_columns(text, table, "average")
    if len(columns) < 2:
        return None
    asked.operation = "difference_of_averages"
    asked.rows = [rows[0], rows[1]]
    asked.columns = columns
    asked.subject = f"{table.rows[rows[0]].label} / {table.rows[rows[1]].label}"
    return asked


def _lines_of_the_years(text: str, table: ReportTable, asked: Asked, movements: bool) -> None:
    """Years named of a table whose lines carry them ("Granted (2019)", "Non-vested at December
    31, 2019"): each line taken is of a year named and each year named has its line; figures
    listed or added are all movements or all balances. Otherwise `asked.missing` says so."""
    named = set(years_named(text))
    if movements:  # "granted in 2020" split from its year by the question's shape: 2020's line
        asked.rows = [_movement_of(i, table, named) for i in asked.rows]
    labels = [table.rows[i].label for i in asked.rows]
    printed = [set(years_named(label)) for label in labels]
    kinds = {
        label.endswith(")") and bool(years) for label, years in zip(labels, printed, strict=True)
    }
    mixed = movements and asked.operation in ("value", "sum", "average") and len(kinds) > 1
    if not all(years & named for years in printed) or not named <= set().union(*printed) or mixed:
        asked.missing = f"one line of the same kind for each of {' and '.join(sorted(named))}"
        asked.closest = labels


def _movement_of(row: int, table: ReportTable, named: set[str]) -> int:
    """The line of a movement ("Granted (2019)") of the one year named, when `row` is the
    same movement of another year."""
    label = table.rows[row].label
    base = re.sub(r"\s*\((?:19|20)\d{2}\)$", "", label)
    if base == label or set(years_named(label)) & named:
        return row
    same = [
        i
        for i, line in enumerate(table.rows)
        if line.label.startswith(f"{base} (") and set(years_named(line.label)) & named
    ]
    return same[0] if len(same) == 1 else row


def _label_written(label: str, text: str) -> bool:
    """Whether the question writes a line's whole label out ("the percentage change in total
    receivables, net"), commas and all: one line, not several."""
    flat = re.sub(r"\s+", " ", label.casefold()).strip()
    return len(flat) >= 8 and flat in re.sub(r"\s+", " ", text.casefold())


def _change_in_line(text: str, table: ReportTable) -> bool:
    """Whether the question's change word is in the name of the line it best names."""
    said = _CHANGE_WORD.search(text)
    if said is None:
        return False
    ranked = find_rows(text, table)
    if not ranked or ranked[0].score < GOOD_MATCH:
        return False
    label = table.rows[ranked[0].row].label
    return re.search(rf"(?i)\b{re.escape(said.group(0))}\b", label) is not None


def _printed_shares(text: str, table: ReportTable) -> bool:
    """Whether the lines the question names print percentages ("70%", "(32)%"): its
    "percentage of" then says what those figures are, not a share to compute."""
    ranked = find_rows(text, table)
    if ranked and ranked[0].score >= GOOD_MATCH:
        rows = [ranked[0].row]
    else:
        rows = several_rows(text, table) or list(range(len(table.rows)))
    shares = [
        "%" in table.rows[i].cells[j] or _PERCENT_HEADER.search(table.columns[j]) is not None
        for i in rows
        for j in table.value_columns
        if j < len(table.rows[i].cells) and table.rows[i].cells[j].strip()
    ]
    return bool(shares) and 2 * sum(shares) > len(shares)


_PERCENT_HEADER = re.compile(r"(?i)%|\bpercent(?:age)?\b")


def _averaged_line(text: str, table: ReportTable) -> bool:
    """Whether the line the question asks about is itself an average ("Average invested
    capital", "Average price paid per share"): its "average" names the line."""
    ranked = find_rows(text, table)
    if not ranked or ranked[0].score < GOOD_MATCH:
        return False
    return re.search(r"(?i)\baverage\b|\bavg\b|平均", table.rows[ranked[0].row].label) is not None


_RATIO_ROW = re.compile(r"(?i)\bratio\b|比率|之比")
_BOTH = re.compile(r"(?i)\bin\s+both\b|\bboth\s+(?:years|fiscal|fy|(?:19|20)\d{2})|\bcombined\b")
_SHARE_WORDS = re.compile(r"(?i)\b(?:proportion|percentage|ratio|fraction|share\s+of)\b|占|比例")
_CHANGE_OF_SHARE = re.compile(
    r"(?i)\b(?:change|increase|decrease|difference)\b[^?]{0,20}\bin\s+(?:the\s+)?"
    r"(?:percentage|proportion|share)\s+of\b"
)
_WHICH_YEARS = re.compile(
    r"(?i)\b(?:which|what)\s+(?:are\s+the\s+)?(?:(?:financial|fiscal)\s+)?years(?:['’]|\b).*\b(?:calculated|provided?|given|shows?|shown|includ(?:e|es|ed)|"
    r"listed|reported|recorded|presented|information|covers?|covered|contains?|data)|\bin\s+which\s+years\s+(?:was|were|is|are|did|does)\b"
)
_SUM_OF = re.compile(r"(?i)\bsum\s+of\b|\btotal\s+of\b.+\band\b|\bcombined\b")
_WHICH_ROW = re.compile(
    r"(?i)\bwhich\s+(?!years?\b|period|fiscal|fy\b|quarter)(?:[a-z-]+\s+){0,2}?"
    r"(?:component|item|segment|category|type|region|country|line|product|business|asset|"
    r"class|source|market|division|unit|geograph\w*|expense|revenue|cost|sector|one|"
    r"obligation|liabilit\w+|investment|program|plan|account|customer|service)s?\b"
    r"|\bwhat\s+(?:is|was)\s+the\s+(?:component|item|segment|category|line)\b"
)


_YEARS_WHEN = re.compile(
    r"(?i)\b(?:which|what|how\s+many)\s+(?:fiscal\s+)?years?\b|哪(?:一|几)?年|几年|多少年"
)
_BELOW = re.compile(r"(?i)\b(?:less|fewer|lower|below|under)\b|低于|少于|不到")


def _years_past(text: str, table: ReportTable, asked: Asked, bound: re.Match[str]) -> Asked:
    """The row's year columns, counted against the bound the question states, in the table's
    scale ("$5 million" against a table in thousands is 5,000)."""
    number = float(re.sub(r"[^\d.]", "", bound.group(0).split("$")[-1]) or "nan")
    unit = re.match(r"\s*(thousands?|millions?|billions?)\b", text[bound.end() :], re.I)
    if unit is not None and table.scale in ("thousand", "million", "billion"):
        said = unit.group(1).casefold().removesuffix("s")  # "thousands" is a thousand
        number *= SCALE_FACTORS[said] / SCALE_FACTORS[table.scale]
    ranked = find_rows(text[: bound.start()], table)
    if number != number or not ranked or ranked[0].score < GOOD_MATCH:
        asked.missing = "the row"
        asked.closest = [table.rows[m.row].label for m in ranked[:3] if table.rows[m.row].label]
        return asked
    row = ranked[0].row
    # Every dated column, those printing no number at all too ("—" under 2018).
    years = _year_columns(table, range(len(table.columns)))
    blank = [y for y, j in years.items() if table.rows[row].value(j) is None]
    if not years or blank:
        # A year printed without a figure ("—") is not for this reading to count either way.
        asked.missing = (
            f"a figure of {table.rows[row].label} in {' and '.join(blank)}"
            if blank
            else "the years of the columns"
        )
        asked.closest = list(table.columns)
        return asked
    asked.operation = "count_below" if _BELOW.search(bound.group(0)) else "count_above"
    asked.rows, asked.columns = [row], list(years.values())
    asked.subject, asked.threshold = table.rows[row].label, number
    return asked


def _year_columns(table: ReportTable, columns: Iterable[int]) -> dict[str, int]:
    """Each year a column of `columns` names, with the first column naming it."""
    found: dict[str, int] = {}
    for j in columns:
        if table.years(j):
            found.setdefault(table.years(j)[0], j)
    return found


def _every_year(text: str, table: ReportTable, asked: Asked) -> Asked:
    ranked = find_rows(text, table)
    if not ranked or ranked[0].score < GOOD_MATCH:
        # No line named: what the question calls the table's subject ("which years does the
        # table provide information for net sales by region") is the table, so its years.
        years = _year_columns(table, table.value_columns)
        if years:
            asked.operation, asked.columns = "years", list(years.values())
            asked.trace.append("no line named: the years of the table's columns")
            return asked
        asked.missing = "the row"
        asked.closest = [table.rows[m.row].label for m in ranked[:3] if table.rows[m.row].label]
        return asked
    row = ranked[0].row
    given = [j for j in table.value_columns if table.rows[row].value(j) is not None]
    firsts = _year_columns(table, given)
    if not firsts:
        asked.missing = "the years of the columns"
        asked.closest = list(table.columns)
        return asked
    asked.rows, asked.columns = [row], list(firsts.values())
    asked.subject = table.rows[row].label
    return asked


def _row_extreme(text: str, table: ReportTable, asked: Asked) -> Asked:
    """ "Which component is the greatest in the total fair value?": the rows (not totals) of
    the column named, ranked."""
    columns, missing = find_columns(text, table, "value")
    if len(columns) != 1:
        asked.missing = missing or "one column to rank the rows by"
        asked.closest = list(table.columns)
        return asked
    column = columns[0]
    rows = [
        i
        for i, row in enumerate(table.rows)
        if row.label
        and not re.search(r"(?i)\btotal\b|合计|总计", row.label)
        and row.value(column) is not None
    ]
    sections = {table.rows[i].section for i in rows}
    if len(sections) > 1:
        asked.missing = "which section's rows to rank"
        asked.closest = sorted(s for s in sections if s)
        return asked
    if len(rows) < 2:
        asked.missing = "rows to rank"
        return asked
    asked.rows, asked.columns = rows, [column]
    asked.subject = table.columns[column]
    return asked


def table_understanding(question: str, context: QuestionContext) -> Understanding | None:
    """The answer plan for an arithmetic question over a report table the client sent, a
    `no_data` naming what was not found, or None when this is not such a question."""
    if not context.tables or _CHART.search(question):
        return None
    zh = bool(CJK.search(question))
    if not_a_figure(question):
        # Whatever the tables' shape: a figure, or statistics of a column, would be `ok` with
        # something else.
        table = context.tables[0]
        names = "、".join(f"“{t.name}”" for t in context.tables[:4])
        listed = ", ".join(f'"{t.name}"' for t in context.tables[:4])
        message = (
            f"这个问题问的是原因、人物或某一行的含义，表格{names}只给出数字，"
            "这些内容要看报告的正文。"
            if zh
            else f"This asks why, who, or what a line means or holds; the tables ({listed}) "
            "give figures, and the report's text is where that is said."
        )
        intent = Intent(
            rewritten=question,
            entities=[EntityRef(id=table.name, kind="table", name=table.description or table.name)],
            trace=["the question asks for what a report's text says, not a figure"],
        )
        return Understanding(status="no_data", intent=intent, message=message)
    if items_asked(question):
        table = context.tables[0]
        labels = [str(row[0]) for row in table.rows if row and str(row[0]).strip()][:8]
        listed = ("、" if zh else ", ").join(f"“{x}”" if zh else f'"{x}"' for x in labels)
        message = (
            f"这个问题问的是哪些项目（名称或个数），不是一个数字；表格“{table.name}”的行是：{listed}。"
            "这些项目包含什么要看报告的正文。"
            if zh
            else f"This asks which items (their names or how many), not a figure; the lines of "
            f'"{table.name}" are: {listed}. What each holds is said in the report\'s text.'
        )
        intent = Intent(
            rewritten=question,
            entities=[EntityRef(id=table.name, kind="table", name=table.description or table.name)],
            trace=["the question asks which items, by name, not a figure"],
        )
        return Understanding(status="no_data", intent=intent, message=message)
    best: tuple[float, ClientTable, ReportTable, Asked] | None = None
    for table in context.tables[:4]:
        report = read_report(table)
        shape = report_shaped(table, report)
        if not shape:
            continue
        if shape == "periods":
            report = report.transposed()
        elif (widened := report.periods_as_columns()) is not report:
            report, shape = widened, "period blocks"
        arithmetic = operation_of(question) not in (None, "max", "min")
        if shape == "printed" and not arithmetic:
            continue  # a table keyed by a named column: look-ups stay with the general reader
        asked = read_table_question(question, report)
        if asked is None:
            continue
        asked.trace.append(shape)
        # "Which years does the table provide information for …": the words describe the
        # table, and the answer is its years.
        listing_years = _WHICH_YEARS.search(question) is not None
        state = None if asked.missing or listing_years else unprinted_state(question, report, table)
        if state:
            asked.missing = f'the amount {state} (no line or column says "{state}")'
            asked.closest = [report.rows[i].label for i in asked.rows]
        score = 0.0 if asked.missing else 1.0
        if best is None or score > best[0]:
            best = (score, table, report, asked)
    if best is None:
        return None
    _, table, report, asked = best
    intent = Intent(
        rewritten=question,
        entities=[EntityRef(id=table.name, kind="table", name=table.description or table.name)],
        trace=[f'the question asks "{asked.operation}" of the report table "{table.name}"'],
    )
    if asked.missing:
        if (
            operation_of(question) is None
            and asked.missing == "the row"
            and _DESCRIBE.search(question)
        ):
            return None  # "summarise this table": the general reader describes it
        closest = ", ".join(f'"{c}"' for c in asked.closest[:5] if c)
        message = (
            f"表格“{table.name}”中找不到{asked.missing}。最接近的有：{closest}。"
            if zh
            else f'I could not find {_quoted(asked.missing)} in the table "{table.name}"; '
            f"the closest are: {closest}."
        )
        return Understanding(status="no_data", intent=intent, message=message)
    operation = "ratio" if asked.operation == "ratio_columns" else asked.operation
    builder = PlanBuilder()
    args: dict[str, Any] = {
        "name": table.name,
        "operation": operation,
        "rows": asked.rows,
        "columns": asked.columns,
        "subject": asked.subject,
    }
    if asked.threshold is not None:
        args["threshold"] = asked.threshold
    if report.scale:
        args["scale"] = report.scale
        intent.trace.append(f"the table's figures are in {report.scale}")
    if "periods" in asked.trace:
        args["transpose"] = True
        intent.trace.append("the table prints its periods down the side: read across")
    if "period blocks" in asked.trace:
        args["periods_as_columns"] = True
        intent.trace.append("the table prints a block of lines per period: each period a column")
    result = builder.add(
        "report_figure",
        args,
        name="figure",
        description="按所问单元格计算" if zh else "Compute the figure from the cells asked for",
        task="processing",
    )
    builder.add(
        "show_table",
        {"frame": {"$ref": result}, "title": asked.subject or table.name},
        name="table",
        description="列出所用单元格" if zh else "Show the cells used",
        task="visualization",
    )
    intent.table = True
    return Understanding(status="ok", intent=intent, plan=builder.build())


def _quoted(missing: str) -> str:
    return missing if missing.startswith("the ") else f'"{missing}"'
