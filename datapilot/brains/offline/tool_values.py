"""Values a question says for a tool's parameters: numbers with units and scales, days said
relative to today, booleans said by a parameter's name, tickers.

Each reader finds the mentions; `tool_args` decides which parameter each one fills, by the
parameter's schema (name, description, type, maximum).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from typing import Any

from datapilot.brains.offline.numbers import zh_number

# ---- numbers ------------------------------------------------------------------------------
_SCALES = {
    "万亿": 1e12,
    "千万": 1e7,
    "百万": 1e6,
    "万": 1e4,
    "亿": 1e8,
    "千": 1e3,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "mn": 1e6,
    "bn": 1e9,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
}
_SCALE = "|".join(sorted(map(re.escape, _SCALES), key=len, reverse=True))
# Not inside a word, a code (600519.SH) or a date (2026-11-20, 11/30, 10:30); a unit may follow
# the digits at once ("12km"), a scale (1.5万, 2.5 million) and a percent sign too.
_MENTION = re.compile(
    r"(?<![A-Za-z0-9_.\-/:])(?P<cur>[$€£¥￥])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d/:]|\.\d|\.[A-Z]|-\d)"
    rf"(?:\s?(?P<scale>{_SCALE})(?![A-Za-z米克瓦]))?"
    r"(?:\s?(?P<pct>%|％|percent\b|per\s?cent\b))?"
)
_ZH_PERCENT = re.compile(r"百分之\s*(\d+(?:\.\d+)?)")
_ZH_COUNT = re.compile(
    r"(?<![\d零〇一二两三四五六七八九十百千])([二两三四五六七八九十]+)(?=个|条|天|年|次|笔|项)"
)
# A number followed by these is part of a date (11月20日); four digits and 年 are a year.
_DATE_PART = re.compile(r"\s?(?:月|日|号)")
_YEAR = re.compile(r"\s?年")

# A parameter that takes a rate or a share: it alone takes a percent.
_RATE_WORDS = re.compile(
    r"rate|percent|pct|ratio|fraction|yield|return|share|growth|%|利率|收益率|百分|比例|比率|率"
)
_AS_FRACTION = re.compile(r"fraction|decimal|0\s*(?:-|to|–)\s*1\b|\b0\.\d|小数", re.I)
_AS_PERCENT = re.compile(r"percent|percentage|%|0\s*(?:-|to|–)\s*100\b|百分比|百分数", re.I)
# A string parameter that takes a position or a number ("待办事项的序号").
_INDEX_WORDS = re.compile(r"\b(index|position|number|no|ordinal|rank)\b|序号|编号|顺序|第几")
_STOP = frozenset(
    [
        "the",
        "of",
        "in",
        "to",
        "a",
        "an",
        "as",
        "for",
        "and",
        "or",
        "how",
        "many",
        "much",
        "what",
        "which",
        "is",
        "are",
        "be",
        "by",
        "with",
        "e",
        "g",
        "eg",
        "from",
        "per",
        "at",
        "on",
        "this",
        "that",
        "it",
        "its",
    ]
)


@dataclass(frozen=True)
class Mention:
    """A number said in the question."""

    value: float
    text: str
    start: int
    end: int
    percent: bool = False
    money: bool = False
    year: bool = False  # a year or a part of a date: never a number parameter's value


_ROUGH_COUNTS = frozenset({"couple", "few", "several"})


@cache
def _count_words() -> tuple[dict[str, int], re.Pattern[str]]:
    """Counts said in words, two to twenty, from the reader's number words. "one" is left out
    (mostly "which one"), and so are the words of a rough count: a call is never sent with a
    number the question only hints at."""
    from datapilot.brains.offline.vocab import load_vocab

    words = {
        word: count
        for word, count in load_vocab(None).time.numbers.items()
        if 2 <= count <= 20 and word.isalpha() and word not in _ROUGH_COUNTS
    }
    return words, re.compile(rf"\b({'|'.join(words)})\b", re.I)


def number_mentions(question: str) -> list[Mention]:
    """Every number the question says, with its scale applied (1.5万 → 15000, $2,500 → 2500)."""
    found = []
    for match in _MENTION.finditer(question):
        number = float(match.group("num").replace(",", ""))
        scale = match.group("scale")
        number *= _SCALES[scale] if scale else 1
        after = question[match.end() :]
        bare = not (scale or match.group("pct") or match.group("cur"))
        digits = match.group("num")
        year = bare and (
            bool(_DATE_PART.match(after))
            or (len(digits) == 4 and 1800 <= number <= 2199)
            or (len(digits) == 4 and bool(_YEAR.match(after)))
        )
        found.append(
            Mention(
                value=number,
                text=match.group(0).strip(),
                start=match.start(),
                end=match.end(),
                percent=bool(match.group("pct")),
                money=bool(match.group("cur")),
                year=year,
            )
        )
    for match in _ZH_PERCENT.finditer(question):
        value = float(match.group(1))
        found.append(Mention(value, match.group(0), match.start(), match.end(), percent=True))
    # Counts in words ("the last three closes", 三条): "one" is left out, it is mostly "which one".
    count_words, said_in_words = _count_words()
    for match in said_in_words.finditer(question):
        value = float(count_words[match.group(1).lower()])
        found.append(Mention(value, match.group(1), match.start(1), match.end(1)))
    for match in _ZH_COUNT.finditer(question):
        count = zh_number(match.group(1))
        if count is not None:
            found.append(Mention(float(count), match.group(1), match.start(1), match.end(1)))
    return sorted(found, key=lambda m: m.start)


def takes_percent(arg: str, schema: dict[str, Any]) -> bool:
    return bool(_RATE_WORDS.search(f"{arg} {schema.get('description', '')}".lower()))


def percent_value(mention: Mention, schema: dict[str, Any]) -> float | None:
    """5% as the parameter wants it: 0.05 for a fraction, 5 for a percent; None when the schema
    does not say which (a factor of 100 is not guessed)."""
    text = f"{schema.get('description', '')} {schema.get('format', '')} {schema.get('title', '')}"
    maximum = schema.get("maximum", schema.get("exclusiveMaximum"))
    if _AS_FRACTION.search(text) or (maximum is not None and maximum <= 1):
        return round(mention.value / 100, 10)
    if _AS_PERCENT.search(text) or (maximum is not None and maximum >= 100):
        return mention.value
    return None


def is_index(arg: str, schema: dict[str, Any]) -> bool:
    """A string parameter that holds a position or a number: "序号", "item number"."""
    return bool(_INDEX_WORDS.search(f"{arg} {schema.get('description', '')}".lower()))


def parameter_words(arg: str, schema: dict[str, Any]) -> tuple[set[str], list[str]]:
    """The words that name a parameter next to its value: English tokens of its name and
    description, and the Chinese runs of its description (年利率, 期限)."""
    text = f"{re.sub(r'(?<=[a-z])(?=[A-Z])', ' ', arg)} {schema.get('description', '')} "
    text += str(schema.get("title", ""))
    english = {w for w in re.findall(r"[a-z]{2,}", text.lower().replace("_", " "))}
    chinese = [w for w in re.findall(r"[\u4e00-\u9fff]{2,}", f"{arg} {text}")]
    return english - _STOP, chinese


def said_next_to(question: str, mention: Mention, words: tuple[set[str], list[str]]) -> bool:
    """The number is said right after or before one of the parameter's words ("limit 3",
    "30 years", "期限25年", "年利率3.5%")."""
    english, chinese = words
    before = re.findall(r"[A-Za-z]+", question[: mention.start])[-1:]
    after = re.match(r"[\s-]*([A-Za-z]+)", question[mention.end :])
    near = [w.lower() for w in before] + ([after.group(1).lower()] if after else [])
    if any(_same_word(w, e) for w in near for e in english):
        return True
    head = re.sub(r"[\s:：=为是，,]+$", "", question[: mention.start])
    tail = question[mention.end :].lstrip()
    unit = next((en for zh, en in _ZH_UNITS.items() if tail.startswith(zh)), None)
    if unit is not None and any(_same_word(unit, e) for e in english):
        return True  # 存3年 for `years`
    return any(head.endswith(w) or tail.startswith(w) for w in chinese)


# Chinese units said after a count, by the English word a parameter's name would use.
_ZH_UNITS = {"个月": "month", "年": "year", "月": "month", "天": "day", "日": "day", "周": "week"}


def _same_word(said: str, name: str) -> bool:
    return said == name or said.rstrip("s") == name.rstrip("s")


# ---- days said relative to today ----------------------------------------------------------
_WEEKDAYS_EN = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAYS_ZH = "一二三四五六日"
_DAY_WORDS: list[tuple[str, int]] = [
    (r"\bday after tomorrow\b|大后天", 3),
    (r"\bday before yesterday\b|前天", -2),
    (r"后天", 2),
    (r"\btomorrow\b|明天|明日", 1),
    (r"\byesterday\b|昨天|昨日", -1),
    (r"\btoday\b|今天|今日", 0),
]
_NEXT_EN = re.compile(rf"\b(next|this|coming|on)\s+({'|'.join(_WEEKDAYS_EN)})\b", re.I)
_WEEKDAY_EN = re.compile(rf"\b({'|'.join(_WEEKDAYS_EN)})\b", re.I)
_WEEK_ZH = re.compile(rf"(下|这|本)?(?:周|星期|礼拜)([{_WEEKDAYS_ZH}天])")
_IN_DAYS = re.compile(r"\bin\s+(\d+)\s+days?\b|(?<!\d)(\d+)\s*天(?:后|以后|之后)", re.I)


@dataclass(frozen=True)
class DaySaid:
    day: date
    text: str


def relative_days(question: str, today: date) -> list[DaySaid]:
    """Days said relative to today: tomorrow, 后天, next Monday, 下周一, in 3 days."""
    found: list[tuple[int, DaySaid]] = []
    taken: list[tuple[int, int]] = []

    def add(match: re.Match[str], day: date) -> None:
        if not any(a < match.end() and match.start() < b for a, b in taken):
            taken.append(match.span())
            found.append((match.start(), DaySaid(day, match.group(0))))

    for match in _NEXT_EN.finditer(question):
        weekday = _WEEKDAYS_EN.index(match.group(2).lower())
        ahead = (weekday - today.weekday()) % 7
        if match.group(1).lower() == "next":
            ahead = ahead or 7  # the coming one, never today
        add(match, today + timedelta(days=ahead))
    monday = today - timedelta(days=today.weekday())
    for match in _WEEK_ZH.finditer(question):
        weekday = _WEEKDAYS_ZH.index(match.group(2)) if match.group(2) != "天" else 6
        week = 7 if match.group(1) == "下" else 0
        add(match, monday + timedelta(days=week + weekday))
    for match in _WEEKDAY_EN.finditer(question):  # a weekday alone: the coming one
        weekday = _WEEKDAYS_EN.index(match.group(1).lower())
        add(match, today + timedelta(days=(weekday - today.weekday()) % 7))
    for match in _IN_DAYS.finditer(question):
        add(match, today + timedelta(days=int(match.group(1) or match.group(2))))
    for pattern, shift in _DAY_WORDS:
        for match in re.finditer(pattern, question, re.I):
            add(match, today + timedelta(days=shift))
    return [said for _, said in sorted(found, key=lambda f: f[0])]


# ---- booleans ------------------------------------------------------------------------------
_GENERIC_FLAG_WORDS = frozenset(
    {"include", "includes", "is", "has", "with", "show", "use", "enable", "flag", "only"}
)
_NEGATION = re.compile(r"\b(no|not|without|exclude|excluding|non|don'?t|never)\s*$", re.I)
_ZH_NEGATION = re.compile(r"(不|无|没有|不要|不含|不包括|排除)$")


def boolean_said(question: str, arg: str, schema: dict[str, Any]) -> tuple[bool, str] | None:
    """True when the question says the parameter's name (or its Chinese description), False when
    it says it negated ("without dividends", "不含"); None when it does not say it."""
    # The name's own words as written: a stem would let "months" say `monthly`.
    named = re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", arg).lower())
    english = [w for w in named if len(w) > 2 and w not in _GENERIC_FLAG_WORDS]
    chinese = re.findall(r"[\u4e00-\u9fff]{2,}", str(schema.get("description", "")))
    for word in english:
        match = re.search(rf"\b{re.escape(word.removesuffix('s'))}s?\b", question, re.I)
        if match is not None:
            # The words just before it, within its clause: "without dividends, monthly".
            before = re.split(r"[,;.，。；、]", question[: match.start()])[-1].split()[-2:]
            negated = any(_NEGATION.search(w) for w in before)
            return not negated, match.group(0)
    for word in chinese:
        at = question.find(word)
        if at >= 0:
            return not _ZH_NEGATION.search(question[max(0, at - 3) : at]), word
    return None


# ---- tickers -------------------------------------------------------------------------------
# A ticker said as one: capitals, maybe an exchange suffix (ACME, 600519.SS), or a six-digit code.
_SYMBOL = re.compile(
    r"(?<![A-Za-z0-9_.])(?:[A-Z]{2,5}|\d{6})(?:\.[A-Z]{1,2})?(?![A-Za-z0-9_]|\.[A-Za-z0-9])"
)
# Capitals that are words of a question, not tickers.
_NOT_TICKERS = frozenset(
    [
        "US",
        "USA",
        "UK",
        "EU",
        "UN",
        "AI",
        "API",
        "MCP",
        "ETF",
        "GDP",
        "CPI",
        "FX",
        "YTD",
        "OK",
        "PM",
        "AM",
        "CEO",
        "IPO",
        "ID",
        "PDF",
        "CSV",
        "JSON",
        "URL",
    ]
)


def symbols_said(question: str, entities: Sequence[str], skip: set[str]) -> list[str]:
    """The tickers a question names: said as one, or resolved by the reader from a name
    (Apple → AAPL); `skip` holds codes another parameter takes (a currency)."""
    said: list[str] = list(entities)
    for match in _SYMBOL.finditer(question):
        code = match.group(0)
        if code in _NOT_TICKERS or code in skip:
            continue
        if not any(s == code or s.startswith(f"{code}.") for s in said):
            said.append(code)
    return said


# ---- typos ---------------------------------------------------------------------------------
DAY_WORDS = ("today", "tomorrow", "yesterday", *_WEEKDAYS_EN)


def correct_typos(question: str, vocabulary: Iterable[str]) -> str:
    """Words a user mistyped ("exchnage", "temprature", "tommorow") read as the word of
    `vocabulary` they nearly spell. Only long words that are not everyday English are looked at:
    "whether" stays itself beside a weather tool."""
    from rapidfuzz import fuzz, process

    from datapilot.data.common_words import FLOOR_ZIPF, zipf

    known = {w.lower() for w in vocabulary if w.isascii() and w.isalpha() and len(w) >= 6}
    if not known:
        return question

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        low = word.lower()
        if len(low) < 6 or low in known or zipf(low) >= FLOOR_ZIPF:
            return word
        best = process.extractOne(low, known, scorer=fuzz.ratio, score_cutoff=85)
        return str(best[0]) if best else word

    return re.sub(r"[A-Za-z]+", fix, question)
