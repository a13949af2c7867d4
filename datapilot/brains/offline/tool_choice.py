"""Choosing one of the user's tools for a question, without a model.

Every tool the asker may use (imported OpenAPI operations, MCP tools, designed interfaces) is
described by its name, description and JSON-schema parameters. Their text (names split into
words, descriptions, parameter names and descriptions, enum values) is indexed with BM25 in
English and Chinese; a tool is chosen only when it clearly beats the next one, and several close
candidates are returned to be asked about, never guessed between.

This layer sees tools as plain descriptions (`ToolSpec`): calling them belongs to the platform.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from datapilot.brains.offline.tool_args import CURRENCY_ALIASES, enum_words
from datapilot.brains.offline.tool_values import correct_typos
from datapilot.retrieval.index import Index, Passage
from datapilot.retrieval.tokens import tokenize

# The winner must score this many times the runner-up to be chosen: BM25 scores of tools sharing
# one generic word ("rate") sit within a few percent of each other, a tool named by the question
# scores well above.
CLEAR_RATIO = 1.5
# Candidates within this share of the best score are named when asking which one was meant.
CLOSE_SHARE = 0.6
# A single shared word of little weight ("get") must not pick a tool.
MIN_SCORE = 0.2


class ToolSpec(BaseModel):
    """A callable tool as the reader sees it."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)
    source: str = Field(default="", description="openapi | mcp | interface | workflow …")
    consequential: bool = Field(
        default=False, description="Changes something: runs only after the user confirms."
    )


class ToolChoice(BaseModel):
    """What the reader made of the question against the tools."""

    status: Literal["chosen", "ask", "none"]
    tool: ToolSpec | None = None
    candidates: list[ToolSpec] = Field(
        default_factory=list, description="Close candidates to ask about (status 'ask')."
    )
    words: list[str] = Field(
        default_factory=list, description="Question words that chose the tool (for the ledger)."
    )
    scores: dict[str, float] = Field(default_factory=dict, description="Best scores, for traces.")


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WRITTEN_DATE = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}|\d{4}年(?:\d{1,2}月(?:\d{1,2}[日号])?)?|\d{1,2}月\d{1,2}[日号]"
)


def name_words(name: str) -> str:
    """`getFxRate`, `fx_rate.get` → `get fx rate get`: names are read as words."""
    return " ".join(re.split(r"[\W_]+", _CAMEL.sub(" ", name))).strip()


def own_names(names: Sequence[str]) -> dict[str, str]:
    """Each name without the prefix it shares with another (`Markets_and_weather_getFxRate` →
    `getFxRate` beside `Markets_and_weather_dailyWeather`): the imported document's or server's
    name is on every one of its tools, so its words ("weather") would name them all alike."""
    parts = {name: name.split("_") for name in names}
    own: dict[str, str] = {}
    for name, words in parts.items():
        cut = 0
        for other, theirs in parts.items():
            if other == name:
                continue
            shared = 0
            while shared < min(len(words), len(theirs)) - 1 and words[shared] == theirs[shared]:
                shared += 1
            cut = max(cut, shared)
        own[name] = "_".join(words[cut:])
    return own


def tool_text(spec: ToolSpec, name: str | None = None) -> str:
    """Everything a question may use to name this tool (`name`: its own part, see `own_names`)."""
    parts = [name_words(name or spec.name), spec.description]
    properties = spec.parameters.get("properties") or {}
    for arg, schema in properties.items():
        parts.append(name_words(arg))
        if isinstance(schema, dict):
            parts.append(str(schema.get("description", "")))
            parts.append(str(schema.get("title", "")))
            for value in schema.get("enum") or []:
                parts.extend(enum_words(schema, value))
    text = " ".join(part for part in parts if part)
    return f"{text} {' '.join(other_language(text))}".strip()


# Everyday words of a tool's text in the other language, so that a Chinese question finds a tool
# described in English ("Daily closes" for 收盘价) and an English one a tool described in Chinese
# (待办事项 for "to-do list").
GLOSSARY: dict[str, tuple[str, ...]] = {
    "exchange rate": ("汇率",),
    "interest rate": ("利率",),
    "close": ("收盘", "收盘价"),
    "closes": ("收盘", "收盘价"),
    "closing": ("收盘", "收盘价"),
    "price": ("价格", "股价"),
    "prices": ("价格", "股价"),
    "note": ("笔记", "备注"),
    "weather": ("天气",),
    "temperature": ("气温", "温度"),
    "news": ("新闻",),
    "search": ("搜索",),
    "convert": ("换算", "转换"),
    "loan": ("贷款",),
    "mortgage": ("房贷",),
    "savings": ("储蓄", "存款"),
    "汇率": ("exchange rate",),
    "天气": ("weather",),
    "气温": ("temperature",),
    "新闻": ("news",),
    "待办": ("todo", "to-do", "task"),
    "贷款": ("loan",),
}


def other_language(text: str) -> list[str]:
    """The glossary's words for the words of `text`."""
    lowered = text.lower()
    found: list[str] = []
    for word, others in GLOSSARY.items():
        said = (
            word in text
            if re.match(r"[\u4e00-\u9fff]", word)
            else re.search(rf"\b{re.escape(word)}\b", lowered)
        )
        if said:
            found.extend(w for w in others if w not in found)
    return found


def choose_tool(question: str, specs: Sequence[ToolSpec]) -> ToolChoice:
    """The one tool the question clearly asks for, the close candidates, or none."""
    if not specs:
        return ToolChoice(status="none")
    named = [s for s in specs if re.search(rf"(?<![\w.]){re.escape(s.name)}(?![\w.])", question)]
    if len(named) == 1:  # "Use getFxRate: …", as the question back about close tools offers
        return ToolChoice(status="chosen", tool=named[0], words=[named[0].name])
    own = own_names([s.name for s in specs])
    passages = [
        Passage(text=tool_text(s, own.get(s.name)), source=s.name, index=i)
        for i, s in enumerate(specs)
    ]
    # A written date is a value, not a word naming a tool (its 年 matches "年利率").
    searched = _WRITTEN_DATE.sub(" ", question)
    # A hyphenated word is also read joined: "to-do" meets a tool's "todo".
    searched = re.sub(r"\b([A-Za-z]+)-([A-Za-z]+)\b", r"\1-\2 \1\2", searched)
    searched = correct_typos(searched, re.findall(r"[A-Za-z]+", " ".join(p.text for p in passages)))
    hits = [h for h in Index.build(passages).search(searched, k=len(specs)) if h.score >= MIN_SCORE]
    if not hits:
        return ToolChoice(status="none")
    scores = {h.passage.source: round(h.score, 3) for h in hits}
    best = hits[0]
    runner_up = hits[1].score if len(hits) > 1 else 0.0
    if best.score >= CLEAR_RATIO * runner_up:
        spec = specs[best.passage.index]
        words = shared_words(question, spec)
        if _names_part_only(words, spec):
            # "latest dividend" against `dividend_yield`: the question says one word of what the
            # tool gives; asked about, never called on that word alone.
            return ToolChoice(status="ask", candidates=[spec], scores=scores)
        return ToolChoice(status="chosen", tool=spec, words=words, scores=scores)
    close = [specs[h.passage.index] for h in hits if h.score >= CLOSE_SHARE * best.score]
    return ToolChoice(status="ask", candidates=close, scores=scores)


# Words of tool names that say how, not what: they name no subject of a question.
_GENERIC_NAME_WORDS = frozenset(
    {"get", "list", "fetch", "query", "search", "find", "read", "show", "api", "data", "info"}
)


def _names_part_only(words: Sequence[str], spec: ToolSpec) -> bool:
    """The question shares one word with the tool, a modifier in its name of several words and
    not what the tool gives: "dividend" of `dividend_yield` (a yield), where "weather" of
    `dailyWeather` or "closes" of `Quotes_closes` say what they give."""
    subject = [w for w in name_words(spec.name).lower().split() if w not in _GENERIC_NAME_WORDS]
    shared = {token for word in words for token in tokenize(word)}
    if len(subject) < 2 or len(shared) != 1:
        return False
    head = set(tokenize(subject[-1]))
    return shared <= set(tokenize(" ".join(subject[:-1]))) - head


def shared_words(question: str, spec: ToolSpec) -> list[str]:
    """The question's words whose tokens occur in the tool's text. A run of Chinese is several
    words: its shared tokens are (日元, 汇率), not the whole run (日元兑美元的汇率)."""
    text = tool_text(spec)
    wanted = set(tokenize(text))
    shared: list[str] = []
    for word in re.findall(r"[A-Za-z][\w\-]*|[\u4e00-\u9fff]+", question):
        if re.match(r"[\u4e00-\u9fff]", word):
            shared += [token for token in tokenize(word) if token in wanted and token in word]
        elif set(tokenize(word)) & wanted or _names_currency(word, text):
            shared.append(word)
    return list(dict.fromkeys(shared))


def _names_currency(word: str, text: str) -> bool:
    """ "USD" for a tool "per US dollar": the code of a currency the tool's text names."""
    names = CURRENCY_ALIASES.get(word) or ()
    return any(re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE) for n in names)
