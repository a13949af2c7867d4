"""A chat's name from its first answer's resolved intent: the entities, the measure and the
window, in the question's language ("Apple, Microsoft · return · 2021", "苹果、微软 · 收益率 ·
2021年"), so that a list of chats tells them apart; the user can still rename one."""

from __future__ import annotations

from datetime import date

from datapilot.core.answer import Answer
from datapilot.data.text import is_chinese
from datapilot.settings import Settings

MAX_ENTITIES = 3
# The measures questions name most, said as a title says them; others read from their id.
_MEASURES: dict[str, tuple[str, str]] = {
    "close": ("price", "股价"),
    "return": ("return", "收益率"),
    "cumulative_return": ("cumulative return", "累计收益率"),
    "annualized_return": ("annualized return", "年化收益率"),
    "volatility": ("volatility", "波动率"),
    "max_drawdown": ("max drawdown", "最大回撤"),
    "drawdown": ("drawdown", "回撤"),
    "correlation": ("correlation", "相关性"),
    "volume": ("volume", "成交量"),
    "value": ("level", "数值"),
    "yoy": ("year-over-year change", "同比"),
    "qoq": ("quarter-over-quarter change", "环比"),
    "mom": ("month-over-month change", "环比"),
    "sharpe": ("Sharpe ratio", "夏普比率"),
    "beta": ("beta", "贝塔"),
    "forecast": ("forecast", "预测"),
    "fundamentals": ("fundamentals", "基本面"),
    "news": ("news", "新闻"),
}
_CORPORATE = (" Inc.", " Inc", " Corporation", " Corp.", " Corp", " Co.", " plc", " Ltd.")


def chat_title(answer: Answer, settings: Settings) -> str | None:
    """The title, or None when the answer resolved no entity (the question stays the name)."""
    intent = answer.intent
    if intent is None or not intent.entities:
        return None
    zh = is_chinese(answer.query)
    shown = intent.entities[:MAX_ENTITIES]
    names = _chinese_names([e.id for e in shown], settings) if zh else {}
    who = ("、" if zh else ", ").join(names.get(e.id) or _short(e.name) or e.id for e in shown)
    if len(intent.entities) > MAX_ENTITIES:
        who += "等" if zh else " …"
    parts = [who]
    if intent.metrics:
        metric = intent.metrics[0]
        words = _MEASURES.get(metric)
        parts.append(words[1 if zh else 0] if words else metric.replace("_", " "))
    window = _window(intent.start, intent.end, zh)
    if window:
        parts.append(window)
    return " · ".join(parts)[:200]


def _short(name: str) -> str:
    for suffix in _CORPORATE:
        if name.endswith(suffix):
            return name.removesuffix(suffix).rstrip(",")
    return name


def _window(start: date | None, end: date | None, zh: bool) -> str:
    if start is None or end is None:
        return ""
    whole_years = (start.month, start.day, end.month, end.day) == (1, 1, 12, 31)
    if whole_years and start.year == end.year:
        return f"{start.year}年" if zh else str(start.year)
    if whole_years:
        return f"{start.year}–{end.year}年" if zh else f"{start.year}–{end.year}"
    return f"{start}至{end}" if zh else f"{start} – {end}"


def _chinese_names(ids: list[str], settings: Settings) -> dict[str, str]:
    from datapilot.brains.offline.names import chinese_names
    from datapilot.data import open_data

    return chinese_names(ids, open_data(settings).catalog)
