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
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from datapilot.brains.offline.builder import PlanBuilder
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.core.intent import EntityRef, Intent
from datapilot.core.understanding import Understanding
from datapilot.data.report_tables import _YEAR, ReportTable, _year, read_report

CJK = re.compile(r"[\u4e00-\u9fff]")
_DESCRIBE = re.compile(
    r"(?i)\b(?:summari[sz]e|summary|overview|describe|what(?:'s| is) in)\b|总结|概述|概括"
)
_CONDITION = re.compile(
    r"(?i)(?:\b(?:less|more|greater|fewer|lower|higher)\s+than|\b(?:above|below|exceed(?:s|ed)?|under|over))"
    r"\s+\$?\d[\d,.]*(?!\s*(?:years?|months?|days?|weeks?)\b)(?![\d,.])"
)
_LISTING = re.compile(
    r"(?i)^\s*(?:what|which)\s+(?:are|were)\s+the\s+(?:\w+\s+){0,3}(?:types|kinds|components|items|categories|segments|elements)\b"
    r"|^\s*what\s+(?:types|kinds|components|items|categories)\b|\bconsist\s+of\b|\blisted\b"
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
    ("average", re.compile(r"(?i)\baverage\b|\bmean\b|平均")),
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
_STOP = set(
    [
        "#",
        "noqa:",
        "SIM905",
        "the",
        "a",
        "an",
        "of",
        "in",
        "on",
        "for",
        "and",
        "or",
        "to",
        "from",
        "between",
        "what",
        "was",
        "were",
        "is",
        "are",
        "did",
        "does",
        "do",
        "how",
        "much",
        "many",
        "by",
        "at",
        "as",
        "its",
        "it",
        "their",
        "company's",
        "company",
        "group",
        "total's",
        "which",
        "year",
        "years",
        "fy",
        "fys",
        "both",
        "value",
        "values",
        "amount",
        "amounts",
        "figure",
        "figures",
        "change",
        "changes",
        "changed",
        "increase",
        "increased",
        "increases",
        "decrease",
        "decreased",
        "decreases",
        "percentage",
        "percent",
        "difference",
        "average",
        "mean",
        "ratio",
        "proportion",
        "share",
        "growth",
        "rate",
        "sum",
        "combined",
        "altogether",
        "compared",
        "with",
        "versus",
        "vs",
        "than",
        "over",
        "respectively",
        "there",
        "that",
        "this",
        "these",
        "those",
        "be",
        "been",
        "has",
        "have",
        "had",
        "s",
        "nominal",
        "i",
        "we",
        "our",
        "across",
        "during",
        "within",
        "under",
        "financial",
    ]
)
_ABBREVIATIONS = {
    "pp&e": "property plant equipment", "ppe": "property plant equipment",
    "r&d": "research development", "sg&a": "selling general administrative",
    "d&a": "depreciation amortization", "amortisation": "amortization",
    "eps": "earnings per share", "capex": "capital expenditure", "opex": "operating expense",
    "ebit": "ebit", "no.": "number", "&": "and", "approx": "approximately",
}  # fmt: skip
_WORD = re.compile(r"[a-z0-9&]+(?:&[a-z]+)?|[\u4e00-\u9fff]")


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """Content words of a label or question, compared loosely (stems, abbreviations)."""
    lowered = text.casefold().replace("’", "'").replace("'s", "")
    lowered = re.sub(r"\(\s*(?:\d|[a-z])\s*\)|\*+|\(note \d+\)", " ", lowered)
    for short, long in _ABBREVIATIONS.items():
        lowered = re.sub(rf"(?<![a-z]){re.escape(short)}(?![a-z])", f" {long} ", lowered)
    found = []
    for word in _WORD.findall(lowered):
        if word in _STOP or _YEAR.fullmatch(word):
            continue
        found.append(_stem(word))
    return found


@dataclass
class _Match:
    row: int
    score: float


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


def operation_of(text: str) -> str | None:
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


def _row_score(question: list[str], table: ReportTable, index: int) -> float:
    row = table.rows[index]
    label = words(row.label)
    if not label:
        return 0.0
    asked = set(question)
    hit = sum(1 for w in label if w in asked)
    section = [w for w in words(row.section) if w not in label]
    under = sum(1 for w in section if w in asked)
    cover_label = hit / len(label)
    cover_question = (hit + under) / max(len(asked), 1)
    fuzzy = fuzz.token_set_ratio(" ".join(label), " ".join(question)) / 100
    exact = 0.2 if " ".join(label) in " ".join(question) else 0.0
    return 0.5 * cover_label + 0.35 * cover_question + 0.15 * fuzzy + exact


def find_rows(phrase: str, table: ReportTable) -> list[_Match]:
    """Rows ranked by how well their label (and section) matches `phrase`."""
    question = words(phrase)
    scored = [_Match(i, _row_score(question, table, i)) for i in range(len(table.rows))]
    return sorted(scored, key=lambda m: -m.score)


def _years(text: str) -> list[str]:
    found = [_year(y) for y in _YEAR.findall(text)]
    found += [m for m in re.findall(r"((?:19|20)\d{2})\s*年", text) if m not in found]
    return list(dict.fromkeys(found))


def find_columns(text: str, table: ReportTable, operation: str) -> tuple[list[int], str]:
    """The value columns the question names (by year, then by column words), in the order of
    the operation: start before end for a change."""
    values = table.value_columns
    years = _years(text)
    asked_words = set(words(text))
    chosen: list[int] = []
    span = _RANGE.search(text)
    if span and operation in ("average", "sum", "max", "min"):
        low, high = sorted((span["a"] or span["c"], span["b"] or span["d"]))
        inside = [j for j in values if table.years(j) and low <= table.years(j)[0] <= high]
        firsts: dict[str, int] = {}
        for j in inside:
            firsts.setdefault(table.years(j)[0], j)
        if len(firsts) != int(high) - int(low) + 1:
            return [], f"every year from {low} to {high}"
        return list(firsts.values()), ""
    lowered = text.casefold()
    percent_asked = bool(re.search(r"(?i)%|percent|proportion|比例|占比", text))
    usable = [j for j in values if percent_asked or "%" not in table.columns[j]] or values
    literal = _literal_columns(text, table, usable)
    if len(literal) >= 2 or (literal and not years):
        chosen = literal
        years = []
        if operation in ("change", "pct_change") and len(chosen) >= 2:
            first, second = (table.columns[j].casefold().split()[-1] for j in chosen[:2])
            between = lowered[lowered.find(first) : lowered.rfind(second)]
            later_first = re.search(
                r"\b(?:from|compared|against|versus|vs|over|relative)\b|比", between
            )
            return ([chosen[1], chosen[0]] if later_first else chosen[:2]), ""
        return chosen, ""
    for year in years:
        matching = [j for j in usable if year in table.years(j)]
        if len(matching) > 1:
            overlap = {j: len(set(words(table.columns[j])) & asked_words) for j in matching}
            top = max(overlap.values())
            matching = [j for j in matching if overlap[j] == top]
        if not matching:
            return [], year
        chosen.append(matching[0])
    if not years:
        worded = [j for j in usable if (set(words(table.columns[j])) - {"change"}) & asked_words]
        yearly = [j for j in usable if table.years(j)]
        if len(worded) > 1:
            overlap = {j: len(set(words(table.columns[j])) & asked_words) for j in worded}
            top = max(overlap.values())
            worded = [j for j in worded if overlap[j] == top]
        if len(worded) == 1 and operation in ("value", "difference", "ratio", "proportion"):
            chosen = worded
        elif len(usable) == 1:
            chosen = usable
        elif operation in ("average", "sum", "max", "min", "change", "pct_change") and yearly:
            firsts: dict[str, int] = {}
            for j in yearly:
                firsts.setdefault(table.years(j)[0], j)
            chosen = list(firsts.values())
            if operation in ("change", "pct_change") and len(chosen) != 2:
                return [], "the two columns to compare"
        elif yearly:
            chosen = [yearly[0]]  # the latest printed first, as reports do
        else:
            return [], "the column"
    if operation in ("change", "pct_change") and len(chosen) >= 2:
        start, end = _order(text, years, chosen, table)
        chosen = [start, end]
    return list(dict.fromkeys(chosen)) if operation != "value" else chosen, ""


def _literal_columns(text: str, table: ReportTable, usable: list[int]) -> list[int]:
    """Columns whose printed name (or its last header cell: "2021-2022", "F19", "Q4") the
    question writes out, in the order it writes them."""
    lowered = text.casefold()
    found: list[tuple[int, int]] = []
    for j in usable:
        name = table.columns[j].casefold()
        tail = name.split()[-1] if name.split() else name
        for candidate in (name, tail):
            year_only = _YEAR.fullmatch(candidate.rstrip("年度"))
            if len(candidate) >= 4 and re.search(r"\d", candidate) and not year_only:
                at = lowered.find(candidate)
                if at >= 0:
                    found.append((at, j))
                    break
    return [j for _, j in sorted(found)]


_RANGE = re.compile(
    r"(?i)(?:from|between)\s+(?:fiscal\s+|fy\s*)?(?P<a>(?:19|20)\d{2})\s*(?:to|and|through|-|–)\s*"
    r"(?:fiscal\s+|fy\s*)?(?P<b>(?:19|20)\d{2})|(?P<c>(?:19|20)\d{2})\s*[-–至到]\s*(?P<d>(?:19|20)\d{2})"
)


def _order(text: str, years: list[str], chosen: list[int], table: ReportTable) -> tuple[int, int]:
    """Start and end of a change: "from A to B", "in B from A", "B compared to A", else the
    earlier year first."""
    lowered = text.casefold()
    if len(years) >= 2:
        a, b = years[0], years[1]
        if re.search(
            rf"{b}\D{{0,40}}(?:from|compared\s+(?:to|with)|against|versus|vs\.?|over|relative to)\s+(?:the\s+)?(?:\w+\s+)?{a}",  # noqa: E501
            lowered,
        ):
            pass
        by_year = {y: j for y, j in zip(years, chosen, strict=False)}
        later_first = re.search(
            rf"{a}\D{{0,40}}(?:from|compared\s+(?:to|with)|against|versus|vs\.?|relative to)"
            rf"\s+(?:the\s+)?(?:fiscal\s+|year\s+)?{b}|{a}年.{{0,6}}比{b}",
            lowered,
        )
        if later_first:
            return by_year[b], by_year[a]
        if re.search(rf"from\s+(?:fiscal\s+|fy\s*)?{a}\D{{1,12}}{b}", lowered) or a < b:
            return by_year[a], by_year[b]
        return by_year[b], by_year[a]
    ordered = sorted(chosen, key=lambda j: (table.years(j) or ["0"])[0])
    return ordered[0], ordered[-1]


_TWO_ROWS = (
    re.compile(r"(?i)\bratio\s+of\s+(?P<a>.+?)\s+(?:to|and|over|against)\s+(?P<b>.+)"),
    re.compile(
        r"(?i)(?:percentage|proportion|share|fraction|portion|percent)\s+(?:\w+\s+)?(?:of|constitution of)\s+(?P<a>.+?)\s+(?:in|out of|among|over|within)\s+(?:the\s+)?(?P<b>.+)"  # noqa: E501
    ),
    re.compile(
        r"(?i)(?:percentage|proportion|share|fraction|portion|percent)\s+(?:\w+\s+)?(?:of|constitution of)\s+(?P<a>.+?)\s+(?:of|to|from)\s+(?:the\s+)?(?P<b>.+)"  # noqa: E501
    ),
    re.compile(r"(?i)(?P<a>.+?)\s+as\s+a\s+(?:percentage|proportion|%)\s+of\s+(?P<b>.+)"),
    re.compile(r"(?i)\bdifference\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)"),
    re.compile(r"(?P<a>.+?)占(?P<b>.+?)的?(?:比例|比重|百分比)"),
)


def _two_rows(text: str, operation: str) -> tuple[str, str] | None:
    patterns = {"ratio": _TWO_ROWS[:1], "proportion": _TWO_ROWS[1:4] + _TWO_ROWS[5:],
                "difference": _TWO_ROWS[4:5]}.get(operation, ())  # fmt: skip
    for pattern in patterns:
        found = pattern.search(text)
        if found and words(found["a"]) and words(found["b"]):
            return found["a"], found["b"]
    return None


_GOOD = 0.62  # a row's score to be taken as the one named


def _one_row(phrase: str, table: ReportTable) -> tuple[int | None, list[str]]:
    ranked = find_rows(phrase, table)
    closest = [table.rows[m.row].label for m in ranked[:3] if table.rows[m.row].label]
    if not ranked or ranked[0].score < _GOOD:
        return None, closest
    return ranked[0].row, closest


def read_table_question(text: str, table: ReportTable) -> Asked | None:
    """The cells `text` asks about in `table` and the operation, or None for a question that
    is not table arithmetic (left to the general reader)."""
    operation = operation_of(text) or "value"
    if (
        operation == "change"
        and re.search(r"(?i)\bdifference\s+between\b", text)
        and len(_years(text)) <= 1
    ):
        operation = "difference"
    asked = Asked(operation=operation)
    if _CONDITION.search(text) or _LISTING.search(text):
        asked.missing = (
            "a single figure to compute (the question asks for rows meeting a condition or a list)"
        )
        return asked
    named = {name for name, pattern in _OPS if pattern.search(text) and name != "extreme"}
    if "average" in named and named & {"change", "pct_change", "ratio", "proportion"}:
        # An average of changes, a change of averages: not one of the operations read here.
        asked.missing = "one operation to compute (the question combines several)"
        return asked
    pair = _two_rows(text, operation)
    if operation == "ratio" and pair is None:
        operation = asked.operation = "ratio_columns"
    totals = [j for j in table.value_columns if "total" in table.columns[j].casefold()]
    if (
        operation == "proportion"
        and pair is not None
        and (not _distinct(pair, table) or (totals and "total" in pair[1].casefold()))
    ):
        across = _column_pair(pair, table)
        if across is not None:
            asked.rows, asked.columns = across
            asked.subject = table.rows[across[0][0]].label
            return asked
    if operation == "proportion":
        pair = pair if pair is not None and _distinct(pair, table) else None
        if pair is None:
            of_total = _of_total(text, table)
            if of_total is None:
                asked.missing = "the part and the total of the proportion"
                asked.closest = [r.label for r in table.rows if "total" in r.label.casefold()][:5]
                return asked
            pair = of_total
    if pair is not None:
        rows = []
        for part in pair:
            row, closest = _one_row(part, table)
            if row is None:
                asked.missing, asked.closest = part.strip(" ?"), closest
                return asked
            rows.append(row)
        asked.rows = rows
        asked.subject = f"{table.rows[rows[0]].label} / {table.rows[rows[1]].label}"
    else:
        ranked = find_rows(text, table)
        if not ranked or ranked[0].score < _GOOD:
            if re.search(r"(?i)\band\b|、|和", text) and operation in ("value", "sum", "average"):
                split = _several_rows(text, table)
                if split:
                    asked.rows = split
            if not asked.rows:
                asked.missing = "the row"
                asked.closest = [
                    table.rows[m.row].label for m in ranked[:3] if table.rows[m.row].label
                ]
                return asked
        else:
            asked.rows = [ranked[0].row]
            # "X and Y respectively": a second row as good as the first
            if (
                len(ranked) > 1
                and operation in ("value", "sum", "average")
                and re.search(r"(?i)\band\b", text)
            ):
                split = _several_rows(text, table)
                if split and ranked[0].row in split:
                    asked.rows = split
        asked.subject = " and ".join(table.rows[i].label for i in asked.rows)
    col_op = "ratio" if operation == "ratio_columns" else operation
    if pair is not None and operation in ("ratio", "proportion", "difference"):
        col_op = "value"
    columns, missing = find_columns(text, table, col_op)
    if not columns:
        asked.missing = missing or "the column"
        asked.closest = list(table.columns)
        return asked
    if pair is not None:
        columns = columns[:1]
    if (
        operation == "value"
        and len(columns) * len(asked.rows) > 1
        and re.search(r"(?i)\btotal\b|合计|总", text)
        and not any("total" in table.rows[i].label.casefold() for i in asked.rows)
    ):
        asked.operation = operation = "sum"
    if operation == "average" and len(columns) * len(asked.rows) < 2:
        asked.missing = "the cells to average (name the years or rows)"
        asked.closest = list(table.columns)
        return asked
    if operation == "value" and len(columns) > 1 and len(asked.rows) == 1 and not _years(text):
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


def _column_pair(pair: tuple[str, str], table: ReportTable) -> tuple[list[int], list[int]] | None:
    """ "the operating leases of more than 5 years in the total operating leases": one row,
    the part's column over the total's."""
    row, _ = _one_row(pair[0], table)
    columns = []
    for part in pair:
        found = _literal_columns(part, table, table.value_columns)
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
    if _one_row(re.sub(r"(?i)\btotal\b", " ", pair[1]), table)[0] != row:
        return None
    return [row], columns


def _distinct(pair: tuple[str, str], table: ReportTable) -> bool:
    found = [_one_row(part, table)[0] for part in pair]
    return None not in found and found[0] != found[1]


def _of_total(text: str, table: ReportTable) -> tuple[str, str] | None:
    """ "What percentage of total X is Y": Y over the row labelled total that the question
    names, as label texts to be found again."""
    totals = [i for i, r in enumerate(table.rows) if "total" in r.label.casefold()]
    parts = [i for i in range(len(table.rows)) if i not in totals]
    if not totals or not parts:
        return None
    asked = words(text)
    part = max(parts, key=lambda i: _row_score(asked, table, i))
    total = max(totals, key=lambda i: _row_score(asked, table, i))
    if _row_score(asked, table, part) < _GOOD * 0.8:
        return None
    return table.rows[part].label, table.rows[total].label


def _several_rows(text: str, table: ReportTable) -> list[int]:
    parts = re.split(r"(?i)\s*,\s*|\s+and\s+|、|和", text)
    found: list[int] = []
    for part in parts:
        if not words(part):
            continue
        row, _ = _one_row(part, table)
        if row is not None and row not in found:
            found.append(row)
    return found if len(found) >= 2 else []


def report_shaped(table: ClientTable, report: ReportTable) -> bool:
    """A table as printed (header found in its rows, years heading its columns or cells written
    for people), as opposed to a tidy data table keyed by dates or years."""
    if not report.rows or not report.value_columns:
        return False
    labels = [r.label for r in report.rows if r.label]
    if not labels or sum(bool(_YEAR.fullmatch(x.strip())) for x in labels) > len(labels) / 2:
        return False
    if sum(bool(re.match(r"\d{4}-\d{2}", x)) for x in labels) > len(labels) / 2:
        return False
    years = any(report.years(j) for j in report.value_columns)
    printed = any(
        isinstance(c, str) and re.search(r"[,$€£¥%()]|^—$", c) for row in table.rows for c in row
    )
    return report.header_rows > 0 or years or printed


def table_understanding(question: str, context: QuestionContext) -> Understanding | None:
    """The answer plan for an arithmetic question over a report table the client sent, a
    `no_data` naming what was not found, or None when this is not such a question."""
    if not context.tables or _CHART.search(question):
        return None
    zh = bool(CJK.search(question))
    best: tuple[float, ClientTable, ReportTable, Asked] | None = None
    for table in context.tables[:4]:
        report = read_report(table)
        if not report_shaped(table, report):
            continue
        asked = read_table_question(question, report)
        if asked is None:
            continue
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
    args = {
        "name": table.name,
        "operation": operation,
        "rows": asked.rows,
        "columns": asked.columns,
        "subject": asked.subject,
    }
    if report.scale:
        args["scale"] = report.scale
        intent.trace.append(f"the table's figures are in {report.scale}")
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
