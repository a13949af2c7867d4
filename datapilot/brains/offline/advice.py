"""Questions that ask for investment advice rather than for data.

"Should I buy Tesla?", 现在适合买入微软吗, "recommend me a stock": whether to buy or sell is not a
figure any dataset holds, so the answer is `out_of_scope` whatever the question names, with the
data question that would help instead. The cues are regular expressions in `vocab/scope.toml`.
"""

from __future__ import annotations

import re

from datapilot.brains.offline.phrases import Hit
from datapilot.brains.offline.refusals import chinese_name
from datapilot.brains.offline.vocab import Vocab
from datapilot.data.catalog import Entity
from datapilot.engine.summary.phrasing import possessive


def asks_advice(text: str, vocab: Vocab) -> str | None:
    """The words that ask for advice, or None."""
    pattern = vocab.scope.advice_pattern
    found = pattern.search(text) if pattern is not None else None
    return found.group(0) if found else None


def advice_message(entities: list[Entity], vocab: Vocab, zh: bool) -> str:
    """Why no advice is given, and a data question about the same names that can be answered."""
    messages = vocab.scope.advice_message
    if zh:
        name = chinese_name(entities[0]) if entities else "苹果"

        example = f"{name}近三年的收益率、波动率和最大回撤"
        template = messages.zh if messages else "我不提供投资建议。例如可以问：“{example}”。"
    else:
        name = entities[0].name if entities else "Apple"
        example = (
            f"{possessive(name)} return, volatility and maximum drawdown over the past 3 years"
        )
        template = messages.en if messages else 'I don\'t give investment advice. Try "{example}".'
    return template.format(example=example)


def advice_declined_note(zh: bool) -> str:
    """The advice part of a question that also asks for data, declined."""
    if zh:
        return "我不提供投资建议（买入、卖出或持有），这部分不作回答；下面只回答数据部分。"
    return (
        "I don't give investment advice (whether to buy, sell or hold), so that part is left "
        "out; the data part is answered below."
    )


# A move said as the occasion of the advice, not asked about: "after the drop", "given this
# rally", "despite the big decline", "had a rough drawdown", 跌了这么多, 大跌之后.
_OCCASION_BEFORE = re.compile(
    r"(?i)\b(?:after|following|given|despite|amid|on|with|since)\s+(?:the|this|that|its|such\s+a|"
    r"a|all\s+the|recent)?\s*(?:(?:big|huge|recent|latest|sharp|steep|massive|whole|last)\s+)?$"
    # told, not asked: "JPM had a rough drawdown this year - should my client buy more?"
    r"|\b(?:had|has\s+had|have\s+had|suffered|saw|has\s+seen|took|has\s+taken)\s+"
    r"(?:a|an|the|its|this|some|such\s+a)?\s*(?:\w+\s+)?$"
)
_OCCASION_AFTER = re.compile(r"^(?:了)?(?:这么多|那么多|这么狠|成这样|之后|以后|后)")


def occasion_only(text: str, hit: Hit) -> bool:
    """Whether a measure word only says what happened before the advice asked ("should I buy
    after the drop"), not a figure asked for."""
    return bool(
        _OCCASION_BEFORE.search(text[: hit.start]) or _OCCASION_AFTER.match(text[hit.end :])
    )
