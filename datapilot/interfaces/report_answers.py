"""Figures from a table as printed in a report (see `datapilot.data.report_tables`).

`report_figure` computes one figure from the cells a question names — a cell, the change or
percentage change between two columns, an average, a total, the difference or ratio of two rows,
a share of a total, the largest or smallest — and states it the way a finance user checks it: the
first sentence gives the figure with the table's unit, then the cells used (row, column, value as
printed) and the formula, e.g. `(14,158 − 18,211) / 18,211 = −22.26%`. Percentages have two
decimals; a change between two percentages is stated in percentage points with the relative
change beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

import pandas as pd

from datapilot.core.context import ClientTable
from datapilot.data.report_tables import SCALE_FACTORS, ReportTable, is_percent, read_report
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import tag
from datapilot.interfaces.registry import InterfaceError, interface

Operation = Literal[
    "value", "change", "pct_change", "average", "sum", "difference", "ratio", "proportion",
    "max", "min", "count_above", "count_below", "years", "lines", "count_lines",
    "difference_of_averages", "change_of_averages",
]  # fmt: skip


@dataclass
class Cell:
    row: str
    column: str
    printed: str
    value: float

    @property
    def percent(self) -> bool:
        return is_percent(self.printed)


def report_of(ctx: InterfaceContext, name: str) -> ReportTable:
    """The client table `name` read as a printed report table."""
    if name not in ctx.tables:
        raise InterfaceError(f"No client table named {name!r}; the request carried: "
                             f"{', '.join(ctx.tables) or 'none'}.")  # fmt: skip
    raw = ctx.tables[name]
    rows = raw.astype(object).where(raw.notna(), None).values.tolist()
    return read_report(ClientTable(name=name, columns=[str(c) for c in raw.columns], rows=rows))


def number_text(value: float, decimals: int | None = None) -> str:
    """A computed figure: thousands separated, at most `decimals` (default 2) places, a minus
    sign that is a minus."""
    places = 2 if decimals is None else decimals
    text = f"{value:,.{places}f}"
    if decimals is None and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace("-", "−") if value < 0 else text


def _places(cells: list[Cell]) -> int:
    """Decimals of the printed inputs: 44.1 − 56.7 is −12.6, not −12.599999."""
    places = 0
    for cell in cells:
        digits = "".join(ch for ch in cell.printed if ch.isdigit() or ch == ".")
        if "." in digits:
            places = max(places, len(digits.split(".")[1]))
    return places


# Lines whose figures are not amounts of the table's scale: per share, rates, counts of years.
_UNSCALED = re.compile(
    r"(?i)per\s+(?:\w+\s+)?(?:share|unit|ads|employee)|\beps\b|cents|\bratio\b|\brate\b|margin|%|"
    r"\(?in\s+years\)?|\byears?\b|days|months|\bnumber\s+of\b|headcount|employees|每股|比率|率"
)


def with_unit(
    text: str, table: ReportTable, zh: bool, *, percent: bool = False, row: str = ""
) -> str:
    if percent:
        return f"{text}%"
    if row and _UNSCALED.search(row):
        money = bool(re.search(r"(?i)per\s+(?:\w+\s+)?share|eps|每股", row)) and table.currency
        return f"{table.currency}{text}" if money and not text.startswith("−") else text
    negative = text.startswith("−")
    body = text.removeprefix("−")
    money = f"{table.currency}{body}" if table.currency else body
    money = f"−{money}" if negative else money
    rounded = _rounded(text, table, zh)
    if not table.scale:
        return money + rounded
    if table.scale == "万元":
        return f"{money}万元{rounded}"
    if zh:
        scale = {"thousand": "千", "million": "百万", "billion": "十亿"}[table.scale]
        return f"{money}（{scale}）{rounded}"
    return f"{money} {table.scale}{rounded}"


def _rounded(text: str, table: ReportTable, zh: bool) -> str:
    """A large amount also said the way a reader says it, when that is in another unit than the
    table prints: 9,577,144 is "about $9.6 million", 85,123 thousand "about 85.1 million"."""
    digits = re.sub(r"[^\d.]", "", text)
    if not digits or digits.count(".") > 1 or table.scale not in SCALE_FACTORS:
        return ""
    amount = float(digits) * SCALE_FACTORS[table.scale]
    sign = "−" if text.startswith("−") or text.lstrip().startswith("(") else ""
    if zh:
        if amount >= 1e8 and table.scale != "万元":
            return f"（约{sign}{table.currency}{amount / 1e8:,.2f}亿）"
        if amount >= 1e6 and not table.scale:
            return f"（约{sign}{table.currency}{amount / 1e4:,.1f}万）"
        return ""
    unit = "billion" if amount >= 1e9 else "million" if amount >= 1e6 else ""
    if not unit or unit == table.scale:
        return ""
    said = f"{amount / SCALE_FACTORS[unit]:,.1f}"
    return f" (about {sign}{table.currency}{said} {unit})"


def _cells(table: ReportTable, rows: list[int], columns: list[int]) -> list[Cell]:
    found = []
    for i in rows:
        for j in columns:
            if i >= len(table.rows) or j >= len(table.columns):
                raise InterfaceError(f"The table has no cell at row {i}, column {j}.")
            row = table.rows[i]
            value = row.value(j)
            label = row.label or row.section
            if value is None:
                raise InterfaceError(
                    f"The cell of {label!r} under {table.columns[j]!r} holds no number "
                    f"({row.cells[j] or 'blank'!r})."
                )
            found.append(Cell(label, table.short(j), row.cells[j], value))
    return found


@interface("processing", "frame")
def report_figure(
    ctx: InterfaceContext,
    name: Annotated[str, "The client table (a report table as printed)."],
    operation: Annotated[Operation, "What to compute from the cells."],
    rows: Annotated[list[int], "Row positions (0-based, after the header) the cells are in."],
    columns: Annotated[list[int], "Value-column positions (0-based, after the label column)."],
    subject: Annotated[str, "What the figure is, as the question names it."] = "",
    threshold: Annotated[float | None, "The bound of a count of cells above/below."] = None,
    scale: Annotated[str, "The figures' scale when the table's description states it."] = "",
    transpose: Annotated[
        bool, "The table prints its periods down the side: swap rows and columns."
    ] = False,
    periods_as_columns: Annotated[
        bool, "The table prints a block of lines per period: read each period as a column."
    ] = False,
) -> pd.DataFrame:
    """One figure computed from a printed report table's cells, with the cells and formula."""
    table = report_of(ctx, name)
    if transpose:
        table = table.transposed()
    if periods_as_columns:
        table = table.periods_as_columns()
    table.scale = table.scale or scale
    zh = ctx.language == "zh"
    if operation == "years":
        return _years(name, table, columns, subject, zh)
    if operation in ("lines", "count_lines"):
        return _lines(name, table, rows, subject, zh, count=operation == "count_lines")
    cells = _cells(table, rows, columns)
    lines, figure = compute(table, operation, cells, rows, columns, subject, zh, threshold)
    result = pd.DataFrame(
        [{"row": c.row, "column": c.column, "printed": c.printed, "value": c.value} for c in cells]
    )
    result.loc[len(result)] = {"row": subject or operation, "column": operation,
                               "printed": figure, "value": None}  # fmt: skip
    return tag(result, kind="cross_section", title=f"{name}: {subject or operation}",
               sources=[f"client table: {name}"], answer=lines)  # fmt: skip


def _averages_compared(
    table: ReportTable,
    operation: str,
    cells: list[Cell],
    rows: list[int],
    columns: list[int],
    say: _Say,
    zh: bool,
) -> tuple[list[str], str]:
    """Two averages and their difference: of two lines over the same columns
    (`difference_of_averages`: "the difference between average A and average B"), or of one
    line over two overlapping pairs of consecutive columns (`change_of_averages`: "the change
    between the 2018 and 2019 average", each year's average with the year before)."""
    places = _places(cells)
    if operation == "difference_of_averages":
        if len(set(rows)) != 2:
            raise InterfaceError("difference_of_averages needs two rows.")
        width = len(columns)
        groups = [cells[:width], cells[width:]]
        names = [groups[0][0].row, groups[1][0].row]
    else:
        if len(rows) != 1 or len(columns) != 3:
            raise InterfaceError("change_of_averages needs one row and three columns in order.")
        groups = [cells[:2], cells[1:]]
        names = [f"{g[0].column}–{g[-1].column}" for g in groups]
    means = [sum(c.value for c in g) / len(g) for g in groups]
    first_mean, second_mean = means if operation == "difference_of_averages" else means[::-1]
    value = first_mean - second_mean
    text = number_text(round(value, places + 1), None)
    percent = all(c.percent for c in cells)
    figure = f"{text}%" if percent else with_unit(text, table, zh, row=cells[0].row)
    said = [f"({' + '.join(number_text(c.value, places) for c in g)}) / {len(g)}" for g in groups]
    if operation == "difference_of_averages":
        formula = f"[{said[0]}] − [{said[1]}] = {text}"
        first = say(
            f"The difference between the average of {names[0]} and the average of {names[1]} "
            f"is {figure}.",
            f"{names[0]}的平均值与{names[1]}的平均值之差为{figure}。",
        )
    else:
        formula = f"[{said[1]}] − [{said[0]}] = {text}"
        line = cells[0].row
        first = say(
            f"The change in the average of {line} from {names[0]} to {names[1]} is {figure}.",
            f"{line}的平均值从{names[0]}到{names[1]}的变化为{figure}。",
        )
    return [first, _trace(cells, zh), f"{formula}."], figure


def _years(
    name: str, table: ReportTable, columns: list[int], subject: str, zh: bool
) -> pd.DataFrame:
    """The years the table's columns give figures for: "which years does the table cover"."""
    printed = [table.columns[j] for j in columns if 0 <= j < len(table.columns)]
    years = list(dict.fromkeys(y for j in columns for y in table.years(j)[:1]))
    if not years:
        raise InterfaceError(f"The table's columns name no years: {', '.join(printed)}.")
    said = stated_list(years)
    first = (
        f"表格“{name}”给出了{'、'.join(years)}年的数字。"
        if zh
        else f'The table "{name}" gives figures for {said}.'
    )
    shown = "；".join(printed) if zh else "; ".join(printed)
    lines = [first, f"所列的列：{shown}。" if zh else f"Its columns: {shown}."]
    result = pd.DataFrame([{"column": c, "year": y} for c, y in zip(printed, years, strict=False)])
    return tag(result, kind="cross_section", title=f"{name}: {subject or 'years'}",
               sources=[f"client table: {name}"], answer=lines)  # fmt: skip


_FOOTNOTE_MARK = re.compile(r"(?<=[a-z]{3})\d$")


def _lines(
    name: str, table: ReportTable, rows: list[int], subject: str, zh: bool, count: bool
) -> pd.DataFrame:
    """The lines printed under a section ("the components under deferred tax liabilities"),
    by name, or how many there are."""
    # A footnote's number glued to a label's last word ("Incentive schemes1") is no part of it.
    labels = [_FOOTNOTE_MARK.sub("", table.rows[i].label) for i in rows if 0 <= i < len(table.rows)]
    if not labels:
        raise InterfaceError(f"The table {name!r} has no lines at {rows}.")
    under = subject or name
    if zh:
        listed = "、".join(labels)
        where = f"“{subject}”下" if subject else f"表格“{name}”"
        first = f"{where}有{len(labels)}项：{listed}。" if count else f"{where}的各项是：{listed}。"
    else:
        listed = stated_list(labels)
        where = f"under {subject}" if subject else f'in the table "{name}"'
        first = (
            f"{len(labels)} lines are printed {where}: {listed}."
            if count
            else f"The lines {where} are {listed}."
        )
    result = pd.DataFrame([{"line": label, "section": under} for label in labels])
    return tag(result, kind="cross_section", title=f"{name}: {under}",
               sources=[f"client table: {name}"], answer=[first])  # fmt: skip


def _shares(cells: list[Cell], count: int, say: _Say, zh: bool) -> tuple[list[str], str]:
    """A part's share of a whole in each of `count` columns, said respectively: the part's cells
    first, then the whole's."""
    parts, wholes = cells[:count], cells[count:]
    if any(w.value == 0 for w in wholes):
        raise InterfaceError("A whole is 0 in one of the columns: it cannot divide.")
    figures = [
        f"{number_text(abs(p.value) / abs(w.value) * 100, 2)}%"
        for p, w in zip(parts, wholes, strict=True)
    ]
    columns = [p.column for p in parts]
    part, whole = parts[0].row, wholes[0].row
    first = say(
        f"{part} is {stated_list(figures)} of {whole} in {stated_list(columns)} respectively.",
        f"{'、'.join(columns)}，{part}分别占{whole}的{'、'.join(figures)}。",
    )
    formulas = "; ".join(
        f"{number_text(p.value)} / {number_text(w.value)} × 100 = {f}"
        for p, w, f in zip(parts, wholes, figures, strict=True)
    )
    return [first, _trace(cells, zh), formulas + ("。" if zh else ".")], ", ".join(figures)


def _trace(cells: list[Cell], zh: bool) -> str:
    used = ("；" if zh else "; ").join(f"{c.row}, {c.column}: {c.printed}" for c in cells)
    return f"所用单元格：{used}。" if zh else f"Cells used: {used}."


def compute(
    table: ReportTable,
    operation: str,
    cells: list[Cell],
    rows: list[int],
    columns: list[int],
    subject: str,
    zh: bool,
    threshold: float | None = None,
) -> tuple[list[str], str]:
    """The answer's sentences (figure first, then cells and formula) and the figure as said."""
    say = _Say(table, zh, subject)
    p = [number_text(c.value, _places([c])) for c in cells]
    all_percent = all(c.percent for c in cells)
    if operation == "value":
        stated = [with_unit(re.sub(r"[$€£¥]\s*", "", c.printed.strip()), table, zh, row=c.row)
                  if not c.percent else c.printed.strip() for c in cells]  # fmt: skip
        if len(cells) == 1:
            first = say(f"{subject} in {cells[0].column} is {stated[0]}.",
                        f"{subject}在{cells[0].column}为{stated[0]}。")  # fmt: skip
        else:
            listed = ", ".join(
                f"{c.row} ({c.column}) {s}" for c, s in zip(cells, stated, strict=True)
            )
            listed_zh = "；".join(
                f"{c.row}（{c.column}）为{s}" for c, s in zip(cells, stated, strict=True)
            )
            first = say(f"{stated_list(stated)} respectively: {listed}.", f"分别为：{listed_zh}。")
        return [first, _trace(cells, zh)], ", ".join(stated)
    if operation in ("change", "pct_change"):
        start, end = cells[0], cells[-1]
        change = end.value - start.value
        change_text = number_text(round(change, _places(cells)), _places(cells))
        formula = f"{p[-1]} − {p[0]} = {change_text}"
        if start.value == 0 and operation == "pct_change":
            raise InterfaceError(f"{start.row} is 0 in {start.column}: no percentage change.")
        relative = change / start.value * 100 if start.value else None
        rel_formula = f"({p[-1]} − {p[0]}) / {p[0]}"
        span = (f"from {start.column} to {end.column}", f"从{start.column}到{end.column}")
        if operation == "pct_change" and not all_percent:
            assert relative is not None
            figure = f"{number_text(relative, 2)}%"
            first = say(f"The percentage change in {subject} {span[0]} is {figure}.",
                        f"{subject}{span[1]}的变动百分比为{figure}。")  # fmt: skip
            return [first, _trace(cells, zh), f"{rel_formula} × 100 = {figure}."], figure
        if all_percent:
            points = f"{change_text} {'个百分点' if zh else 'percentage points'}"
            beside = (
                f"; relative change {number_text(relative, 2)}%" if relative is not None else ""
            )
            beside_zh = f"；相对变化{number_text(relative, 2)}%" if relative is not None else ""
            first = say(f"The change in {subject} {span[0]} is {points}{beside}.",
                        f"{subject}{span[1]}变化{points}{beside_zh}。")  # fmt: skip
            return [first, _trace(cells, zh), f"{formula} pp."], points
        figure = with_unit(change_text, table, zh, row=start.row)
        tail = f" ({number_text(relative, 2)}%)" if relative is not None else ""
        first = say(f"The change in {subject} {span[0]} is {figure}{tail}.",
                    f"{subject}{span[1]}的变化为{figure}{tail}。")  # fmt: skip
        return [first, _trace(cells, zh), f"{formula}."], figure
    if operation in ("difference_of_averages", "change_of_averages"):
        return _averages_compared(table, operation, cells, rows, columns, say, zh)
    if operation in ("average", "sum"):
        total = sum(c.value for c in cells)
        value = total / len(cells) if operation == "average" else round(total, _places(cells))
        text = number_text(value, None if operation == "average" else _places(cells))
        figure = f"{text}%" if all_percent else with_unit(text, table, zh, row=cells[0].row)
        added = " + ".join(p)
        formula = (
            f"({added}) / {len(cells)} = {text}" if operation == "average" else f"{added} = {text}"
        )
        word = ("average", "平均值") if operation == "average" else ("total", "合计")
        first = say(f"The {word[0]} of {subject} is {figure}.", f"{subject}的{word[1]}为{figure}。")
        return [first, _trace(cells, zh), f"{formula}."], figure
    if operation in ("difference", "ratio", "proportion"):
        a, b = cells[0], cells[-1]
        if operation == "difference":
            value = round(a.value - b.value, _places(cells))
            text = number_text(value, _places(cells))
            figure = f"{text}%" if all_percent else with_unit(text, table, zh, row=a.row)
            first = say(f"The difference between {a.row} and {b.row} is {figure}.",
                        f"{a.row}与{b.row}的差额为{figure}。")  # fmt: skip
            return [first, _trace(cells, zh), f"{p[0]} − {p[-1]} = {text}."], figure
        if b.value == 0:
            raise InterfaceError(f"{b.row} is 0 in {b.column}: it cannot divide.")
        value = a.value / b.value
        each = len(columns) > 1 and len(set(rows)) == 2 and len(cells) == 2 * len(columns)
        if operation == "proportion" and each:  # a part's share in each year, respectively
            return _shares(cells, len(columns), say, zh)
        if operation == "proportion":
            value = abs(a.value) / abs(b.value)  # a share of a total is a magnitude: (111) of 372
        if operation == "ratio":
            figure = ratio_text(value)
            first = say(f"The ratio of {a.row} to {b.row} is {figure}.",
                        f"{a.row}与{b.row}之比为{figure}。")  # fmt: skip
            return [first, _trace(cells, zh), f"{p[0]} / {p[-1]} = {figure}."], figure
        figure = f"{number_text(value * 100, 2)}%"
        part, whole = (a.row, b.row) if a.row != b.row else (f"{a.row} ({a.column})", b.column)
        first = say(f"{part} is {figure} of {whole}.", f"{part}占{whole}的{figure}。")
        return [first, _trace(cells, zh), f"{p[0]} / {p[-1]} × 100 = {figure}."], figure
    if operation in ("max", "min"):
        pick = max if operation == "max" else min
        best = pick(cells, key=lambda c: c.value)
        by_column = len({c.column for c in cells}) > 1
        where = best.column if by_column else best.row
        word = ("largest", "最大") if operation == "max" else ("smallest", "最小")
        first = say(f"{where} has the {word[0]} {subject if by_column else best.column}: "
                    f"{best.printed.strip()}.",
                    f"{where}的{subject if by_column else best.column}{word[1]}：{best.printed.strip()}。")  # fmt: skip  # noqa: E501
        return [first, _trace(cells, zh)], where
    if operation in ("count_above", "count_below"):
        bound = threshold or 0.0
        hits = [
            c for c in cells if (c.value > bound if operation == "count_above" else c.value < bound)
        ]
        side = ("above", "高于") if operation == "count_above" else ("below", "低于")
        # Cells of one line across its columns are named by column ("2019 and 2018"), else
        # by line; the cells that are not past the bound are in the cells used, not here.
        by_column = len({c.row for c in cells}) == 1
        names = [c.column if by_column else c.row for c in hits]
        which = [f"{n} ({c.printed.strip()})" for n, c in zip(names, hits, strict=True)]
        which_en = f": {stated_list(which)}" if which else ""
        which_zh = f"：{'、'.join(which)}" if which else ""
        first = say(f"{len(hits)} of the {len(cells)} cells are {side[0]} {number_text(bound)}"
                    f"{which_en}.",
                    f"{len(cells)}个单元格中有{len(hits)}个{side[1]}{number_text(bound)}{which_zh}。")  # fmt: skip  # noqa: E501
        return [first, _trace(cells, zh)], ", ".join(names) or "0"
    raise InterfaceError(f"Unknown operation {operation!r}.")


def ratio_text(value: float) -> str:
    """A ratio to four significant figures (0.1834, 1.234, 12.35): two decimals would say
    0.18 for 100.1 / 545.8, a percentage point away."""
    size = abs(value)
    places = 4 if size < 1 else 3 if size < 10 else 2
    text = number_text(value, places)
    while text.endswith("0") and len(text.split(".")[-1]) > 2:
        text = text[:-1]
    return text


def stated_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


class _Say:
    def __init__(self, table: ReportTable, zh: bool, subject: str) -> None:
        self.zh = zh

    def __call__(self, en: str, zh: str) -> str:
        text = zh if self.zh else en
        return text[:1].upper() + text[1:]
