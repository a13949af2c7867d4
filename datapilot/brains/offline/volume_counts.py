"""Sessions counted by their volume's move: "how many days did the Nasdaq's volume rise from the
day before", 成交量放大的有几天. No interface counts volume changes yet, so such a count is
declined, naming the words: never answered with the count of the price's up days, which
answers another question."""

from __future__ import annotations

import re

_VOLUME_MOVES = re.compile(
    r"(?i)\bvolumes?\s+(?:\w+\s+){0,3}?(?:rose|rise|risen|rising|increased?|grew|grow|fell|fall|"
    r"fallen|dropped|declined?|was\s+(?:higher|lower|up|down)|(?:went|go)\s+(?:up|down)|expanded|"
    r"shrank|contracted)\b"
    r"|成交量[^，。？！,;；]{0,6}?(?:放大|增加|上升|增长|萎缩|减少|下降|缩量|放量|比前一?天多|比前一?天少)"
    r"|放量|缩量"
)
_COUNTED = re.compile(
    r"(?i)\bhow\s+many\s+(?:\w+\s+){0,2}?(?:days|sessions)\b|几天|多少天|几个交易日|多少个交易日|天数"
)


def counted_by_volume(text: str) -> str | None:
    """The words counting sessions by their volume's move, or None."""
    moved = _VOLUME_MOVES.search(text)
    if moved is None or _COUNTED.search(text) is None:
        return None
    return moved.group(0)


def volume_count_message(words: str, zh: bool) -> str:
    """Why a count of sessions by volume is declined, and what can be asked instead."""
    if zh:
        return (
            f"“{words}”：我还不能按成交量的涨跌统计交易日天数，也不会用价格的涨跌天数来代替。"
            "可以问成交量的走势，或者配置一个大模型来回答。"
        )
    return (
        f"\"{words}\": I can't yet count sessions by their volume's move, and I won't count the "
        "price's up or down days instead. Ask for the volume itself, or configure an LLM endpoint "
        "to answer it."
    )
