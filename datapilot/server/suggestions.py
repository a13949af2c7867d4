"""Follow-up questions offered after an answer, in the language of the question.

They name the same entities and the same explicit window, so each one is answerable with the data
that just answered the question.
"""

from __future__ import annotations

import re
from functools import cache

from datapilot.core.answer import Answer
from datapilot.core.intent import EntityRef

_CJK = re.compile(r"[\u4e00-\u9fff]")
_MARKET_KINDS = {"stock", "etf", "index", "fund", "commodity"}

_STARTERS = {
    "en": [
        "Plot Apple's closing price in 2019",
        "Compare the cumulative returns of Microsoft and Apple in 2021",
        "Show the US unemployment rate during the 2000s",
    ],
    "zh": [
        "画一下苹果公司2019年的股价走势",
        "比较微软和苹果2021年的累计收益率",
        "美国2000年代的失业率",
    ],
}


_TABLE_FOLLOW_UPS = {
    "en": [
        "Plot the data in this widget",
        "What were the highest and lowest values in this widget?",
    ],
    "zh": ["画出这个组件的数据", "这个组件的最高值和最低值是多少？"],
}


@cache
def _chinese_names() -> dict[str, str]:
    """Entity id → Chinese name (苹果, 标普500) from the shipped vocabulary."""
    from datapilot.data.phrases_zh import chinese_name
    from datapilot.data.vocabulary import load_vocabulary, shipped_files

    return {e.id: chinese_name(e) for e in load_vocabulary(shipped_files()).entities}


def _named(entity: EntityRef, lang: str) -> EntityRef:
    """The entity called by its Chinese name in a Chinese suggestion."""
    if lang != "zh":
        return entity
    return entity.model_copy(update={"name": _chinese_names().get(entity.id, entity.name)})


def starters(lang: str, limit: int = 3) -> list[str]:
    """Example questions to start with, in `lang` ("en" or "zh"; anything else is English)."""
    return _STARTERS["zh" if lang == "zh" else "en"][:limit]


def follow_ups(answer: Answer, limit: int = 3) -> list[str]:
    """Up to `limit` follow-up questions for this answer: the ones it offers itself first (a
    question per tool when it asks which one was meant)."""
    offered = list(dict.fromkeys(answer.follow_ups))
    if offered:
        rest = [s for s in _follow_ups(answer, limit) if s not in offered]
        return (offered + rest)[: max(limit, len(offered))]
    return _follow_ups(answer, limit)


def _follow_ups(answer: Answer, limit: int) -> list[str]:
    lang = "zh" if _CJK.search(answer.query) else "en"
    intent = answer.intent
    if answer.status != "ok" or intent is None or not intent.entities:
        return _STARTERS[lang][:limit]
    window = _window(answer, lang)
    first = _named(intent.entities[0], lang)
    if first.kind == "table":
        # "this widget" points at the data the client sent (or fetches it again).
        return _TABLE_FOLLOW_UPS[lang][:limit]
    suggestions: list[str] = []
    if len(intent.entities) >= 2:
        second = _named(intent.entities[1], lang)
        suggestions.append(_correlation(first, second, window, lang))
    if first.kind in _MARKET_KINDS:
        suggestions.append(_drawdown(first, window, lang))
        if len(intent.entities) == 1 and first.id != "^GSPC":
            suggestions.append(_versus_market(first, window, lang))
        suggestions.append(_volatility(first, window, lang))
    else:
        suggestions.append(_forecast(first, lang))
        suggestions.append(_table(first, window, lang))
    return suggestions[:limit]


def _window(answer: Answer, lang: str) -> str:
    intent = answer.intent
    if intent is None or intent.start is None or intent.end is None:
        return ""
    if lang == "zh":
        return f" {intent.start.isoformat()}至{intent.end.isoformat()}"
    return f"from {intent.start.isoformat()} to {intent.end.isoformat()}"


def _correlation(a: EntityRef, b: EntityRef, window: str, lang: str) -> str:
    if lang == "zh":
        return f"{a.name}和{b.name}{window}的日收益率相关性是多少？"
    return f"How correlated were {a.name} and {b.name} daily returns {window}?".replace(" ?", "?")


def _drawdown(entity: EntityRef, window: str, lang: str) -> str:
    if lang == "zh":
        return f"{entity.name}{window}的最大回撤是多少？"
    return f"What was the maximum drawdown of {entity.name} {window}?".replace(" ?", "?")


def _versus_market(entity: EntityRef, window: str, lang: str) -> str:
    if lang == "zh":
        return f"比较{entity.name}和标普500指数{window}的累计收益率"
    return f"Compare the cumulative returns of {entity.name} and the S&P 500 {window}".rstrip()


def _volatility(entity: EntityRef, window: str, lang: str) -> str:
    if lang == "zh":
        return f"{entity.name}{window}的30日滚动波动率"
    return f"Plot the 30-day rolling volatility of {entity.name} {window}".rstrip()


def _forecast(entity: EntityRef, lang: str) -> str:
    if lang == "zh":
        return f"预测{entity.name}未来4期的走势"
    return f"Forecast {entity.name} for the next 4 periods"


def _table(entity: EntityRef, window: str, lang: str) -> str:
    if lang == "zh":
        return f"用表格列出{entity.name}{window}的数据"
    return f"Give me a table of {entity.name} {window}".rstrip()
