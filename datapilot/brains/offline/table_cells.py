"""Where a question's figures are in a report table: the rows it names by meaning (case,
plurals, abbreviations, word order, a row under its section) and the columns it names by year,
period or column words, in the order an operation needs them ("from 2018 to 2019", "in 2019
compared to 2018", 2019年比2018年).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from datapilot.data.report_tables import YEAR, ReportTable, year_of

_STOP_WORDS = """
the a an of in on for and or to from between what was were is are did does
do how much many by at as its it their company's company group total's which year years
fy fys both value values amount amounts figure figures change changes changed increase increased
increases decrease decreased decreases percentage percent difference average mean ratio
proportion share growth rate sum combined altogether compared with versus vs than over respectively
there that this these those be been has have had s nominal i we our across during within
under financial
"""

_STOP = frozenset(_STOP_WORDS.split())

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
    # a note reference is no content: "Transfers (Note (b))", "(note 7(b))"
    lowered = _NOTE.sub(" ", lowered)
    lowered = re.sub(r"\(\s*(?:\d|[a-z])\s*\)|\*+", " ", lowered)
    # "between 2018 year end and 2019 year end": the year's end is a date, not a row's words
    lowered = re.sub(r"\b((?:19|20)\d{2})\s+year[-\s]?ends?\b", r"\1", lowered)
    for short, long in _ABBREVIATIONS.items():
        lowered = re.sub(rf"(?<![a-z]){re.escape(short)}(?![a-z])", f" {long} ", lowered)
    # "non-" makes one word of what follows: "non-USD" names no "USD" line, nor "non-current"
    # a "current" one
    lowered = re.sub(r"\bnon[-\s]+(?=[a-z])", "non", lowered)
    # a footnote digit printed against the word: "Order intake1", "Incentive schemes1"
    lowered = re.sub(r"(?<=[a-z]{3})\d\b", " ", lowered)
    found = []
    for word in _WORD.findall(lowered):
        if word in _STOP or YEAR.fullmatch(word):
            continue
        word = _SAME.get(word, word)
        found.append(_stem(word))
    return found


_NOTE = re.compile(r"\(\s*notes?\b[^()]*(?:\([^()]*\)[^()]*)*\)")

# Words a statement and a question use for the same thing.
_SAME = {"ending": "end", "closing": "end", "beginning": "begin", "opening": "begin"}
# Small counts said in words match the digits printed: "less than one year", "Less Than 1 Year".
_SAME |= {w: str(n) for n, w in enumerate(("one", "two", "three", "four", "five"), start=1)}


@dataclass
class _Match:
    row: int
    score: float


def main_words(label: str) -> list[str]:
    """A label's words outside parentheses ("Running water consumption" of "… (tonnes)"): a
    unit or qualifier in brackets names the row less than the words before it."""
    return words(re.sub(r"\([^()]*\)", " ", label)) or words(label)


def row_score(question: list[str], table: ReportTable, index: int) -> float:
    row = table.rows[index]
    label = words(row.label)
    if not label:
        return 0.0
    asked = set(question)
    hit = sum(1 for w in label if w in asked)
    main = main_words(row.label)
    section = [w for w in words(row.section) if w not in label]
    under = sum(1 for w in set(section) if w in asked)
    cover_label = 0.7 * sum(1 for w in main if w in asked) / len(main) + 0.3 * hit / len(label)
    # "LTV ratio" names "Loan-to-value (LTV) ratio": an abbreviation the label spells out
    short = {w.casefold() for w in re.findall(r"\(([A-Za-z&]{2,6})\)", row.label)}
    if short & asked:
        cover_label = 1.0
        hit = max(hit, 1)
    cover_question = min(1.0, (len(set(label) & asked) + under) / max(len(asked), 1))
    fuzzy = fuzz.token_set_ratio(" ".join(label), " ".join(question)) / 100
    exact = 0.2 if " ".join(label) in " ".join(question) else 0.0
    return 0.5 * cover_label + 0.35 * cover_question + 0.15 * fuzzy + exact


def find_rows(phrase: str, table: ReportTable) -> list[_Match]:
    """Rows ranked by how well their label (and section) matches `phrase`; of rows matching
    as well, the one named first ("the change in transfers between 2018 year end and …")."""
    question = words(phrase)
    asked = set(question)
    head = set(words(_HEAD.split(phrase, maxsplit=1)[0]))
    percent_asked = bool(PERCENT_ASKED.search(phrase))
    scored = []
    covered: dict[int, set[str]] = {}
    for i, row in enumerate(table.rows):
        score = row_score(question, table, i)
        label = set(words(row.label))
        if label and head and label <= head:
            score += 0.05
        if label and label <= asked:
            covered[i] = label
        scored.append(_Match(i, score))
    # A label the question names whole beats one it names a part of: "net Total other
    # (expense) income" is "Total other (expense) income, net", not "Other (expense) income".
    for match in scored:
        whole = covered.get(match.row)
        if whole is None:
            continue
        smaller = [m.score for m in scored if m.row in covered and covered[m.row] < whole]
        if smaller:
            match.score = max(match.score, max(smaller) + 0.01)
    if not percent_asked:
        for match in scored:
            if percent_row(table, match.row):
                match.score -= 0.15  # "total net revenues": the amount, not "Percentage of …"
    named = set(years_named(phrase))
    if named and rows_carry_years(table):
        # "granted in 2019" beside "Granted (2018)" and "Granted (2019)": the year named
        for match in scored:
            printed = set(years_named(table.rows[match.row].label))
            match.score += 0.1 if printed & named else (-0.3 if printed else 0.0)
    return sorted(scored, key=lambda m: -m.score)


PERCENT_ASKED = re.compile(
    r"(?i)%|percent|proportion|\bratio\b|\brate\b|margin|\bshare\s+of\b|\bmix\b|比例|占比|率"
)


def percent_row(table: ReportTable, index: int) -> bool:
    """A row whose figures are all printed as percentages."""
    printed = [c for c in table.rows[index].cells if c.strip()]
    return bool(printed) and all("%" in c for c in printed)


_HEAD = re.compile(
    r"(?i)\b(?:between|from|in|for|at|as\s+of|during)\s+(?:the\s+)?(?:fiscal\s+)?(?:years?\s+)?"
    r"(?:19|20)\d{2}"
)


def years_named(text: str) -> list[str]:
    found = [year_of(y) for y in YEAR.findall(text)]
    found += [m for m in re.findall(r"((?:19|20)\d{2})\s*年", text) if m not in found]
    return list(dict.fromkeys(found))


# A year said right before "average" ("the 2019 average defined benefit schemes").
_YEAR_AVERAGE = re.compile(r"(?i)\b(?:fy\s*|fiscal\s+)?(?:19|20)\d\d\s+average\b")


def rows_carry_years(table: ReportTable) -> bool:
    """Whether the table's years are in its line labels ("Non-vested at December 31, 2019",
    "Granted (2019)"), its columns naming none."""
    return not any(table.years(j) for j in table.value_columns) and any(
        YEAR.search(row.label) for row in table.rows
    )


def find_columns(text: str, table: ReportTable, operation: str) -> tuple[list[int], str]:
    """The value columns the question names (by year, then by column words), in the order of
    the operation: start before end for a change."""
    values = table.value_columns
    years = years_named(text)
    if years and rows_carry_years(table):
        years = []  # "granted in 2019" in a roll-forward table: the years name its rows
    asked_words = set(words(text))
    chosen: list[int] = []
    tied: dict[str, list[int]] = {}
    lowered = _flat(text)
    percent_asked = bool(re.search(r"(?i)%|percent|proportion|比例|占比", text))
    usable = [j for j in values if percent_asked or "%" not in table.columns[j]] or values
    spans = literal_spans(text, table, usable)
    literal = [j for _, j in spans]
    if len(literal) >= 2 or (literal and not years):
        if operation in ("change", "pct_change") and len(literal) >= 2:
            (first_at, first), (second_at, second) = spans[:2]
            between = lowered[first_at:second_at]
            later_first = re.search(
                r"\b(?:from|compared|against|versus|vs|over|relative)\b|比", between
            )
            start, end = (second, first) if later_first else (first, second)
            # A change runs forward in time ("in Q4 2019 to Q4 2018" is 2018 to 2019).
            when = column_time(table.columns[start]), column_time(table.columns[end])
            if when[0] is not None and when[1] is not None and when[0] > when[1]:
                start, end = end, start
            return [start, end], ""
        return literal, ""
    span = RANGE.search(text)
    listing = operation == "value" and re.search(r"(?i)respectively|each year|every year", text)
    if span and (operation in ("average", "sum", "max", "min") or listing):
        low, high = sorted((span["a"] or span["c"], span["b"] or span["d"]))
        inside = [j for j in values if table.years(j) and low <= table.years(j)[0] <= high]
        firsts: dict[str, int] = {}
        for j in inside:
            firsts.setdefault(table.years(j)[0], j)
        if len(firsts) != int(high) - int(low) + 1:
            return [], f"every year from {low} to {high}"
        return list(firsts.values()), ""
    for year in years:
        matching = [j for j in usable if year in table.years(j)]
        if len(matching) > 1:
            # "2019" rather than "2019 over 2018" (a change column)
            single = [j for j in matching if len(table.years(j)) == 1]
            matching = single or matching
        if len(matching) > 1:
            overlap = {j: len(set(words(table.columns[j])) & asked_words) for j in matching}
            top = max(overlap.values())
            matching = [j for j in matching if overlap[j] == top]
        named: list[int] = []
        if len(matching) > 1:
            # "the leasehold external and internal valuation": the columns told apart by a
            # word the question says; where it says none, the column whose words all the
            # others share ("USD denominated" beside "Non-USD denominated").
            kept = [set(words(table.columns[j])) for j in matching]
            shared = set.intersection(*kept)
            named = [j for j, w in zip(matching, kept, strict=True) if (w - shared) & asked_words]
            plain = [j for j, w in zip(matching, kept, strict=True) if w == shared]
            if named:
                matching = named
            elif len(plain) == 1 and len(years) == 1:
                matching = plain  # (of several years, `_one_kind` matches their columns)
        if len(matching) > 1 and len(years) == 1 and named:
            if operation == "value":
                tied[year] = matching
                chosen.extend(matching)  # each column named, respectively
                continue
            if operation in ("change", "pct_change", "difference") and len(matching) == 2:
                # "the difference in the high and low prices in 2019": two columns of the year,
                # in the order the question names them
                return _in_order(matching, table, lowered), ""
        if len(matching) > 1:
            # "within Appropriation of earnings": a header the question writes out
            written = [j for j in matching if _header_written(table.columns[j], lowered)]
            matching = written or matching
        if len(matching) > 1:
            # "in terms of $M": a unit the question writes as the column prints it
            units = [j for j in matching if _units(table.columns[j]) & _units(text)]
            matching = units or matching
        if not matching:
            return [], year
        tied[year] = matching
        chosen.append(matching[0])
    if not years:
        by_name = sorted(
            (lowered.find(name), j)
            for j in usable
            if len(name := _flat(table.columns[j])) >= 6 and name in lowered
        )
        if len(by_name) >= 2 and operation in ("value", "sum"):
            # "the balances of Application Software and Process Technologies, respectively":
            # columns named by their whole printed names, in the order said
            return [j for _, j in by_name], ""
        worded = [j for j in usable if (set(words(table.columns[j])) - {"change"}) & asked_words]
        yearly = [j for j in usable if table.years(j)]
        if len(worded) > 1:
            overlap = {j: len(set(words(table.columns[j])) & asked_words) for j in worded}
            top = max(overlap.values())
            worded = [j for j in worded if overlap[j] == top]
        if len(worded) > 1 and all(table.years(j) for j in worded):
            # "the net sales in the third quarter" beside "2019 Third" and "2018 Third": the
            # latest year printed first, as reports do
            latest = table.years(worded[0])
            worded = [j for j in worded if table.years(j) == latest]
        dated = all(table.years(j) for j in worded)
        if len(worded) == 2 and operation in ("change", "pct_change") and dated:
            # "between the first and second quarter"
            return _in_order(worded, table, lowered), ""
        if len(worded) == 1 and operation in ("value", "difference", "ratio", "proportion"):
            chosen = worded
        elif len(usable) == 1:
            chosen = usable
        elif operation in ("average", "sum", "max", "min", "change", "pct_change") and yearly:
            by_year: dict[str, int] = {}
            for j in yearly:
                by_year.setdefault(table.years(j)[0], j)
            chosen = list(by_year.values())
            if operation in ("change", "pct_change") and len(chosen) != 2:
                return [], "the two columns to compare"
        elif yearly:
            chosen = [yearly[0]]  # the latest printed first, as reports do
        else:
            return [], "the column"
    if operation in ("change", "pct_change") and len(years) == 1 and len(chosen) == 1:
        # "the percentage change in audit fees in 2019": 2019 against the year before
        before = [j for j in usable if str(int(years[0]) - 1) in table.years(j)]
        if before:
            chosen = [before[0], chosen[0]]
            return chosen, ""
    said = _YEAR_AVERAGE.search(text) if operation == "average" else None
    if said and len(years) == 1 and len(chosen) == 1 and len(table.years(chosen[0])) == 1:
        # "the 2019 average free cash flow": the year's average, the mean of its figure and
        # the year before's (a balance's closing and opening), as reports average a balance
        before = [j for j in usable if table.years(j) == [str(int(years[0]) - 1)]]
        if before:
            return [chosen[0], before[0]], ""
    if len(years) >= 2 and len(chosen) == len(years):
        kinds = _one_kind(years, tied, table)
        if kinds is None:
            printed = ", ".join(table.columns[j] for y in years for j in tied[y])
            return [], f"one kind of column for {' and '.join(years)} (printed: {printed})"
        chosen = kinds
    if operation in ("change", "pct_change") and any(_is_change(table.columns[j]) for j in chosen):
        return [], "the figures themselves (these columns are already changes between years)"
    if operation in ("change", "pct_change") and len(chosen) >= 2:
        start, end = _order(text, years, chosen, table)
        chosen = [start, end]
        if start == end:
            return [], "two different columns to compare"

    return list(dict.fromkeys(chosen)) if operation != "value" else chosen, ""


_ORDINAL = re.compile(r"(?i)\b(first|second|third|fourth)\b")
_ORDINALS = ("first", "second", "third", "fourth")


def _in_order(columns: list[int], table: ReportTable, lowered: str) -> list[int]:
    """Two columns of a change: earlier first when the headers tell their time ("2019 First"
    before "2019 Second"), else in the order the question names them ("the high and low")."""
    named = sorted(columns, key=lambda j: _named_at(table.columns[j], lowered))
    when = []
    for j in named:
        said = _ORDINAL.search(table.columns[j])
        place = _ORDINALS.index(said.group(1).lower()) if said else None
        when.append((column_time(table.columns[j]), place))
    (t0, q0), (t1, q1) = when
    if (t0 and t1 and t0 > t1) or (t0 == t1 and q0 is not None and q1 is not None and q0 > q1):
        return named[::-1]
    return named


def _named_at(name: str, lowered: str) -> int:
    """Where the question first says a word of the column's header that is no year."""
    at = [lowered.find(w) for w in words(name) if w in lowered]
    return min(at, default=len(lowered))


def _header_written(name: str, lowered: str) -> bool:
    head = _flat(re.sub(r"\(.*?\)", " ", YEAR.sub(" ", name)))
    return len(head) >= 8 and head in lowered


def _units(name: str) -> set[str]:
    return {t.strip("?,.;:()") for t in name.split() if re.search(r"[$€£¥%]|'000", t)}


def _one_kind(years: list[str], tied: dict[str, list[int]], table: ReportTable) -> list[int] | None:
    """One column per year, all of one kind: "Net additions 2019" against "Net additions
    2018", never against the 2019 total printed beside them. A year printed in several
    columns takes the one like the other years' single column; where every year is printed
    in several kinds and the question names none, None."""
    if all(len(tied[y]) == 1 for y in years):
        return [tied[y][0] for y in years]
    settled = [set(_kind_key(table, tied[y][0])) for y in years if len(tied[y]) == 1]
    chosen = []
    for year in years:
        if len(tied[year]) == 1:
            chosen.append(tied[year][0])
            continue
        if settled:
            like = {
                j: max(_alike(set(_kind_key(table, j)), k) for k in settled) for j in tied[year]
            }
            best = max(like.values())
            picks = [j for j, v in like.items() if v == best]
        else:
            common = set.intersection(*[{_kind_key(table, j) for j in tied[y]} for y in years])
            picks = [j for j in tied[year] if _kind_key(table, j) in common]
        if len({_kind_key(table, j) for j in picks}) != 1:
            return None
        chosen.append(picks[0])
    return chosen


def _alike(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _kind_key(table: ReportTable, column: int) -> tuple[str, ...]:
    """A column's header without its period: the kind of figure it holds."""
    name = re.sub(
        r"(?i)\b(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*\d{0,2},?"
        r"|fiscal|years?|ended|ending|as\s+(?:of|at)|\(\d\))",
        " ",
        table.columns[column],
    )
    name = YEAR.sub(" ", name)
    return tuple(re.findall(r"[a-z%$]+", name.casefold()))


def _is_change(name: str) -> bool:
    """ "2019 over 2018", "Change between 2019 and 2018", "Variance": a change column."""
    return bool(
        re.search(r"(?i)\b(?:change|variance|increase|decrease)\b", name)
        or re.search(r"(?i)(?:19|20)\d{2}\s+(?:over|and|vs\.?|versus|compared)\s", name)
    )


def _flat(text: str) -> str:
    """Text compared as written, dashes and spacing aside: "2020 – 2024" is "2020-2024"."""
    text = re.sub(r"\s*[-–—−]\s*", "-", text.casefold())
    return re.sub(r"\s+", " ", text).strip()


def literal_spans(text: str, table: ReportTable, usable: list[int]) -> list[tuple[int, int]]:
    """(position, column) of the columns whose printed name, or a period in it ("2021-2022",
    "2020 – 2024", "F19"), the question writes out, in the order it writes them."""
    lowered = _flat(text)
    found: list[tuple[int, int]] = []
    said_days = [_flat(m.group(0)) for j in usable for m in _MONTH_DAY.finditer(table.columns[j])]
    for j in usable:
        name = table.columns[j]
        tail = name.split()[-1] if name.split() else name
        periods = re.findall(r"(?:19|20)\d{2}\s*[-–—]\s*(?:19|20)?\d{2}", name)
        # "the quarters ended July 27 and April 27 in 2019": a dated column by its month and day
        # (only a day that one column prints: "December 31" over every year names none).
        days = [
            m.group(0) for m in _MONTH_DAY.finditer(name) if said_days.count(_flat(m.group(0))) == 1
        ]
        for candidate in [_flat(c) for c in (name, *periods, *days, tail)]:
            year_only = YEAR.fullmatch(candidate.rstrip("年度"))
            if len(candidate) >= 4 and re.search(r"\d", candidate) and not year_only:
                at = lowered.find(candidate)
                if at >= 0:
                    found.append((at, j))
                    break
    return sorted(found)


def literal_columns(text: str, table: ReportTable, usable: list[int]) -> list[int]:
    """The columns of `literal_spans`, in the order the question writes them."""
    return [j for _, j in literal_spans(text, table, usable)]


_MONTHS = [name.casefold() for name in calendar.month_name[1:]]
_MONTH_DAY = re.compile(rf"(?i)\b(?:{'|'.join(_MONTHS)})\s+\d{{1,2}}\b")
_QUARTER = re.compile(r"(?i)\bQ([1-4])\b")


def column_time(name: str) -> tuple[int, int, int] | None:
    """When a column's period ends, as (year, month, day), from its printed name ("July 27,
    2019", "Q4 2018", "2019"); None without a year."""
    years = YEAR.findall(name)
    if not years:
        return None
    year = int(year_of(years[-1]))
    month_day = _MONTH_DAY.search(name)
    if month_day:
        month, day = month_day.group(0).split()
        return year, _MONTHS.index(month.casefold()) + 1, int(day)
    quarter = _QUARTER.search(name)
    if quarter:
        return year, 3 * int(quarter.group(1)), 31
    return year, 12, 31


RANGE = re.compile(
    r"(?i)(?:from|between|years?)\s+(?:fiscal\s+|fy\s*)?(?P<a>(?:19|20)\d{2})\s*(?:to|and|through|-|–)\s*"
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
        if re.search(rf"from\s+(?:fiscal\s+|fy\s*)?{a}\D{{1,12}}{b}", lowered) and a > b:
            # "from 2018 to 2017": a change runs forward in time, 2017 to 2018
            return by_year[b], by_year[a]
        if re.search(rf"from\s+(?:fiscal\s+|fy\s*)?{a}\D{{1,12}}{b}", lowered) or a < b:
            return by_year[a], by_year[b]
        return by_year[b], by_year[a]
    ordered = sorted(chosen, key=lambda j: (table.years(j) or ["0"])[0])
    return ordered[0], ordered[-1]


GOOD_MATCH = 0.62  # a row's score to be taken as the one named


def one_row(phrase: str, table: ReportTable) -> tuple[int | None, list[str]]:
    ranked = find_rows(phrase, table)
    closest = [table.rows[m.row].label for m in ranked[:3] if table.rows[m.row].label]
    if not ranked or ranked[0].score < GOOD_MATCH:
        return None, closest
    return ranked[0].row, closest
