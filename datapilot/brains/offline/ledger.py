"""The ledger of a question: every content word and number is read by a reading, or left over.

The readings (time, entities, vocabulary phrases, numbers a reader used) claim spans of the text;
what no reading claimed is split into words. Everyday words (the `filler` and `asking` cues,
common English words, single Chinese characters) carry nothing; every other left-over word —
an unknown name, a misspelt measure, a number, an episode — could change the answer, so an `ok`
answer names it in a note instead of dropping it. A word the catalog nearly knows gets the
closest name offered ("did you mean 辉瑞 (PFE)?").
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from datapilot.brains.offline.baskets import basket_message, weighted_basket
from datapilot.brains.offline.claims import GAP_CLAIMED
from datapilot.brains.offline.honour import (
    RANK_FILLER,
    UNDATED,
    content_words,
    period_unit,
    zh_periods,
)
from datapilot.brains.offline.numbers import zh_number
from datapilot.brains.offline.phrases import Hit, Span, mask, overlaps
from datapilot.brains.offline.vocab import Phrases, Vocab
from datapilot.brains.offline.volume_counts import counted_by_volume, volume_count_message
from datapilot.core.intent import NESTED_WINDOW, Ledger, LedgerEntry
from datapilot.core.intent import ReadAs as How
from datapilot.data.catalog import Catalog, Entity
from datapilot.data.common_words import zipf
from datapilot.data.text import is_common_word
from datapilot.interfaces.table_words import reads_word

if TYPE_CHECKING:  # the reading imports this module
    from datapilot.brains.offline.parsing import Parsed
    from datapilot.brains.offline.reading import Reading

# Latin words (with inner hyphens, dots, ampersands), numbers (with separators, a percent sign)
# and runs of Chinese characters.
_TOKEN = re.compile(
    r"[A-Za-z][A-Za-z0-9&.\-'’]*|\d+(?:[.,]\d+)*(?:%|[xX×倍](?![A-Za-z]))?|[\u3400-\u9fff]+",
    re.UNICODE,
)
# Below this a catalog name is too far from the word to offer it as what was meant.
SUGGEST_SCORE = 60.0
# Scales a number said beside a unit word takes (1万 is 10,000; "10k").
_SCALES = (1.0, 1e2, 1e3, 1e4, 1e6)


def _how(hit: Hit) -> tuple[How, str]:
    """The reading a vocabulary phrase belongs to and what it means."""
    label = hit.labels[0]
    kind, _, value = label.partition(":")
    if kind == "metric":
        return "measure", value
    if kind in ("chart", "chart_option"):
        return "chart", value or label
    if kind == "group":
        return "entity", value
    if label == "cue:filler":
        # Period and comparison words are never fillers: "best month", "the biggest gain".
        unit = period_unit(hit.text)
        if unit is not None:
            return "period", unit
        if RANK_FILLER.match(hit.text):
            return "form", "cue:rank"
        return "filler", ""
    if label == "out_of_scope":
        return "scope", ""
    return "form", label


def build_ledger(reading: Reading, parsed: Parsed, vocab: Vocab, catalog: Catalog) -> Ledger:
    """What each word of the question was read as, and the words left over."""
    text = parsed.text
    entries: list[LedgerEntry] = []
    claimed: list[Span] = []

    def claim(span: Span, how: How, meaning: str | None) -> None:
        claimed.append(span)
        entries.append(
            LedgerEntry(
                text=text[span[0] : span[1]], start=span[0], end=span[1], reading=how,
                meaning=meaning,
            )
        )  # fmt: skip

    for clause in parsed.time.clauses:
        claim(clause.span, "window", f"{clause.start}..{clause.end}")
    # Thresholds, exclusions, dates and distances asked for: before any filler or loose time
    # word ("一天" of 哪一天) can take their words.
    for first, last, said in reading.family_spans:
        if said == GAP_CLAIMED:  # "by over 10 points": the claim's figure, never a threshold
            claim((first, last), "form", said)
    for start, end, how, meaning in list(content_words(text, claimed)):
        if not overlaps((start, end), claimed):
            claim((start, end), how, meaning)
    for mention in parsed.mentions:
        if not overlaps(mention.span, claimed):
            claim(mention.span, "entity", reading.swapped.get(mention.entity.id, mention.entity.id))
    # Before loose lengths: "1 day" of "the biggest 1 day jump" is the change's length.
    for first, last, said in reading.family_spans:  # "how many days … above", "除外"
        for unclaimed in _unclaimed((first, last), claimed):
            claim(unclaimed, "form", said)
    for span in parsed.time.spans:
        if not any(s <= span[0] and span[1] <= e for s, e in claimed):
            claim(span, "window", None)
    for span in parsed.time.unread:  # a length anchored on words no reading dates
        if not overlaps(span, claimed):
            claim(span, "window", UNDATED)
    for span in parsed.time.nested:  # "the 2020 return, and March's": a window in a window
        if not overlaps(span, claimed):
            claim(span, "window", NESTED_WINDOW)
    for hit in parsed.hits:
        if overlaps((hit.start, hit.end), claimed):
            continue  # each word in one reading: "in" of "in 2020" is the window's
        how, meaning = _how(hit)
        claim((hit.start, hit.end), how, meaning or None)
    advice = vocab.scope.advice_pattern
    for found in advice.finditer(text) if advice is not None else ():
        claim(found.span(), "scope", "investment advice")
    rest = mask(text, claimed)
    numbers = _numbers_used(reading, parsed)
    named = {e.id for e in reading.entities}
    table_words = " ".join(
        [*(c for t in reading.tables for c in t.columns), *(t.description for t in reading.tables)]
    ).casefold()
    cues = vocab.cues.cues
    asking = cues.get("asking", Phrases())
    filler_zh = sorted({*cues["filler"].zh, *asking.zh}, key=len, reverse=True)
    filler_en = {w.casefold() for w in [*cues["filler"].en, *asking.en]}
    for token in _TOKEN.finditer(rest):
        word, start = token.group(0), token.start()
        if word[0].isdigit():
            value = _number(word)
            if value is not None and (
                any(abs(value * s - n) < 1e-9 for n in numbers for s in _SCALES)
                or _counts_the_windows_periods(value, text, token.end(), reading)
                or _a_place_in_the_ranking(value, text, start, reading)
            ):
                entries.append(_entry(word, start, "count", None))
            elif value is not None:
                # A number no reader took (an amount, a fee, a level): the answer would rest on
                # its absence, so it is a word to honour, never a note beside an `ok`.
                entries.append(_entry(word, start, "number", None))
            else:
                entries.append(_entry(word, start, "unread", None))  # a multiple: "3x"
            continue
        if word[0].isascii():
            word = re.sub(r"['’]s$", "", word).strip(".-'’")
            if not word:
                continue
            unit = period_unit(word)
            if unit is not None:  # never a filler, however everyday
                entries.append(_entry(word, start, "period", unit))
                continue
            if word.casefold() in filler_en or _common(word):
                continue
            if _word_number(word, vocab) in numbers:  # "top five", "a zero risk-free rate"
                entries.append(_entry(word, start, "count", None))
                continue
            if table_words and (word.casefold() in table_words or reads_word(word)):
                entries.append(_entry(word, start, "table", None))
            elif _names_again(word, named, catalog):
                entries.append(_entry(word, start, "entity", "another name"))
            else:
                entries.append(_entry(word, start, "unread", None))
            continue
        kept = [(s - start, e - start) for s, e in parsed.glued]
        for piece, offset in _cjk_pieces(word, filler_zh, kept):
            periods = list(zh_periods(piece))
            for s, e, unit in periods:  # 哪个月, 季度: never grammar
                entries.append(_entry(piece[s:e], start + offset + s, "period", unit))
            marked = mask(piece, [(s, e) for s, e, _ in periods])
            for part in re.finditer(r"[^\x00]+", marked):
                entry = _zh_piece(part.group(0), numbers, table_words, named, catalog)
                if entry is not None:
                    entries.append(_entry(part.group(0), start + offset + part.start(), *entry))
    entries.sort(key=lambda e: e.start)
    return Ledger(entries=entries)


def _zh_piece(
    piece: str, numbers: set[float], table_words: str, named: set[str], catalog: Catalog
) -> tuple[How, str | None] | None:
    """What a left-over run of Chinese is read as; None for a lone character (出, 按: grammar,
    not a name or measure)."""
    if len(piece) < 2:
        return None
    if _zh_count(piece) in numbers:
        return "count", None
    if table_words and (piece.casefold() in table_words or reads_word(piece)):
        return "table", None
    if _names_again(piece, named, catalog):
        return "entity", "another name"
    return "unread", None


def _unclaimed(span: Span, claimed: list[Span]) -> list[Span]:
    """The parts of `span` no reading has claimed yet."""
    pieces = [span]
    for s, e in claimed:
        pieces = (
            [
                part
                for a, b in pieces
                for part in ((a, min(b, s)), (max(a, e), b))
                if part[0] < part[1]
            ]
            if any(a < e and s < b for a, b in pieces)
            else pieces
        )
    return pieces


def _entry(word: str, start: int, how: How, meaning: str | None = None) -> LedgerEntry:
    return LedgerEntry(text=word, start=start, end=start + len(word), reading=how, meaning=meaning)


# Words at least this frequent (Zipf) are grammar or everyday talk ("have", "time", "look");
# rarer ones ("taxes", "euros", "Sortino") may change the answer, so they are accounted for.
EVERYDAY_ZIPF = 5.0


def _common(word: str) -> bool:
    """An everyday English word. A hyphenated coinage ("dot-com") is not: it names an episode
    or a product even when its parts are everyday words."""
    return "-" not in word and zipf(word.lower()) >= EVERYDAY_ZIPF


def _cjk_pieces(run: str, filler: list[str], kept: list[Span]) -> list[tuple[str, int]]:
    """A run of Chinese characters without its filler words, as (piece, offset) pairs; a filler
    inside a `kept` span is a character of a name (中 of 中欧)."""
    marked = run
    for word in filler:
        for found in re.finditer(re.escape(word), marked):
            if not overlaps(found.span(), kept):
                marked = marked[: found.start()] + "\x00" * len(word) + marked[found.end() :]
    return [(m.group(0), m.start()) for m in re.finditer(r"[^\x00]+", marked)]


def _word_number(word: str, vocab: Vocab) -> float | None:
    if word.casefold() in ("zero", "nil"):
        return 0.0
    value = vocab.time.numbers.get(word.casefold())
    return float(value) if value is not None else None


def _zh_count(piece: str) -> float | None:
    """A count written in Chinese around its measure words (前两名, 五只): its value."""
    value = zh_number(piece.strip("前后第名只个位家支天"))
    return float(value) if value is not None else None


def _number(word: str) -> float | None:
    if word[-1] in "xX×倍":
        return None  # a multiple (leverage, "3x") no reader takes
    try:
        return float(word.rstrip("%").replace(",", ""))
    except ValueError:
        return None


def _numbers_used(reading: Reading, parsed: Parsed) -> set[float]:
    """Every number a reader took from the question (counts, lengths, amounts, rates)."""
    found: set[float] = set()
    for value in (reading.top_k, reading.window, reading.amount, reading.days, reading.risk_free):
        if value is not None:
            found.add(float(value))
    if reading.threshold is not None:  # a count's level or daily move ("above $150", 超过3%)
        found.add(abs(float(reading.threshold)))
    found |= {float(w) for w in reading.ma_windows}
    if reading.horizon is not None:
        found.add(float(reading.horizon.count))
    if reading.normalize:
        found.add(100.0)  # rebased to 100
    if reading.universe or reading.members_of:
        found.add(float(len(reading.entities)))  # "the 20 stocks"
    found |= {float(d.count) for d in parsed.time.durations}
    return found


# A count said of periods: "its 12 monthly values", "the 20 quarters", 12个月.
_PERIODS_COUNTED = re.compile(
    r"(?i)\s*(?:calendar\s+|full\s+|whole\s+)?(?:(?P<month>monthly|months?)|"
    r"(?P<quarter>quarterly|quarters?)|(?P<year>annual|yearly|years?))\b"
    r"|(?:个)?(?:自然|日历|完整的?)?(?:(?P<month_zh>月)|(?P<quarter_zh>季度?)|(?P<year_zh>年))"
)


def _a_place_in_the_ranking(value: float, text: str, at: int, reading: Reading) -> bool:
    """ "The spread between #1 and #4": a place in the ranking of the names asked."""
    said = re.search(r"(?i)(?:#|\bno\.?\s*|\bnumber\s+)$", text[max(0, at - 8) : at])
    return said is not None and reading.rank and 1 <= value <= len(reading.entities)


def _counts_the_windows_periods(value: float, text: str, at: int, reading: Reading) -> bool:
    """Whether a number said before a period word ("its 12 monthly values in 2013") is how many
    of those periods the window, made of whole months, holds."""
    start, end = reading.start, reading.end
    said = _PERIODS_COUNTED.match(text, at)
    if said is None or start is None or end is None:
        return False
    if start.day != 1 or (end + timedelta(days=1)).day != 1:
        return False
    months = (end.year - start.year) * 12 + end.month - start.month + 1
    unit = next(k.removesuffix("_zh") for k, v in said.groupdict().items() if v)
    return value * {"month": 1, "quarter": 3, "year": 12}[unit] == months


def _names_again(word: str, named: set[str], catalog: Catalog) -> bool:
    """Another name of an entity already read ("money supply M1", "恐慌指数VIX")."""
    return any(m.score >= 100 and m.entity.id in named for m in catalog.lookup(word, limit=3))


def suggestion(word: str, catalog: Catalog, zh: bool) -> str:
    """The catalog name one or two letters away from an unknown word ("辉端" → 辉瑞), said as a
    question; '' when none is that close or the word is a number."""
    if word[0].isdigit() or _everyday(word):
        return ""  # "高点", "sold": a word of the language, not a misspelt name
    names = _names(catalog)
    limit = 1 if len(word) <= 5 else 2
    found = process.extractOne(
        word.casefold(), list(names), scorer=Levenshtein.distance, score_cutoff=limit
    )
    # A misspelt Latin name keeps its first letter ("Microsft", "Exon"); "topped" is no copper.
    if found is None or (word.isascii() and found[0][:1] != word[:1].casefold()):
        return ""
    entity = names[found[0]]
    if zh:
        from datapilot.brains.offline.names import chinese_name

        return f"（您是说{chinese_name(entity)}（{entity.id}）吗？）"
    return f" (did you mean {entity.name} ({entity.id})?)"


# From this many uses in jieba's dictionary a Chinese word is everyday language (高点 153, 谷底
# 280, 发生 24,052), not a misspelt name (沃尔马 10, 辉端 0).
_EVERYDAY_ZH = 100


def _everyday(word: str) -> bool:
    if word.isascii():
        return is_common_word(word)
    from datapilot.retrieval.tokens import word_frequency

    return word_frequency(word) >= _EVERYDAY_ZH


def _names(catalog: Catalog) -> dict[str, Entity]:
    """Every name and alias of the catalog's entities (lower case), built once per catalog."""
    cached = _NAMES.get(id(catalog))
    if cached is None or cached[0] is not catalog:
        names = {name.casefold(): e for e in catalog.entities() for name in (e.name, *e.aliases)}
        cached = _NAMES[id(catalog)] = (catalog, names)
    return cached[1]


_NAMES: dict[int, tuple[Catalog, dict[str, Entity]]] = {}


def left_over_note(words: list[str], catalog: Catalog, zh: bool) -> str:
    """The note an answer carries for words it did not read."""
    if zh:
        said = "、".join(f"“{w}”{suggestion(w, catalog, zh)}" for w in words)
        return f"我没有读懂{said}，回答里没有用到。"
    said = ", ".join(f'"{w}"{suggestion(w, catalog, zh)}' for w in words)
    them = "them" if len(words) > 1 else "it"
    return f"I did not read {said}, so the answer does not use {them}."


# Words that end the name of a measure: an unknown word before one names a measure ("Sortino
# ratio", 索提诺比率), not an entity.
_MEASURE_HEAD = re.compile(
    r"(?i)^\s*(ratio|rate|yield|score|multiple|coefficient|index|spread)\b"
    r"|^(比率|比例|系数|指标|率)"
)
_ZH_MEASURE_END = re.compile(r"(比率|比例|系数|指标|率)$")


def _unknown_measure(ledger: Ledger, text: str) -> str | None:
    """The words of a measure the question names that no reading knows, if any."""
    for entry in ledger.entries:
        if entry.reading != "unread" or entry.text[0].isdigit():
            continue
        if _ZH_MEASURE_END.search(entry.text) and len(entry.text) > 2:
            return entry.text
        head = _MEASURE_HEAD.match(text[entry.end :])
        if head is not None:
            joint = "" if head.group(2) else " "
            return f"{entry.text}{joint}{head.group(1) or head.group(2)}"
        names = [e.end for e in ledger.entries if e.reading == "entity" and e.end <= entry.start]
        owned = names and _OWNED.fullmatch(text[max(names) : entry.start])
        if owned and _ASKED_AFTER.match(text[entry.end :]):
            return entry.text  # "What was Microsoft's alpha in 2020?", 微软2020年的阿尔法是多少
    return None


# A word a name owns, asked as what the question wants: "Microsoft's alpha in 2020?", "MSFT's
# alpha", 微软2020年的阿尔法是多少 (never 新冠暴跌前的高点, owned by no name).
_OWNED = re.compile(r"['’]s\s+|\s*(?:\d{4}\s*年度?)?\s*的")
_ASKED_AFTER = re.compile(
    r"(?i)\s*(?:$|[?？,，.。]|(?:in|for|over|during|since|of|at|on|this|last|as)\b|\d"
    r"|(?:是|为|有)?多少|是什么|是几|如何|怎么样)"
)


def unknown_measure_message(measure: str, zh: bool) -> str:
    """Why a question about a measure nobody taught the reader gets no default measure."""
    if zh:
        return (
            f"我不认识指标“{measure}”，不会用收盘价之类的别的指标代替。可以在数据目录的 "
            "vocab/metrics.toml 里教我这个词，或者配置一个大模型来回答。"
        )
    return (
        f"I don't know the measure \"{measure}\", and I won't show closing prices or another "
        "measure instead. Teach me the word in vocab/metrics.toml in the data dir, or configure "
        "an LLM endpoint to answer it."
    )


# Arithmetic asked of the figures: left unread, the figures shown would answer another question
# ("the Nasdaq's close divided by the S&P's" answered with the two closes; "the mean absolute
# daily move" with the mean of signed moves). A closed list, as the fillers are.
_OPERATOR = re.compile(
    r"(?i)\b(?:divided|divide|dividing|multiplied|multiply|minus|subtract(?:ed|ing)?|"
    r"absolute|abs|squared?|square\s+root|sqrt|cubed?|logarithm|log\s+of|natural\s+log|exponent|reciprocal|"
    r"inverse|inverted?|doubled?|halved?|ratio|leverage[d]?|levered)\b"
    r"|除以|相除|比值|之比|乘以|相乘|减去|绝对值|平方|立方|开方|对数|倒数|之和|之差|差值|杠杆|翻倍"
)


# Operator words that restate a measure the reading took ("Nasdaq divided by the S&P 500 —
# what's the ratio?"): the operation is done, the word names it again.
_RESTATES = {
    "ratio": re.compile(r"(?i)^(?:ratio|divided|divide|dividing|比值|之比|相除|除以)$"),
    "spread": re.compile(r"(?i)^(?:minus|subtract(?:ed|ing)?|difference|减去|之差|差值)$"),
}


# "Daily simple returns, sample std dev, times sqrt(252)": the volatility's own annualisation,
# which the reading applies to daily returns.
_ANNUALISES = re.compile(r"(?i)^(?:sqrt|square\s+root|开方|根号)$")
_OF_252 = re.compile(r"(?i)\s*(?:\(|of\s+)?\s*252\b")


def _restated_operations(ledger: Ledger, metrics: list[str], text: str) -> None:
    """Unread operator words naming an operation the reading already does become fillers."""
    restated = [pattern for metric, pattern in _RESTATES.items() if metric in metrics]
    days: tuple[int, int] | None = None  # the 252 of a "sqrt(252)" read
    for entry in ledger.entries:
        if days is not None and entry.start < days[1] and days[0] < entry.end:
            entry.reading = "filler"
        if entry.reading != "unread":
            continue
        said = entry.text.strip()
        of_252 = _OF_252.match(text, entry.end) if "volatility" in metrics else None
        if of_252 is not None and _ANNUALISES.match(said):
            days = of_252.span()
            entry.reading = "filler"
        elif any(p.match(said) for p in restated):
            entry.reading = "filler"


def _unread_operator(ledger: Ledger, text: str) -> str | None:
    """The first arithmetic word of the question no reading took, if any."""
    unread = [(e.start, e.end) for e in ledger.entries if e.reading == "unread"]
    for found in _OPERATOR.finditer(text):
        if any(s < found.end() and found.start() < e for s, e in unread):
            return found.group(0)
    return None


def operator_message(word: str, zh: bool) -> str:
    """Why a question asking arithmetic of its figures that no reading does is declined."""
    if zh:
        return (
            f"“{word}”：这一步运算（比值、差值、绝对值之类）我还不能按原意计算，也不会只给出"
            "运算前的数字来代替。可以分别问参与运算的数字，或者配置一个大模型来回答。"
        )
    return (
        f'"{word}": I can\'t yet do that arithmetic on the figures (a ratio, a difference, an '
        "absolute value), and I won't show the figures without it as the answer. Ask for the "
        "figures themselves, or configure an LLM endpoint to answer it."
    )


def _decline(
    reading: Reading,
    ledger: Ledger,
    declared: str,
    message: str,
    said: str | None = None,
    said_as: tuple[str, str] | None = None,
) -> None:
    """The reading declined with `message`, the `declared` word counted as named in it, and
    (with `said_as`: its Chinese and English) the trace line "“said”：…" / '"said": …'."""
    reading.status = "no_data"
    reading.message = message
    ledger.declared.append(declared)
    if said is not None and said_as is not None:
        zh, en = said_as
        reading.trace.append(f"“{said}”：{zh}" if reading.zh else f'"{said}": {en}')


_CHANGES = {"return", "cumulative_return"}


def _mixed_units(reading: Reading) -> str | None:
    """The names of a change asked of a rate (in points) beside a level (in %), ranked or set
    side by side as one measure: the two changes are not one measure, so no ranking or gap of
    them answers; None when the series agree."""
    series = reading.series_entities
    if len(series) < 2 or not _CHANGES & set(reading.metrics) or reading.parts:
        return None
    rates = [e for e in series if e.units.casefold() in ("percent", "%")]
    if not rates or len(rates) == len(series):
        return None
    return ", ".join(e.id for e in series)


def mixed_units_message(names: str, zh: bool) -> str:
    """Why a change of a rate beside a level's is declined, and what to ask instead."""
    if zh:
        return (
            f"{names}：利率类序列的变化以百分点计，水平类序列以百分比计，不能当作同一个指标排名或"
            "相减。请分别提问每个序列的变化，我不会用另一个问题的数字来代替。"
        )
    return (
        f"{names}: a rate's change is in percentage points and a level's in percent, so they "
        "are not one measure to rank or subtract. Ask for each series' change on its own; I "
        "won't give figures for another question instead."
    )


# Words that hang a window on an occasion: "on the day Britain voted", "the year Trump was
# elected", "since SVB collapsed", 特朗普当选总统的那一年, 熔断的那个月, 上市以来.
_ANCHOR = re.compile(
    r"(?i)\b(?:on|from|since|after|before|until|in)\s+the\s+(?:day|morning|evening|night|week|"
    r"month|year|session)\b|\bthe\s+(?:day|week|month|year)\s+(?=\w+\s+\w+)|\bthat\s+"
    r"(?:day|week|month|year)\b|\b(?:since|after|before)\b|那一?(?:年|天|日|个月|周|星期)|当天|当日"
    r"|当年|以来|之后|以后|之前|以前"
)


# A word of time the reader left unread: the window the question sets is not the one answered.
_TIME_WORD = re.compile(r"(?i)[年月季周]|\b(?:years?|months?|quarters?|weeks?)\b")


# A day's clause followed by a range's other end that no time reading took ("… to the last
# close of his first term", "…到他任期结束"): the window's end is undated.
_UNREAD_END = re.compile(
    r"(?i)\s*,?\s*(?:(?:to|until|till|through)\b|到|至)\s*(?P<end>[^,.;:?!，。；：？！]+)"
)


def _undated_event(reading: Reading, parsed: Parsed, ledger: Ledger) -> str | None:
    """Left-over words beside words that date the window by them, when the window was not read
    from the question (or its start was not): the occasion it is dated by, unread, or None.
    Answering over the past year instead would answer another question."""
    time = parsed.time
    for clause in time.clauses:  # "from the day Obama was sworn in to the end of his term"
        unread_end = _UNREAD_END.match(parsed.text, clause.span[1])
        if clause.start is not None and clause.start == clause.end and unread_end is not None:
            return unread_end.group("end").strip()
    # 那一年 of 我儿子出生的那一年 is "that year", never the past year a length would say.
    dated = [c for c in time.clauses if not parsed.text[: c.span[0]].endswith(("那", "那个"))]
    if time.from_first or (time.explicit and time.start_given and len(dated) == len(time.clauses)):
        return None
    unread = [e for e in ledger.entries if e.reading == "unread" and not e.text.isdigit()]
    if not unread:
        return None
    timed = [e.text for e in unread if _TIME_WORD.search(e.text)]
    if timed:  # 蘋果舊年升咗幾多 read without 舊年 ("last year") is not the past twelve months
        return timed[0]
    taken = [c.span for c in dated]
    for anchor in _ANCHOR.finditer(parsed.text):
        if any(lo <= anchor.start() < hi for lo, hi in taken):
            continue
        near = [e for e in unread if -40 <= e.start - anchor.end() <= 40]
        if near:
            first, last = min(e.start for e in near), max(e.end for e in near)
            return parsed.text[first:last]
    return None


def undated_event_message(event: str, zh: bool) -> str:
    """Why a window dated by an occasion the reader cannot date is declined."""
    if zh:
        return (
            f"我不知道“{event}”是哪一天，所以定不出要算的时间段，也不会换成别的时间段来回答。"
            "请直接给出日期（例如“从2016-06-23到2016-12-30”或“2016年”）。"
        )
    return (
        f"I can't tell when \"{event}\" was, so I can't set the window it dates, and I won't "
        'answer for another one. Name the dates instead (for example "from 2016-06-23 to '
        '2016-12-30" or "in 2016").'
    )


def account(reading: Reading, parsed: Parsed, vocab: Vocab, catalog: Catalog) -> None:
    """Keep the ledger on the reading; an `ok` answer names in a note what it did not read."""
    ledger = build_ledger(reading, parsed, vocab, catalog)
    said = " ".join([reading.message or "", *reading.notes]).casefold()
    ledger.declared = [w for w in ledger.left_over if w.casefold() in said]
    measure = _unknown_measure(ledger, parsed.text) if reading.measure_defaulted else None
    if measure is not None and reading.status == "ok":
        # "Sortino ratio": the measure asked for is unknown, so no default measure stands in.
        said_as = ("词汇表里没有这个指标", "a measure the vocabulary does not know")
        message = unknown_measure_message(measure, reading.zh)
        _decline(reading, ledger, measure.split()[0], message, measure, said_as)
    _restated_operations(ledger, reading.metrics, parsed.text)
    operator = _unread_operator(ledger, parsed.text) if reading.status == "ok" else None
    if operator is not None:
        message = operator_message(operator, reading.zh)
        _decline(
            reading, ledger, operator, message, operator, ("没有读懂的运算", "arithmetic not read")
        )
    several = len(reading.entities) >= 2
    unplaced = several and reading.basket is None  # weights the reader could not place
    basket = weighted_basket(parsed.text) if reading.status == "ok" and unplaced else None
    if basket is not None:  # "60/40 AAPL/MSFT": one holding, not each name's figures
        message = basket_message(basket, reading.zh)
        _decline(reading, ledger, basket, message, basket, ("按权重组合", "a weighted basket"))
    counted = counted_by_volume(parsed.text) if reading.status == "ok" else None
    if counted is not None and "volume" in reading.metrics:
        # "days of rising volume": never the price's up days
        _decline(reading, ledger, counted, volume_count_message(counted, reading.zh))
    mixed = _mixed_units(reading) if reading.status == "ok" else None
    if mixed is not None:  # "how much did GDP shrink, and how many points did unemployment rise"
        said_as = ("单位不同的序列", "series in different units")
        _decline(reading, ledger, mixed, mixed_units_message(mixed, reading.zh), mixed, said_as)
    event = _undated_event(reading, parsed, ledger) if reading.status == "ok" else None
    if event is not None:  # "on the day Britain voted": the window hangs on words not read
        said_as = ("不知道是哪天，无法定出时间窗口", "a day the reader cannot date")
        _decline(reading, ledger, event, undated_event_message(event, reading.zh), event, said_as)
    silent = list(dict.fromkeys(ledger.silent))
    if silent and reading.status == "ok":
        reading.notes.append(left_over_note(silent, catalog, reading.zh))
        ledger.declared += silent
    if ledger.left_over:
        words = list(dict.fromkeys(ledger.left_over))
        reading.trace.append(
            "未读懂的词：" + "、".join(f"“{w}”" for w in words)
            if reading.zh
            else "left over, not read: " + ", ".join(f'"{w}"' for w in words)
        )
    reading.ledger = ledger
