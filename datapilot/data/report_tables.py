"""Tables as printed in reports: find the real header, the line labels and the scale.

A financial statement sent as a table rarely has one clean header row. The header may be the
first row, the second, or two rows together (a spanning title such as "Years Ended December 31,"
over the years); a client may send the printed first row as `columns` (blank cells, `item`,
`column 3`, repeats suffixed ` (2)`) with the years in the first rows. The first column holds
line labels; a label with no values is a section ("Current liabilities:"). Cells are written for
people: `$1,571.7`, `(3.1)` for −3.1, `12.5%`, `—`, footnote marks, `pts`/`bps`.

`read_report` turns a `ClientTable` into a `ReportTable`: columns named by their header cells
(the spanning title kept beside the year), rows with their label, section and cells as printed,
and the scale ("in thousands", 单位：万元) stated by the header or the description.
Pure parsing, no interface or server imports.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from datapilot.core.context import ClientTable
from datapilot.data.client_data import is_missing, parse_number

# Column names a client invents for a printed row's blank cells, and its copies' suffixes.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:|item|items|column[ _]?\d+|unnamed:?\s*\d*(?:_level_\d+)?|col\d+|field\d+|\d{1,2})$"
)
_COPY = re.compile(r"\s*(?:\(\d+\)|_\d+|\.\d+)$")
YEAR = re.compile(
    r"(?<!\d)(?:19|20)\d{2}(?!\d)|(?<![A-Za-z])FY\s?'?\d{2}(?!\d)|(?<![A-Za-z])F\d{2}(?!\d)"
)
_FOOTNOTE = re.compile(r"(?:\s*\(\s*[a-z]\s*\)|\s*\*+|\s*[¹²³⁴⁵⁶⁷⁸⁹⁰†‡]+)$")
_UNIT_SUFFIX = re.compile(r"(?i)\s*(?:pts?|bps|pp|x|times|倍|个百分点|元|万元|亿元)$")
_SCALES = (
    (re.compile(r"(?i)\bin\s+billions\b|\$\s?bn\b|亿元"), "billion"),
    (
        re.compile(r"(?i)\bin\s+millions\b|\(\s*millions\s*\)|[$€£]\s?mn?\b|\bRMB\s?m\b|百万元"),
        "million",
    ),
    (
        re.compile(r"(?i)\bin\s+thousands\b|[$€£]\s?['’]?000s?\b|\(\s*thousands\s*\)|千元"),
        "thousand",
    ),
    (re.compile(r"万元"), "万元"),
)
# Each scale as a multiple of one unit ("" is a table of whole units).
SCALE_FACTORS = {"": 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "万元": 1e4}


@dataclass
class ReportRow:
    """A line of the table: its label, the section it is under, its cells as printed."""

    label: str
    section: str
    cells: list[str]
    # The heading naming the period the line is printed under ("As at 31 December 2019"), when
    # the table prints one block of lines per period.
    period: str = ""

    def value(self, column: int) -> float | None:
        return cell_number(self.cells[column]) if column < len(self.cells) else None


@dataclass
class ReportTable:
    """A printed table read: columns (without the label column), rows, scale."""

    name: str
    columns: list[str]
    rows: list[ReportRow]
    scale: str = ""
    currency: str = ""
    header_rows: int = 0
    notes: list[str] = field(default_factory=list)

    def years(self, column: int) -> list[str]:
        """The years a column's header names (2019, FY19 → 2019)."""
        return [year_of(y) for y in YEAR.findall(self.columns[column])]

    def short(self, column: int) -> str:
        """A column as an answer names it: its year when no other column has that year."""
        years = self.years(column)
        if len(years) == 1 and sum(years == self.years(j) for j in range(len(self.columns))) == 1:
            return years[0]
        return self.columns[column]

    def transposed(self) -> ReportTable:
        """Rows for columns: a table printed with its periods down the side ("2020 - 2024"
        rows under "Ground leases" and "Land and building leases" columns)."""
        rows = [
            ReportRow(label=name, section="", cells=[row.cells[j] for row in self.rows])
            for j, name in enumerate(self.columns)
        ]
        return ReportTable(
            name=self.name,
            columns=[row.label for row in self.rows],
            rows=rows,
            scale=self.scale,
            currency=self.currency,
            header_rows=self.header_rows,
        )

    def period_blocks(self) -> list[str]:
        """The headings of the blocks when the table prints one block of lines per period under
        columns naming no year ("As at 31 December 2019" over its lines, then "As at 31 December
        2018" over the same lines); [] for any other table."""
        periods = list(dict.fromkeys(row.period for row in self.rows))
        years = [YEAR.findall(p) for p in periods]
        if (
            len(periods) < 2
            or "" in periods
            or any(len(found) != 1 for found in years)
            or len({year_of(found[0]) for found in years}) != len(periods)
            or any(self.years(j) for j in range(len(self.columns)))
        ):
            return []
        return periods

    def periods_as_columns(self) -> ReportTable:
        """A table of period blocks (`period_blocks`) printed the usual way: one column per
        period and printed column ("As at 31 December 2019 USD denominated"), each line once,
        matched across blocks by its section, label and place among lines named alike."""
        periods = self.period_blocks()
        if not periods:
            return self
        width = len(self.columns)
        keyed: dict[tuple[str, str, int], dict[str, list[str]]] = {}
        seen: dict[tuple[str, str, str], int] = {}
        for row in self.rows:
            section = "" if row.section == row.period else row.section
            place = (row.period, section, row.label)
            seen[place] = seen.get(place, -1) + 1
            cells = (row.cells + [""] * width)[:width]
            keyed.setdefault((section, row.label, seen[place]), {})[row.period] = cells
        rows = [
            ReportRow(
                label=label,
                section=section,
                cells=[c for p in periods for c in by_period.get(p, [""] * width)],
            )
            for (section, label, _), by_period in keyed.items()
        ]
        return ReportTable(
            name=self.name,
            columns=[f"{p} {c}" for p in periods for c in self.columns],
            rows=rows,
            scale=self.scale,
            currency=self.currency,
            header_rows=self.header_rows,
            notes=self.notes,
        )

    def movement_years(self) -> ReportTable | None:
        """A roll-forward table (balances dated in their labels, "Non-vested at December 31,
        2018", with the movements between them: "Granted", "Vested") with each movement labelled
        by the year its period mostly falls in ("Granted (2019)"), the rows where they were;
        None for any other table (one whose columns name years, or with fewer than two dated
        balances, or a dated balance with no movement before it)."""
        if any(self.years(j) for j in range(len(self.columns))):
            return None
        dated = [(i, _label_day(row.label)) for i, row in enumerate(self.rows)]
        balances = [(i, day) for i, day in dated if day is not None]
        if len(balances) < 2 or any(b[0] - a[0] < 2 for a, b in itertools.pairwise(balances)):
            return None
        rows = list(self.rows)
        for (first, start), (last, end) in itertools.pairwise(balances):
            assert start is not None and end is not None
            if end <= start:
                return None
            year = (start + (end - start) / 2).year
            for i in range(first + 1, last):
                row = rows[i]
                rows[i] = ReportRow(f"{row.label} ({year})", row.section, row.cells, row.period)
        return ReportTable(
            name=self.name,
            columns=self.columns,
            rows=rows,
            scale=self.scale,
            currency=self.currency,
            header_rows=self.header_rows,
            notes=self.notes,
        )

    @property
    def value_columns(self) -> list[int]:
        """Columns holding at least one number."""
        return [
            j
            for j in range(len(self.columns))
            if any(row.value(j) is not None for row in self.rows)
        ]


_LABEL_DAY = re.compile(
    r"(?i)\b(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?P<d>\d{1,2}),?"
    r"\s+(?P<y>(?:19|20)\d{2})\b"
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _label_day(label: str) -> date | None:
    """The day a balance line is dated by ("Non-vested at December 31, 2018"), or None."""
    found = _LABEL_DAY.search(label)
    if found is None:
        return None
    month = _MONTHS.index(found["mon"].lower()) + 1
    try:
        return date(int(found["y"]), month, int(found["d"]))
    except ValueError:
        return None


def year_of(text: str) -> str:
    digits = re.sub(r"\D", "", text)
    return digits if len(digits) == 4 else f"20{digits[-2:]}"


def cell_number(value: Any) -> float | None:
    """A printed cell as a number: `$1,571.7`, `(3.1)` → −3.1, `12.5%` → 12.5, `1,298(a)`,
    `3.2 pts`, `$(45)`; None for `—`, `n/a`, blanks and text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return parse_number(value)
    if not isinstance(value, str) or is_missing(value):
        return None
    text = value.strip().replace("\u2212", "-").replace("\u00a0", " ")
    text = _FOOTNOTE.sub("", text).strip()
    text = _UNIT_SUFFIX.sub("", text).strip()
    text = re.sub(r"^([$€£¥])\s*\(", r"(\1", text)  # $(45) → ($45)
    text = re.sub(r"^(?:US|RMB|HK|A|C)?\$", "$", text)
    text = re.sub(r"(?<=\d)\s+(?=\d{3}\b)", ",", text)  # 1 234
    return parse_number(text)


def is_percent(value: Any) -> bool:
    return isinstance(value, str) and "%" in value


def placeholder(name: str) -> bool:
    # `column_2` is a placeholder as sent; its `_2` is no copy's suffix
    text = str(name).strip()
    return bool(_PLACEHOLDER.match(text) or _PLACEHOLDER.match(_COPY.sub("", text)))


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    # "2 0 1 8" as some reports space a year's digits
    return re.sub(r"(?<!\d)(\d) (\d) (\d) (\d)(?!\d)", r"\1\2\3\4", str(value).strip())


def _header_like(row: list[str]) -> bool:
    """A row of the printed header: no label with numbers after it (years, titles, units)."""
    values = [c for c in row[1:] if c]
    if not values:
        return not row[0] or _scale_of(row[0]) != ""
    numbers = [c for c in values if cell_number(c) is not None and not YEAR.fullmatch(c.strip())]
    return not numbers


def _scale_of(text: str) -> str:
    for pattern, scale in _SCALES:
        if pattern.search(text):
            return scale
    return ""


def read_report(table: ClientTable) -> ReportTable:
    """The printed table as rows under a header, whatever row the header was sent in."""
    grid = [[_text(c) for c in row] for row in table.rows]
    named = [str(c).strip() for c in table.columns]
    sent_header = [_COPY.sub("", c) if not placeholder(c) else "" for c in named]
    width = max([len(named), *(len(r) for r in grid)], default=0)
    grid = [row + [""] * (width - len(row)) for row in grid]
    sent_header += [""] * (width - len(sent_header))
    # The header block: the sent columns, then the first rows while they read as a header.
    block = [sent_header]
    start = 0
    while start < min(len(grid), 4) and _header_like(grid[start]):
        if not any(grid[start]):
            start += 1
            continue
        # A row with a label and text values is a header only before any numbers appear.
        block.append(grid[start])
        start += 1
    body = grid[start:]
    columns = _column_names(block, width)
    scale = ""
    for text in [*(c for row in block for c in row), table.description, table.name]:
        scale = scale or _scale_of(text)
    rows: list[ReportRow] = []
    section = period = ""
    for row in body:
        label, cells = row[0], row[1:]
        if not any(cells):
            if label:
                section = label.rstrip(":").strip()
                scale = scale or _scale_of(label)
                if YEAR.search(label):
                    period = section
            continue
        rows.append(ReportRow(label=label, section=section, cells=cells, period=period))
    _name_unlabelled_totals(rows)
    printed = [c for row in rows for c in row.cells if c]
    currency = "$" if printed and sum("$" in c for c in printed) >= 1 else ""
    for symbol in "€£¥":
        if any(symbol in c for c in printed):
            currency = symbol
    return ReportTable(
        name=table.name,
        columns=columns,
        rows=rows,
        scale=scale,
        currency=currency,
        header_rows=len(block) - 1,
    )


def _name_unlabelled_totals(rows: list[ReportRow]) -> None:
    """A line printed without a label under the lines of a named section, each of its figures
    their sum (a total's rule, then the figure), is named "Total <section>"."""
    for at, row in enumerate(rows):
        if row.label.strip():
            continue
        above = []
        for other in reversed(rows[:at]):
            if other.section != row.section or not other.label.strip():
                break
            above.append(other)
        # (Under no section it stays unnamed: a bare "Total" would compete with the word
        # "total" of every question, "the total external revenues from Canada".)
        if row.section and len(above) >= 2 and _sums(row, above):
            row.label = f"Total {row.section}"


def _sums(row: ReportRow, parts: list[ReportRow]) -> bool:
    """Whether each figure of `row` is the sum of the figures above it in its column."""
    checked = 0
    for j, cell in enumerate(row.cells):
        total = cell_number(cell)
        if total is None:
            continue
        above = [cell_number(r.cells[j]) if j < len(r.cells) else None for r in parts]
        figures = [a for a in above if a is not None]
        if len(figures) < len(above) or abs(sum(figures) - total) > max(1.0, abs(total) * 1e-4):
            return False
        checked += 1
    return checked > 0


def _column_names(block: list[list[str]], width: int) -> list[str]:
    """Each value column named by its header cells top to bottom. A title row above the
    deepest header row (at most half its cells filled) spans to the right until the next title;
    a lone title spans every column ("Years Ended December 31," printed over the middle year,
    "Fiscal 2019" over the last quarter)."""
    names: list[list[str]] = [[] for _ in range(width - 1)]
    rows = [row[1:] for row in block if any(row[1:])]
    for index, cells in enumerate(rows):
        filled = [j for j, c in enumerate(cells) if c]
        # A title row spans to the right; a row naming nearly every column ("First Second
        # Third Fourth" over a blank above "Total") names only its own cells.
        spanning = index < len(rows) - 1 and len(filled) <= len(cells) / 2
        last = ""
        for j, cell in enumerate(cells):
            if cell:
                last = cell
            elif spanning and last:
                cell = last
            if cell and cell not in names[j]:
                names[j].append(cell)
        if spanning and len(filled) == 1:
            first = cells[filled[0]]
            for j in range(filled[0]):
                if first not in names[j]:
                    names[j].insert(0, first)
    return [" ".join(parts) or f"column {j + 2}" for j, parts in enumerate(names)]


def report_shaped(table: ClientTable, report: ReportTable) -> str:
    """ "report" for a table as printed (its label column unnamed or headed by a unit, its
    header in its rows, years heading its columns); "periods" for such a table printed with its
    periods down the side; "printed" for a table keyed by a named first column whose cells are
    written for people ($1,234, (3.1), 12%); "" for a tidy data table (rows of dates or fiscal
    periods under a named key, plain numbers)."""
    if not report.rows or not report.value_columns:
        return ""
    labels = [r.label.strip() for r in report.rows if r.label.strip()]
    if not labels:
        return ""
    periods = sum(bool(_PERIOD.match(x)) for x in labels)
    if periods > len(labels) / 2:
        return "periods" if report.header_rows > 0 else ""
    first = str(table.columns[0]).strip() if table.columns else ""
    unnamed = placeholder(first) or bool(re.search(r"(?i)\bin\s+\w+s\b|\(|单位", first))
    years = any(report.years(j) for j in report.value_columns)
    if report.header_rows > 0 or years or unnamed:
        return "report"
    printed = any(
        isinstance(c, str) and re.search(r"\d,\d{3}|[$€£¥]\s*\d|^\(\d|\d\s*%$", c.strip())
        for row in table.rows
        for c in row
    )
    return "printed" if printed else ""


# A row label that is a period: 2019, FY2024, 2020 - 2024, Q1 2019, 2019-06-30, 6/30/2019.
_PERIOD = re.compile(
    r"(?i)^\s*(?:(?:fy|f|q[1-4]|h[12])\s*'?)?(?:19|20)?\d{2}(?:\s*[-–/]\s*(?:19|20)?\d{2,4})?"
    r"(?:\s*(?:q[1-4]|h[12]))?\s*$|^\d{4}-\d{2}|^\d{1,2}/\d{1,2}/\d{2,4}$"
)
