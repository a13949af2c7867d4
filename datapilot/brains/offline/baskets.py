"""A weighted basket of names asked as one holding: "60/40 AAPL/MSFT bought at end-2019", "an
equally weighted portfolio of XOM and CVX", "equal-wt XOM + CVX pair", 等权组合.

The names the weights fall on (the priced names said nearest them, before a comparison word such
as "vs the S&P 500") are held as one buy-and-hold basket (`basket` interface), whose return,
drawdown or volatility is what is asked. A basket the reader cannot place (weights that do not
match the names, a rebalancing said) is declined, naming the weights: never answered with each
name's own figures, which answer another question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from datapilot.brains.offline.numbers import zh_number
from datapilot.brains.offline.phrases import within

if TYPE_CHECKING:  # the reader imports this module
    from datapilot.brains.offline.entities import Mention
    from datapilot.brains.offline.parsing import Parsed
    from datapilot.brains.offline.reading import Reading

# Weights written as parts of a hundred ("60/40", "40/40/20", "50-50"), before or after names.
_SPLIT = re.compile(
    r"(?<![\d/.:-])(\d{1,2}(?:\.\d)?)(?:\s*[/-]\s*(\d{1,2}(?:\.\d)?)){1,4}(?![\d/.:-])"
)
_EQUAL = re.compile(
    r"(?i)\bequal(?:ly)?[-\s]?(?:wt|wtd|weight(?:ed|s|ing)?)\b|\bsame\s+weights?\b"
    r"|\bequal\s+(?:parts|amounts|portions|sums|stakes|dollar\s+amounts)\b"
    r"|\bthe\s+same\s+amount\s+(?:in|into|of)\s+each\b"
    r"|\bhalf\s+(?:in\s+|into\s+)?each\b|\bsplit\s+(?:it\s+|the\s+money\s+)?(?:evenly|equally)\b"
    r"|等权(?:重)?|等额(?:买入|配置|持有)?|平均(?:配置|分配)|各(?:买|投|配|放|占)?了?一半|各半|一半一半"
    r"|对半(?:买|分|配)?"
    # "一半買寶僑、一半買嬌生", "half in PG and the other half in JNJ": a half beside each name
    r"|一半[^，。；;,]{1,12}?[、，,]\s*(?:另)?一半"
    r"|\bhalf\s+(?:(?:in|into|on)\s+)?[^,;.?!]{1,25}?(?:,|\band\b)\s*(?:the\s+other\s+)?half\b"
)


def weighted_basket(text: str) -> str | None:
    """The words that weight several names into one holding, or None."""
    weights, (start, end) = _weights(text)
    return text[start:end] if weights else None


def basket_message(words: str, zh: bool) -> str:
    """Why a weighted basket is declined, and what can be asked instead."""
    if zh:
        return (
            f"“{words}”：我还不能把几只按权重合成一个组合来计算，也不会只给出各自的数字来代替。"
            "可以分别问每只的收益率，或者配置一个大模型来回答。"
        )
    return (
        f"\"{words}\": I can't yet combine names into one weighted holding, and I won't give each "
        "name's own figures as its answer. Ask for each name's return, or configure an LLM "
        "endpoint to answer it."
    )


# Words that set a benchmark beside the basket: its names are not in it.
_AGAINST = re.compile(
    r"(?i)\b(?:vs\.?|versus|against|compared|relative\s+to|than|benchmark)\b|相比|对比|跑赢|跑输|比较"
    r"|(?:跟|和|与|同)[^，。？！,;；]{0,12}?比"
    r"|比(?=[^，。？！,;；]{0,12}?(?:多|少|高|低|好|差|强|弱))"  # 比标普500多几个百分点
)
# A member asked on its own beside the basket: declined, not answered with the basket alone.
_ALONE = re.compile(
    r"(?i)\balone\b|\bon\s+its\s+own\b|\beach\s+(?:leg|name|stock|member|one|position)\b"
    r"|\bindividually\b|各自|分别|单独|单只"
)
_HOLDING = re.compile(
    r"(?i)\b(?:portfolio|basket|pair|sleeve|combined\s+position|position)\b|组合|篮子|持仓"
)
# Rebalancing said and not denied: another method than buy and hold.
_REBALANCED = re.compile(r"(?i)\brebalanc\w*|再平衡|调仓")
_HELD = re.compile(
    r"(?i)\b(?:no|never|without|not|zero)\s+(?:\w+\s+){0,2}?rebal\w*|\bbuy[-\s]and[-\s]hold\b"
    r"|不(?:做|再)?(?:再平衡|调仓)|不调整"
)


_BOUGHT = re.compile(
    r"(?i)买(?:进|入)(?:后|之后|以后)?(?:就|并)?(?:一直)?(?:持有)?|\bbought\s+and\s+held\b"
)


def read_basket(reading: Reading, parsed: Parsed) -> None:
    """Weights said over priced names: those names as one basket (`reading.basket`)."""
    text = parsed.text
    if reading.series_entities or reading.status != "ok":
        return
    priced = [
        m
        for m in parsed.mentions
        if m.entity.kind in ("stock", "etf", "fund", "index")
        and m.entity.id not in reading.excluded  # "equal parts JNJ, PFE and MRK (not LLY)"
    ]
    placed = _percent_weights(text, priced)
    weights, span = ([w for _, w in placed[0]], placed[1]) if placed else _weights(text)
    if not weights:
        return
    if _ALONE.search(text):
        return  # "and KO alone for comparison", "each leg also": the basket and its members
    rebalanced = _REBALANCED.search(text)
    if rebalanced and not _HELD.search(text):
        return  # "rebalanced back to 60/40 every year-end": declined as a basket not read
    against = _AGAINST.search(text)
    if against is not None:
        priced = [m for m in priced if m.span[0] < against.start()]
    count = len(weights) if len(weights) > 1 else len(priced)
    if count < 2 or len(priced) < count:
        return
    nearest = sorted(priced, key=lambda m: min(abs(m.span[0] - span[1]), abs(span[0] - m.span[1])))
    held = sorted(nearest[:count], key=lambda m: m.span[0])
    ids = list(dict.fromkeys(m.entity.id for m in held))
    if placed:  # "三成买宝洁，三成买强生，四成买可口可乐": each share beside its own name
        ids = [i for i, _ in placed[0]]
    if len(ids) != count:
        return
    shares = weights if len(weights) > 1 else [1 / count] * count
    total = sum(shares)
    shares = [w / total for w in shares]
    said = (
        "/".join(f"{w * 100:g}" for w in shares)
        if len(weights) > 1
        else ("等权" if reading.zh else "equal-weight")
    )
    name = f"{said} {'/'.join(ids)}"
    reading.basket = (ids, shares, name)
    # A measure read inside the weights' own words (the 权重 of 等权重) is not asked.
    hits: dict[str, list[bool]] = {}
    for metric, hit in parsed.group("metric"):
        hits.setdefault(metric, []).append(within((hit.start, hit.end), [span]))
    reading.metrics = [m for m in reading.metrics if not (hits.get(m) and all(hits[m]))]
    if len(ids) == len(reading.price_entities):
        reading.rank = reading.compare = False  # one holding: nothing to rank it against
    reading.family_spans.append((*span, f"a basket: {name}"))
    for word in _HOLDING.finditer(text):  # "the pair", 组合: the basket itself
        reading.family_spans.append((*word.span(), f"the basket {name}"))
    for held_words in _HELD.finditer(text) if rebalanced or "rebal" in text.lower() else ():
        reading.family_spans.append((*held_words.span(), "held without rebalancing"))
    bought_spans = [b.span() for b in _BOUGHT.finditer(text)]
    for bought in bought_spans:  # 买进持有, 买进后: the basket's buy and hold
        reading.family_spans.append((*bought, "bought and held"))
    growth = [h for m, h in parsed.group("metric") if m == "investment_growth"]
    if (
        reading.amount is None
        and growth
        and all(within((h.start, h.end), bought_spans) for h in growth)
    ):
        # "收盘买入、之后不动": how the basket is held, not an amount's growth (none was said)
        reading.metrics = [m for m in reading.metrics if m != "investment_growth"]
        if not reading.metrics:
            reading.metrics = ["return"]
            if len(reading.price_entities) > len(ids):  # a benchmark beside: side by side
                reading.rank = True
    reading.trace.append(
        f"“{text[span[0] : span[1]]}” → {name}组合（买入持有，不再平衡）"
        if reading.zh
        else f'"{text[span[0] : span[1]]}" → one basket, {name}, bought and held'
    )


# A share in percent, or in tenths as Chinese says it (三成 is 30%).
_PERCENT = re.compile(
    r"(?P<pct>\d{1,2}(?:\.\d+)?)\s*%|(?P<tenth>[一二两三四五六七八九])成(?![本交绩功立为长员])"
)
# Words between a share and its name: "30% in AAPL", "30%买宝洁", "60% of it into".
_BESIDE = re.compile(
    r"(?i)^[\s,，:：]*(?:(?:in|into|of|to|on|at|for|it|the|money)\s+){0,3}"
    r"(?:买入?|投入?|放|配置?|给)?\s*$"
)


# Words between a name and its share said after it: 联合健康七成, "AAPL 60%", 苹果占六成.
_AFTER_NAME = re.compile(r"(?i)^\s*(?:[:：]\s*|(?:at|占|佔|配置?|买|放)\s*)?$")


def _percent_weights(
    text: str, priced: list[Mention]
) -> tuple[list[tuple[str, float]], tuple[int, int]] | None:
    """Shares said in percent each before its own name ("60% AAPL and 40% MSFT", 三成买宝洁 once
    Chinese percents are read), summing to 100: (id, weight) pairs and the span they cover."""
    placed: list[tuple[str, float]] = []
    spans: list[tuple[int, int]] = []
    for found in _PERCENT.finditer(text):
        after = next((m for m in priced if m.span[0] >= found.end()), None)
        before = next((m for m in reversed(priced) if m.span[1] <= found.start()), None)
        if after is not None and _BESIDE.match(text[found.end() : after.span[0]]):
            owner, covered = after, (found.start(), after.span[1])
        elif before is not None and _AFTER_NAME.match(text[before.span[1] : found.start()]):
            owner, covered = before, (before.span[0], found.end())  # 联合健康七成、礼来三成
        else:
            continue
        tenths = (zh_number(found["tenth"]) or 0) / 10 if found["tenth"] else 0.0  # 三成: 0.3
        share = float(found["pct"]) / 100 if found["pct"] else tenths
        placed.append((owner.entity.id, share))
        spans.append(covered)
    ids = [i for i, _ in placed]
    if len(placed) < 2 or len(set(ids)) != len(ids):
        return None
    if abs(sum(w for _, w in placed) - 1) > 0.005:
        return None
    return placed, (spans[0][0], spans[-1][1])


# Tenths said as a pair of digits: 五五配置 (half each), 六四开 (60/40), 七三比例.
_TENTHS_PAIR = re.compile(
    r"(?<![一二三四五六七八九十])(?P<a>[一二三四五六七八九])(?P<b>[一二三四五六七八九])"
    r"(?:开|分|配置?|比例?|的比例|搭配|(?=组合))"
)


def _weights(text: str) -> tuple[list[float], tuple[int, int]]:
    """The weights said ([] and the span for equal weights), or ([], (0, 0)) when none."""
    found = _EQUAL.search(text)
    if found is not None:
        return [1.0], found.span()
    pair = _TENTHS_PAIR.search(text)
    if pair is not None:
        tenths = [float(zh_number(pair["a"]) or 0), float(zh_number(pair["b"]) or 0)]
        if sum(tenths) == 10:
            shares = [1.0] if tenths[0] == tenths[1] else [t * 10 for t in tenths]
            return shares, pair.span()
    for split in _SPLIT.finditer(text):
        parts = [float(p) for p in re.findall(r"\d{1,2}(?:\.\d)?", split.group(0))]
        if len(parts) >= 2 and abs(sum(parts) - 100) <= 0.5:
            return parts, split.span()
    return [], (0, 0)
