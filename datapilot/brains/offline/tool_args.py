"""Filling a chosen tool's arguments from the question, by each parameter's JSON Schema.

Only what the question says (or the schema's default) fills a parameter: enum values and their
aliases, dates from the time reader, numbers, booleans, free text for query-like strings, a place
after "in"/"for". A required parameter left empty is reported with the call that would be made,
never invented.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

from datapilot.brains.offline.windows import read_time

Origin = Literal["question", "default", "alias", "date", "entity"]

# Common names of currencies an FX parameter lists by code: the schema's own `x-aliases`
# (value → words) come first; these cover services that only list the codes.
CURRENCY_ALIASES: dict[str, tuple[str, ...]] = {
    "USD": ("dollar", "dollars", "us dollar", "美元"),
    "EUR": ("euro", "euros", "欧元"),
    "JPY": ("yen", "japanese yen", "日元"),
    "GBP": ("pound", "pounds", "sterling", "英镑"),
    "CNY": ("yuan", "renminbi", "rmb", "人民币"),
    "HKD": ("hong kong dollar", "港币", "港元"),
    "CHF": ("swiss franc", "瑞士法郎"),
}

# A string parameter whose name or description says it takes free text.
_QUERY_WORDS = re.compile(
    r"\b(query|keyword|keywords|search|content|text|message|note|title|q)\b|事项|内容|关键词|关键字|查询|备注"
)
_QUERY_ABOUT = re.compile(r"\b(query|keywords?|search terms?|free text)\b|关键词|关键字", re.I)
_CHOICES = re.compile(r"[（(]([^()（）]+)[)）]")
_TODAY = re.compile(r"\btoday\b|今天|今日", re.I)
# A ticker said as one: capitals, maybe an exchange suffix (ACME, 600519.SS); otherwise the one
# entity the reader resolved from a name in the catalog (Apple → AAPL, 贵州茅台 → 600519.SS).
_SYMBOL_WORDS = re.compile(r"\b(symbol|ticker)\b|代码")
_SYMBOL = re.compile(r"(?<![\w.])(?:[A-Z]{1,5}|\d{6})(?:\.[A-Z]{1,2})?(?![\w.])")
_PLACE_WORDS = re.compile(r"\b(city|location|place|town|region)\b|城市|地点|地区")
_YES = re.compile(r"\b(yes|true|with|include|including)\b|是|包含|包括")
_NO = re.compile(r"\b(no|false|without|exclude|excluding)\b|不|否|不包含|排除")
_NUMBER = re.compile(r"(?<![\w.\-])-?\d+(?:\.\d+)?(?![\w.])")
_PLACE = re.compile(r"\b(?:in|for|at)\s+([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*)")
_ZH_PLACE = re.compile(r"([\u4e00-\u9fff]{2,4}?)(?:的|今天|明天|昨天)?(?:天气|气温|温度)")
_QUOTED = re.compile(r"[\"“「『']([^\"”」』']+)[\"”」』']|[:：]\s*(.+)$")


class Filled(BaseModel):
    """The arguments a question gives a tool, each with its origin."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    origins: dict[str, str] = Field(
        default_factory=dict, description="Argument → where it came from (question word, default)."
    )
    missing: list[str] = Field(default_factory=list, description="Required and not given.")
    words: list[str] = Field(default_factory=list, description="Question words used (ledger).")

    def call_text(self) -> str:
        """The call as it would be made, missing arguments shown as `?`."""
        shown = {**self.arguments, **{m: "?" for m in self.missing}}
        inside = ", ".join(f"{k}={v!r}" if v != "?" else f"{k}=?" for k, v in shown.items())
        return f"{self.tool}({inside})"

    def missing_text(self, parameters: dict[str, Any]) -> str:
        """'needs `currency`: one of EUR, JPY' for each missing argument."""
        properties = parameters.get("properties") or {}
        parts = []
        for arg in self.missing:
            schema = properties.get(arg) or {}
            options = schema.get("enum")
            hint = f": one of {', '.join(map(str, options))}" if options else ""
            parts.append(f"`{arg}`{hint}")
        return "needs " + "; ".join(parts)


def fill_arguments(
    question: str,
    tool: str,
    parameters: dict[str, Any],
    today: date,
    *,
    entities: Sequence[str] = (),
) -> Filled:
    """Each parameter filled from `question` by its schema; required ones left empty are named.
    `entities`: the ids the reader resolved from the question's names, for symbol parameters."""
    filled = Filled(tool=tool)
    properties: dict[str, Any] = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    taken: set[str] = set()  # enum values already given to another parameter
    time = read_time(question, today)
    for arg, schema in properties.items():
        schema = schema if isinstance(schema, dict) else {}
        found = _value(question, arg, schema, time, taken, today, entities)
        if found is not None:
            value, word, origin = found
            filled.arguments[arg] = value
            filled.origins[arg] = f"{origin}: {word}"
            if origin != "entity":  # the name that resolved to it was read by the reader
                filled.words.append(word)
        elif "default" in schema:
            filled.arguments[arg] = schema["default"]
            filled.origins[arg] = "default"
        elif arg in required:
            filled.missing.append(arg)
    return filled


def _value(
    question: str,
    arg: str,
    schema: dict[str, Any],
    time: Any,
    taken: set[str],
    today: date,
    entities: Sequence[str] = (),
) -> tuple[Any, str, str] | None:
    kind = schema.get("type")
    about = f"{arg} {schema.get('description', '')} {schema.get('title', '')}".lower()
    if schema.get("enum"):
        return _enum(question, schema, taken, arg)
    choices = listed_choices(str(schema.get("description", "")))
    if kind in ("string", None) and choices:
        return _enum(question, {**schema, "enum": choices}, taken, arg)
    if kind == "string" and (schema.get("format") == "date" or re.search(r"date|日期", about)):
        return _date(arg, time) or _today(question, today)
    if kind in ("integer", "number"):
        return _number(question, kind, time)
    if kind == "boolean":
        if _NO.search(question.lower()):
            return False, "no", "question"
        if _YES.search(question.lower()):
            return True, "yes", "question"
        return None
    if kind == "string" and _SYMBOL_WORDS.search(arg.lower()):
        match = _SYMBOL.search(question)
        if match is not None:
            return match.group(0), match.group(0), "question"
        # One name the catalog knows; several are not ours to pick from.
        return (entities[0], entities[0], "entity") if len(entities) == 1 else None
    if kind == "string" and _PLACE_WORDS.search(about):
        return _place(question, time)
    # The name decides (事项, query); a description only by its own words for free text, since
    # "对待办事项的操作方法" merely mentions the item.
    if kind == "string" and (
        _QUERY_WORDS.search(arg.lower()) or _QUERY_ABOUT.search(str(schema.get("description", "")))
    ):
        # Only text set apart (quoted, after a colon) is the free text: the whole question would
        # send "查询待办事项" as the item of a to-do query.
        quoted = _QUOTED.search(question)
        text = next((g for g in quoted.groups() if g), "").strip() if quoted else ""
        return (text, text, "question") if text else None
    return None


def listed_choices(description: str) -> list[str]:
    """Options a description lists in brackets, "操作方法(插入、删除、查询)": an enum in words."""
    for match in _CHOICES.finditer(description):
        items = [i.strip() for i in re.split(r"[、,，/|]", match.group(1)) if i.strip()]
        if len(items) >= 2 and all(len(i) <= 20 for i in items):
            return items
    return []


def enum_words(schema: dict[str, Any], value: Any) -> list[str]:
    """The words that name one enum value: itself, the schema's `x-aliases`, a currency's names."""
    aliases = (schema.get("x-aliases") or {}).get(str(value)) or []
    return [str(value), *map(str, aliases), *CURRENCY_ALIASES.get(str(value), ())]


def _enum(
    question: str, schema: dict[str, Any], taken: set[str], arg: str = ""
) -> tuple[Any, str, str] | None:
    """The one enum value the question names (by value or alias); none when it names several
    that no other parameter takes, so the reader asks instead of picking one."""
    seen: list[tuple[int, Any, str, str]] = []
    for value in schema["enum"]:
        for word in enum_words(schema, value):
            at = _find(question, word)
            if at is not None:
                origin = "question" if word == str(value) else "alias"
                seen.append((at, value, word, origin))
                break
    fresh = [s for s in sorted(seen, key=lambda s: s[0]) if str(s[1]) not in taken]
    if len(fresh) > 1 and arg:
        # Several values, one said right after the parameter's name ("to miles"): that one.
        named = [
            s
            for s in fresh
            if re.search(rf"\b{re.escape(arg)}\s+{re.escape(s[2])}", question, re.IGNORECASE)
        ]
        fresh = named if len(named) == 1 else fresh
    if len(fresh) != 1 and not (fresh and len(seen) > len(fresh)):
        # None, or several values for one parameter: not ours to pick.
        return None
    _, value, word, origin = fresh[0]
    taken.add(str(value))
    return value, word, origin


def _find(question: str, word: str) -> int | None:
    if re.search(r"[\u4e00-\u9fff]", word):
        at = question.find(word)
        return at if at >= 0 else None
    match = re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", question, re.IGNORECASE)
    if match is None:
        return None
    # A lone short code must be said as a code (EUR), not a word that happens to match.
    if len(word) <= 3 and word.upper() == word and match.group(0) != word:
        return None
    return match.start()


def _date(arg: str, time: Any) -> tuple[Any, str, str] | None:
    if not time.explicit or not time.clauses:
        return None
    clause = time.clauses[0]
    day = clause.start if re.search(r"start|from|begin|开始", arg) else clause.end
    day = day or clause.start
    return (day.isoformat(), clause.text, "date") if day else None


def _today(question: str, today: date) -> tuple[Any, str, str] | None:
    """ "today" / 今天, which the time reader leaves as the default window."""
    match = _TODAY.search(question)
    if match is None:
        return None
    return today.isoformat(), match.group(0), "date"


def _number(question: str, kind: str, time: Any) -> tuple[Any, str, str] | None:
    spans = [(a, b) for a, b in time.spans] + [c.span for c in time.clauses]
    for match in _NUMBER.finditer(question):
        if any(a <= match.start() < b for a, b in spans):
            continue  # a year or a day of a date, read by the time reader
        number = float(match.group(0))
        value: Any = int(number) if kind == "integer" and number.is_integer() else number
        if kind == "integer" and not number.is_integer():
            continue
        return value, match.group(0), "question"
    return None


def _place(question: str, time: Any) -> tuple[Any, str, str] | None:
    for clause in time.clauses:  # "巴黎2026年11月20日的天气": the place sits before the date
        question = question.replace(clause.text, " ")
    question = _TODAY.sub(" ", question)  # 上海今天的气温: the time reader leaves "today"
    match = _PLACE.search(question) or _ZH_PLACE.search(question.replace(" ", ""))
    if match is None:
        return None
    place = match.group(1).strip()
    return place, place, "question"
