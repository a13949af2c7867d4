"""Alert words, in English and Chinese, read into a `Condition` with the spans they took.

- a level: "closes below 150", "trades above $200", "at or above 4000", 跌破150, 收盘高于3000点;
- a daily move: "falls more than 2% in a day", "a daily drop of more than 3%", "moves more than
  5% in a day either way", 单日跌幅超过2%, 一天涨超过3%;
- a drawdown from the running peak: "drawdown exceeds 10%", "draws down more than 15%", "falls
  20% from its peak", 回撤超过10%;
- a return over a window of sessions: "return over the past 20 days above 5%", "falls more than
  10% over the last 20 trading days", 近20日涨幅超过5%;
- a moving-average cross (simple, 50 sessions unless said): "crosses above its 50-day moving
  average", "falls below its 200-day MA", 上穿50日均线, 跌破均线.

A move with no period ("falls more than 2%") is not guessed to be daily: `read_condition`
returns it as `ambiguous`, and the reader refuses it asking for the period.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from datapilot.brains.offline.numbers import zh_number
from datapilot.core.watches import DEFAULT_BEHAVIOUR, DEFAULT_MA_SESSIONS, Condition

Span = tuple[int, int]

_NUM = r"(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)"
_PCT = r"\s*(?:%|percent|per\s*cent|％)"
_MORE = (
    r"(?P<cmp>(?:by\s+)?more\s+than|over|above|greater\s+than|bigger\s+than|beyond|exceeding|"
    r"in\s+excess\s+of|at\s+least|by\s+at\s+least|by)"
)
_DOWN = r"f[ae]lls?|falling|drops?|dropped|dropping|declines?|declined|loses|lost|sinks?|sank|slides?|slid|plunges?|plunged|tumbles?|tumbled|is\s+down|down"  # noqa: E501
_UP = r"rises?|rose|rising|gains?|gained|jumps?|jumped|climbs?|climbed|surges?|surged|advances?|advanced|is\s+up|up|rallies|rallied"  # noqa: E501
_MOVE = r"moves?|moved|swings?|swung|changes?|changed"
_DAY = (
    r"(?P<day>\s+(?:in\s+(?:a|one|a\s+single|any)\s+(?:day|session|trading\s+day)|on\s+(?:a|any|one)"
    r"\s+(?:day|session)|in\s+a\s+day|daily|intraday|in\s+one\s+session))"
)
_EITHER = r"(?P<either>\s+(?:either\s+way|in\s+either\s+direction|up\s+or\s+down))?"
_WINDOW_EN = (
    r"(?:over|in|during|within)\s+(?:the\s+)?(?:past|last|previous|trailing)\s+(?P<n>\d+)\s+"
    r"(?:trading\s+)?(?:days|sessions)"
)

_DAILY_EN = (
    re.compile(
        rf"(?i)\b(?P<dir>{_DOWN}|{_UP}|{_MOVE})\s+{_MORE}\s+{_NUM}{_PCT}{_EITHER}(?:{_DAY})?{_EITHER.replace('either', 'either2')}"  # noqa: E501
    ),
    re.compile(
        rf"(?i)\b(?:a\s+)?(?:daily|one[- ]day|single[- ]day)\s+(?P<dir>gain|rise|move|drop|fall|"
        rf"loss|decline|change)s?\s+(?:of\s+)?{_MORE}\s+{_NUM}{_PCT}{_EITHER}"
    ),
)
_WINDOW_RETURN_EN = (
    re.compile(
        rf"(?i)\b(?:(?:its|the)\s+)?(?:return|performance|change)\s+{_WINDOW_EN}\s+(?:is\s+|goes\s+|gets\s+)?"
        r"(?P<cmp>above|over|below|under|more\s+than|less\s+than|greater\s+than|exceeds|beyond|at\s+least|at\s+most)\s+"
        r"(?P<sign>-|minus\s+)?" + _NUM + _PCT
    ),
    re.compile(
        r"(?i)\b(?:its\s+|the\s+)?(?P<n>\d+)[- ](?:trading[- ])?(?:day|session)\s+(?:return|performance|change)\s+"  # noqa: E501
        r"(?:is\s+|goes\s+)?(?P<cmp>above|over|below|under|more\s+than|less\s+than|exceeds|beyond|at\s+least|at\s+most)\s+"
        r"(?P<sign>-|minus\s+)?" + _NUM + _PCT
    ),
    re.compile(
        rf"(?i)\b(?P<dir>{_DOWN}|{_UP}|{_MOVE})\s+{_MORE}\s+{_NUM}{_PCT}{_EITHER}\s+{_WINDOW_EN}"
    ),
)
_DRAWDOWN_EN = (
    re.compile(
        r"(?i)\b(?:its\s+|the\s+)?draw\s?down\s+(?:(?:is|goes|gets)\s+)?(?P<cmp>exceeds?|exceeding|"
        r"(?:is\s+)?(?:more|greater|deeper|bigger|larger)\s+than|beyond|above|over|of\s+more\s+than|"
        r"reaches|hits|at\s+least|passes|tops)\s+" + _NUM + _PCT
    ),
    re.compile(r"(?i)\bdraws?\s+down\s+" + _MORE + r"\s+" + _NUM + _PCT),
    re.compile(
        rf"(?i)\b(?P<dir>{_DOWN})\s+(?:{_MORE}\s+)?{_NUM}{_PCT}\s+(?:or\s+more\s+)?(?:below|from|off)\s+"
        r"(?:its|the)\s+(?:running\s+|recent\s+)?(?:peak|high|top)"
    ),
)
_MA_EN = re.compile(
    r"(?i)\b(?P<verb>crosses|cross|crossed|breaks|broke|moves|rises|climbs|goes|falls|drops|dips|"
    r"closes|slips)\s+(?P<side>above|over|below|under|through)\s+(?:its|the)\s+"
    r"(?:(?P<n>\d+)[- ]?(?:day|session|trading[- ]day|d)\s+)?(?:simple\s+)?"
    r"(?:moving\s+average|MA|SMA)(?:\s*\(?(?P<n2>\d+)\)?)?"
)
_LEVEL_EN = re.compile(
    r"(?i)\b(?P<verb>closes|close|closed|closing|trades|is|goes|falls|drops|dips|rises|climbs|"
    r"crosses|breaks|moves|gets|settles|ends)\s+(?:the\s+day\s+)?"
    r"(?P<cmp>below|under|above|over|at\s+or\s+above|at\s+or\s+below|at\s+least|at\s+most|"
    r"higher\s+than|lower\s+than|less\s+than|more\s+than|greater\s+than)\s+"
    r"(?:\$|US\$|USD\s*)?" + _NUM + r"(?:\s*(?:points|dollars|usd))?(?!\s*(?:%|percent|\d))"
)
_NUM_ZH = r"(?P<num>\d+(?:\.\d+)?)"
_DAILY_ZH = re.compile(
    r"(?P<day>单日|一天|当日|当天|日内|一日|每日)(?:内)?(?P<dir>涨跌幅|振幅|波动|涨幅|上涨|大涨|涨|跌幅|下跌|大跌|跌)"
    r"(?:的?绝对值)?(?P<cmp>超过|大于|高于|逾|超|不低于|至少|达到|在)?了?\s*"
    + _NUM_ZH
    + r"\s*[%％](?P<above>以上)?"
)
_WINDOW_ZH = re.compile(
    r"(?:近|过去|最近)(?P<n>[0-9零一二两三四五六七八九十百]+)(?:个)?(?:交易日|日|天)(?:的|内|里|中)?"
    r"(?P<dir>涨跌幅|涨幅|收益率?|回报率?|上涨|下跌|跌幅|涨|跌)"
    r"(?P<cmp>超过|大于|高于|低于|小于|逾|超|不低于|至少|达到)\s*(?P<sign>-|负)?"
    + _NUM_ZH
    + r"\s*[%％]"
)
_DRAWDOWN_ZH = re.compile(
    r"(?:从(?:高点|最高点|峰值|高位))?(?P<what>回撤|回落|下跌)(?:幅度)?(?P<cmp>超过|大于|达到|超|逾|超出|不低于|至少)了?\s*"
    + _NUM_ZH
    + r"\s*[%％]"
)
_MA_ZH = re.compile(
    r"(?P<side>上穿|突破|站上|向上突破|涨破|升破|下穿|跌破|向下突破|跌穿|跌落)\s*(?:其|它的)?"
    r"(?:(?P<n>[0-9零一二两三四五六七八九十百]+)(?:日|天|个交易日))?(?:简单)?(?:移动)?(?:平均线|均线|MA(?P<n2>\d+)?)"
)
_LEVEL_ZH = re.compile(
    r"(?:收盘价?|价格|股价|点位|指数)?(?P<cmp>跌破|低于|小于|高于|超过|突破|站上|大于|不低于|不高于|涨破|跌到|涨到)\s*"
    + _NUM_ZH
    + r"\s*(?:美元|元|点|块)?(?P<side>以上|以下)?(?![\d.%％])"
)


@dataclass
class ConditionReading:
    condition: Condition | None = None
    spans: list[Span] = field(default_factory=list)
    numbers: list[float] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    ambiguous: str | None = None  # words of a move with no period


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _count(text: str) -> int:
    return int(text) if text.isdigit() else int(zh_number(text) or 0)


def _direction(word: str) -> str:
    word = word.lower()
    if re.fullmatch(_DOWN, word) or word in ("drop", "fall", "loss", "decline") or "跌" in word:
        return "below"
    if "涨跌" in word or "振幅" in word or "波动" in word or re.fullmatch(_MOVE, word):
        return "beyond"
    if word in ("move", "change"):
        return "beyond"
    return "above"


def _made(measure: str, comparator: str, threshold: float | None, inclusive: bool,
          window: int | None = None) -> Condition:  # fmt: skip
    return Condition(
        measure=measure,  # type: ignore[arg-type]
        comparator=comparator,  # type: ignore[arg-type]
        threshold=threshold,
        inclusive=inclusive,
        window=window,
        behaviour=DEFAULT_BEHAVIOUR[measure],  # type: ignore[index]
    )


def _inclusive(cmp: str | None) -> bool:
    said = (cmp or "").lower()
    return any(
        w in said
        for w in ("least", "at or", "most", "不低于", "不高于", "至少", "达到", "reaches", "hits")
    )


def _signed(comparator: str, value: float) -> float:
    return -abs(value) if comparator == "below" else abs(value)


def read_condition(text: str) -> ConditionReading:
    """The alert condition `text` names, or an empty reading."""
    out = ConditionReading()
    for reader in (_ma, _drawdown, _window_return, _daily, _level):
        if reader(text, out):
            assert out.condition is not None
            out.trace.append(f"condition: {out.condition.describe()}")
            return out
    return out


def _ma(text: str, out: ConditionReading) -> bool:
    found = _MA_EN.search(text) or _MA_ZH.search(text)
    if found is None:
        return False
    groups = found.groupdict()
    side = groups["side"].lower()
    below = side in ("below", "under", "下穿", "跌破", "向下突破", "跌穿", "跌落") or (
        side == "through"
        and (groups.get("verb") or "").lower() in ("falls", "drops", "dips", "slips")
    )
    said = groups.get("n") or groups.get("n2")
    window = _count(said) if said else DEFAULT_MA_SESSIONS
    if said:
        out.numbers.append(float(window))
    else:
        out.trace.append(f"moving average with no length: {DEFAULT_MA_SESSIONS} sessions")
    out.condition = _made("ma_cross", "below" if below else "above", None, False, window)
    out.spans.append(found.span())
    return True


def _drawdown(text: str, out: ConditionReading) -> bool:
    found = next((f for p in _DRAWDOWN_EN if (f := p.search(text))), None)
    if found is None:
        zh = _DRAWDOWN_ZH.search(text)
        # 下跌超过10% alone is a move, not a drawdown: only 回撤, or a fall from the peak.
        if zh is not None and (zh.group("what") == "回撤" or zh.group(0).startswith("从")):
            found = zh
    if found is None:
        return False
    value = _num(found.group("num"))
    out.condition = _made(
        "drawdown", "below", -abs(value), _inclusive(found.groupdict().get("cmp"))
    )
    out.numbers.append(value)
    out.spans.append(found.span())
    return True


def _window_return(text: str, out: ConditionReading) -> bool:
    found = next((f for p in _WINDOW_RETURN_EN if (f := p.search(text))), None) or (
        _WINDOW_ZH.search(text)
    )
    if found is None:
        return False
    groups = found.groupdict()
    value = _num(groups["num"])
    window = _count(groups["n"])
    cmp = (groups.get("cmp") or "").lower()
    word = groups.get("dir")
    if word is not None and not re.search(r"收益|回报|涨跌幅", word):
        comparator = _direction(word)
        if comparator == "below" and cmp in ("低于", "小于"):
            comparator = "above"  # 跌幅低于5%: a fall smaller than 5%
        threshold = _signed(comparator, value) if comparator != "beyond" else value
    else:
        comparator = (
            "below"
            if cmp in ("below", "under", "less than", "at most", "低于", "小于")
            else "beyond"
            if cmp == "beyond"
            else "above"
        )
        negative = bool(groups.get("sign"))
        threshold = -value if negative else value
    out.condition = _made("window_return", comparator, threshold, _inclusive(cmp), window)
    out.numbers += [value, float(window)]
    out.spans.append(found.span())
    out.trace.append(f"{window} days read as {window} sessions (trading days)")
    return True


def _daily(text: str, out: ConditionReading) -> bool:
    found = next((f for p in _DAILY_EN if (f := p.search(text))), None)
    zh = _DAILY_ZH.search(text)
    if found is None and zh is not None and (zh.group("cmp") or zh.group("above")):
        found = zh
    if found is None:
        return False
    groups = found.groupdict()
    daily = (
        bool(groups.get("day"))
        or "daily" in found.group(0).lower()
        or "day" in (found.group(0).lower())
    )
    if not daily and re.search(
        r"(?i)\b(?:in\s+a\s+day|daily|one\s+day|single\s+day)\b|单日|一天", text
    ):
        daily = True  # "falls more than 2%, in a day" said apart
    if not daily:
        out.ambiguous = found.group(0)
        return False
    either = bool(groups.get("either") or groups.get("either2"))
    comparator = "beyond" if either else _direction(groups["dir"])
    value = _num(groups["num"])
    threshold = value if comparator == "beyond" else _signed(comparator, value)
    out.condition = _made("daily_move", comparator, threshold, _inclusive(groups.get("cmp")))
    out.numbers.append(value)
    out.spans.append(found.span())
    day_words = re.search(r"(?i)\b(?:in\s+a\s+day|daily|on\s+a\s+day|in\s+one\s+day)\b", text)
    if day_words is not None:
        out.spans.append(day_words.span())
    return True


def _level(text: str, out: ConditionReading) -> bool:
    found = _LEVEL_EN.search(text)
    if found is not None:
        cmp = re.sub(r"\s+", " ", found.group("cmp").lower())
        below = cmp in ("below", "under", "at or below", "at most", "lower than", "less than")
    else:
        found = _LEVEL_ZH.search(text)
        if found is None:
            return False
        cmp, side = found.group("cmp"), found.group("side") or ""
        below = cmp in ("跌破", "低于", "小于", "不高于", "跌到") or side == "以下"
    value = _num(found.group("num"))
    comparator = "below" if below else "above"
    out.condition = _made("close_level", comparator, value, _inclusive(cmp))
    out.numbers.append(value)
    out.spans.append(found.span())
    return True
