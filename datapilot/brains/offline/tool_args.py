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

from datapilot.brains.offline.tool_values import (
    DAY_WORDS,
    Mention,
    boolean_said,
    correct_typos,
    is_index,
    number_mentions,
    parameter_words,
    percent_value,
    relative_days,
    said_next_to,
    symbols_said,
    takes_percent,
)
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

# Everyday words for values services list by their own names: unit systems, and the verbs of
# operations on a list (a to-do plugin's 插入/删除/查询, an API's insert/delete/query).
VALUE_ALIASES: dict[str, tuple[str, ...]] = {
    "imperial": ("fahrenheit", "°F", "华氏", "英制"),
    "metric": ("celsius", "°C", "摄氏", "公制"),
    "插入": ("添加", "新增", "增加", "加入", "add", "insert"),
    "删除": ("删掉", "去掉", "移除", "delete", "remove"),
    "查询": ("查看", "列出", "看看", "show", "view", "query"),
    "insert": ("add", "create"),
    "delete": ("remove",),
    "query": ("show", "view"),
}

# A string parameter whose name or description says it takes free text.
_QUERY_WORDS = re.compile(
    r"\b(query|keyword|keywords|search|content|text|message|note|title|q)\b|事项|内容|关键词|关键字|查询|备注"
)
# A parameter naming where a conversion goes: its value follows "to", "into", 成, 为.
_TARGET = re.compile(r"to|into|target|dest(?:ination)?|目标")
_QUERY_ABOUT = re.compile(r"\b(query|keywords?|search terms?|free text)\b|关键词|关键字", re.I)
_ABOUT = re.compile(
    r"\b(?:about|regarding|concerning|on the topic of)\s+(.+?)\s*(?:[?.!,;]|$)", re.I
)
_ZH_ABOUT = re.compile(r"(?:关于|有关)(.+?)(?:的|[？?。，,]|$)")
_CHOICES = re.compile(r"[（(]([^()（）]+)[)）]")
_TODAY = re.compile(r"\btoday\b|今天|今日", re.I)
# A ticker parameter: a ticker said as one (ACME, 600519.SS), or the entity the reader resolved
# from a name in the catalog (Apple → AAPL, 贵州茅台 → 600519.SH).
_SYMBOL_WORDS = re.compile(r"\b(symbols?|tickers?|securit(?:y|ies))\b|代码")
# A list of them: `ids: list[str]` as the library's (and designed) interfaces take entities.
_IDS_WORDS = re.compile(r"\b(ids?|symbols?|tickers?|entit(?:y|ies))\b|代码")
_PLACE_WORDS = re.compile(r"\b(city|location|place|town|region)\b|城市|地点|地区")
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
    unused_dates: list[str] = Field(
        default_factory=list,
        description="Dates or windows the question says and no parameter takes ('in 2004').",
    )

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
    names: Sequence[str] = (),
) -> Filled:
    """Each parameter filled from `question` by its schema; required ones left empty are named,
    and so is any parameter the question gives several values for (even one with a default).
    `entities`: the ids the reader resolved from the question's names, for ticker parameters;
    `names`: those names as said (标普500), whose digits are never read as a number."""
    filled = Filled(tool=tool)
    question = _without_tool_name(question, tool)
    properties: dict[str, Any] = {
        arg: plain_schema(schema) if isinstance(schema, dict) else {}
        for arg, schema in (parameters.get("properties") or {}).items()
    }
    required = set(parameters.get("required") or [])
    taken: set[str] = set()  # enum values and codes already given to another parameter
    time = read_time(question, today)
    found: dict[str, Any] = {}
    # Free text first: the words set apart for it are not read for the other parameters.
    rest = question
    texts = [arg for arg, schema in properties.items() if _is_free_text(arg, schema)]
    text = _set_apart(question, time, today) if texts else ""
    if text:
        found[texts[0]] = (text, text, "question")
        rest = _blank(question, text)
    numbers = rest
    for name in names:  # "标普500" names an index: its 500 is no count
        numbers = _blank(numbers, name)
    found |= _numbers(numbers, properties, time)
    # Mistyped values and days ("tommorow", "fahrenhiet") read as the words they nearly spell.
    values = [
        w
        for schema in properties.values()
        for v in schema.get("enum") or []
        for w in enum_words(schema, v)
    ]
    rest = correct_typos(rest, [*values, *DAY_WORDS])
    for arg, schema in properties.items():
        if arg not in found:
            found[arg] = _value(rest, arg, schema, time, taken, today, entities)
    for arg, schema in properties.items():
        value = found.get(arg)
        if value is AMBIGUOUS:
            filled.missing.append(arg)
            filled.origins[arg] = "several in the question"
        elif value is not None:
            filled.arguments[arg] = value[0]
            filled.origins[arg] = f"{value[2]}: {value[1]}"
            if value[2] != "entity":  # the name that resolved to it was read by the reader
                filled.words.append(value[1])
        elif "default" in schema:
            filled.arguments[arg] = schema["default"]
            filled.origins[arg] = "default"
        elif arg in required:
            filled.missing.append(arg)
    if not any(origin.startswith("date") for origin in filled.origins.values()):
        # A window the tool cannot take is said so, not dropped unseen ("30 years" filled a
        # number, it is no window left out).
        filled.unused_dates = [
            c.text.strip()
            for c in time.clauses
            if c.start is not None
            and not any(
                re.search(rf"(?<![\d.]){re.escape(w)}(?![\d.])", c.text) for w in filled.words
            )
        ]
    return filled


# A parameter the question gives several values for: asked about, never picked.
AMBIGUOUS: Any = object()


def _blank(question: str, text: str) -> str:
    """`text` taken out of the question, keeping every other word where the time reader saw it."""
    return question.replace(text, " " * len(text)) if text else question


def _without_tool_name(question: str, tool: str) -> str:
    """ "Use getFxRate: euro rate" (a follow-up naming the tool) is read as "euro rate"."""
    pattern = rf"^\s*(?:use|用|使用)\s*{re.escape(tool)}\s*[:：,，]\s*"
    return re.sub(pattern, "", question, flags=re.IGNORECASE)


def _is_free_text(arg: str, schema: dict[str, Any]) -> bool:
    # The name decides (事项, query); a description only by its own words for free text, since
    # "对待办事项的操作方法" merely mentions the item.
    if schema.get("type") not in ("string", None) or schema.get("enum"):
        return False
    if listed_choices(str(schema.get("description", ""))):
        return False
    return bool(
        _QUERY_WORDS.search(arg.lower()) or _QUERY_ABOUT.search(str(schema.get("description", "")))
    )


def _set_apart(question: str, time: Any, today: date) -> str:
    """Text set apart (quoted, after a colon), else the topic after "about"/关于 without its time
    words: the whole question would send "查询待办事项" as the item of a to-do query."""
    quoted = _QUOTED.search(question)
    if quoted:
        return next((g for g in quoted.groups() if g), "").strip()
    about = _ABOUT.search(question) or _ZH_ABOUT.search(question)
    if about is None:
        return ""
    text = about.group(1)
    for said in [*time.clauses, *relative_days(text, today)]:
        text = text.replace(said.text, " ")
    text = re.sub(r"^(?:the|a|an)\s+", "", text.strip(), flags=re.IGNORECASE)
    text = re.sub(r"\s+(?:from|in|on|since|for|during|over|of)$", "", text, flags=re.IGNORECASE)
    return text.strip(" ,.?!，。？")


def _numbers(question: str, properties: dict[str, Any], time: Any) -> dict[str, Any]:
    """Which number fills which numeric parameter: one said next to the parameter's name or
    unit ("limit 3", "30 years", "年利率3.5%"), a percent for the one parameter that takes a rate,
    then one number left for one parameter. A year or a date never fills a number; a number
    inside other time words only when said next to the parameter's name."""
    wanted = {
        arg: schema
        for arg, schema in properties.items()
        if schema.get("type") in ("integer", "number")
        or (schema.get("type") == "string" and not schema.get("enum") and is_index(arg, schema))
    }
    if not wanted:
        return {}
    spans = [(a, b) for a, b in time.spans] + [c.span for c in time.clauses]
    mentions = [m for m in number_mentions(question) if not m.year]
    found: dict[str, Any] = {}
    used: set[Mention] = set()

    def give(arg: str, options: list[Mention]) -> None:
        values = [(m, _as_parameter(m, wanted[arg])) for m in options]
        values = [(m, v) for m, v in values if v is not None]
        if len(values) == 1:
            mention, value = values[0]
            found[arg] = (value, mention.text, "question")
            used.add(mention)
        elif len(values) > 1 or any(m.percent for m in options):
            found[arg] = AMBIGUOUS  # several, or a percent the schema does not say how to take

    for arg, schema in wanted.items():
        words = parameter_words(arg, schema)
        near = [m for m in mentions if m not in used and said_next_to(question, m, words)]
        if near:
            give(arg, near)
    open_args = [arg for arg in wanted if arg not in found]
    percents = [m for m in mentions if m.percent and m not in used]
    rates = [arg for arg in open_args if takes_percent(arg, wanted[arg])]
    if percents and len(rates) == 1:
        give(rates[0], percents)
    open_args = [arg for arg in wanted if arg not in found]
    left = [
        m
        for m in mentions
        if m not in used and not m.percent and not any(a <= m.start < b for a, b in spans)
    ]
    if len(open_args) == 1 and left:
        give(open_args[0], left)
    # A number still unread ("limit 3 or 4", two numbers for one value) may be meant for any
    # parameter it fits: those are asked about rather than sent with the other number.
    for mention in (m for m in left if m not in used):
        for arg in wanted:
            if _as_parameter(mention, wanted[arg]) is not None:
                found[arg] = AMBIGUOUS
    return found


def _as_parameter(mention: Mention, schema: dict[str, Any]) -> Any:
    """The number as the parameter takes it: a percent by the schema, a whole number for an
    integer or a position; None when it cannot be this parameter's value."""
    value: float | None = mention.value
    if mention.percent:
        value = percent_value(mention, schema)
    if value is None:
        return None
    kind = schema.get("type")
    if kind in ("integer", "string"):
        if not float(value).is_integer():
            return None
        return int(value) if kind == "integer" else str(int(value))
    return int(value) if float(value).is_integer() and not mention.percent else value


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
        return _date(arg, time) or _relative_day(question, today)
    if kind == "boolean":
        said = boolean_said(question, arg, schema)
        return (said[0], said[1], "question") if said else None
    if (kind == "string" and _SYMBOL_WORDS.search(arg.lower())) or (
        kind == "array" and _IDS_WORDS.search(arg.lower())
    ):
        return _symbols(question, kind, taken, entities)
    if kind == "string" and _PLACE_WORDS.search(about):
        return _place(question, time, today)
    return None


def _symbols(
    question: str, kind: str, taken: set[str], entities: Sequence[str]
) -> tuple[Any, str, str] | None:
    """One ticker for a ticker parameter (several are asked about), all of them for a list."""
    skip = taken | set(CURRENCY_ALIASES)
    said = symbols_said(question, entities, skip)
    origin = "entity" if said and said[0] in entities and said[0] not in question else "question"
    if not said:
        return None
    if kind == "array":
        return said, ", ".join(said), origin
    if len(said) > 1:
        return AMBIGUOUS
    taken.add(said[0])
    return said[0], said[0], origin


def plain_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An optional parameter's schema as its one real type: `day: date | None` is written
    `anyOf: [{type: string, format: date}, {type: null}]` (pydantic: interfaces, designed ones)."""
    options = schema.get("anyOf") or schema.get("oneOf")
    if not isinstance(options, list):
        return schema
    real = [o for o in options if isinstance(o, dict) and o.get("type") != "null"]
    if len(real) != 1:
        return schema
    outer = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    return {**real[0], **outer}


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
    known = CURRENCY_ALIASES.get(str(value), ()) + VALUE_ALIASES.get(str(value), ())
    return [str(value), *map(str, aliases), *known]


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
        # Several values, one said right after the parameter's name ("to miles"), or after a
        # word for "into" when the parameter is a target ("换算成英里"): that one.
        before = rf"\b{re.escape(arg)}\s+"
        if _TARGET.fullmatch(arg.lower()):
            before = rf"(?:{before}|\b(?:to|into|in)\s+|(?:成|为|到))"
        named = [
            s for s in fresh if re.search(rf"{before}{re.escape(s[2])}", question, re.IGNORECASE)
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
    # Any date the question names, a later one too: the reader sets no window after today (it
    # would be a forecast), but a tool is asked for the day said ("at the end of 2022").
    if not time.clauses:
        return None
    clause = time.clauses[0]
    day = clause.start if re.search(r"start|from|begin|开始", arg) else clause.end
    day = day or clause.start
    return (day.isoformat(), clause.text, "date") if day else None


def _relative_day(question: str, today: date) -> Any:
    """ "today", tomorrow, 后天, next Monday, 下周一: one such day fills a date; several are asked
    about."""
    days = {said.day: said for said in relative_days(question, today)}
    if len(days) > 1:
        return AMBIGUOUS
    said = next(iter(days.values()), None)
    return (said.day.isoformat(), said.text, "date") if said else None


def _place(question: str, time: Any, today: date) -> tuple[Any, str, str] | None:
    for said in relative_days(question, today):  # 后天上海天气, 下周一广州的气温
        question = question.replace(said.text, " ")
    for clause in time.clauses:  # "巴黎2026年11月20日的天气": the place sits before the date
        question = question.replace(clause.text, " ")
    question = _TODAY.sub(" ", question)  # 上海今天的气温: the time reader leaves "today"
    match = _PLACE.search(question) or _ZH_PLACE.search(question.replace(" ", ""))
    if match is None:
        return None
    place = match.group(1).strip()
    return place, place, "question"
