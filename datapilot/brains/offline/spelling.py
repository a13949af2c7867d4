"""Measure words typed a letter or a space off ("volatilty", "Sharp ratio", "draw down",
"cumulative retrun") read as the measure, the way misspelt names are read as the name.

A run of one to three words is compared with every English measure phrase by edit distance
(rapidfuzz's OSA distance, so a swapped pair of letters costs one edit): one edit in a run of up to
nine letters, two in a longer one, the first letter right, and one measure clearly closest — a
phrase of another measure as close means the word is left alone (and the ledger declares it). A
word that is itself a word of the vocabulary or a catalog name is never changed, and an everyday
word ("sharp") only beside the rest of its phrase ("Sharp ratio", never "a sharp drop"). Each
change is said in the answer's notes, so a user sees what their words were read as.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from pydantic import BaseModel
from rapidfuzz import process
from rapidfuzz.distance import OSA

from datapilot.brains.offline.vocab import MetricId, Vocab
from datapilot.data.catalog import Catalog
from datapilot.data.text import is_chinese, is_common_word

_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+(?![A-Za-z0-9])")
MIN_LETTERS = 5  # shorter words are too close to too many others ("vol" ↔ "val")
LONGEST_RUN = 3  # words compared at once: "max draw down"


class Respelling(BaseModel):
    """Words of the question read as a measure phrase they nearly are."""

    said: str
    read: str
    metric: MetricId


# Analysts' shorthand for periods ("last qtr", "best wk", "3 yrs"), read as the words they stand
# for before anything else reads the question.
_SHORT_PERIODS = re.compile(r"(?i)\b(qtr|yr|mth|wk|dt)(s?)\b")
_PERIOD_WORDS = {"qtr": "quarter", "yr": "year", "mth": "month", "wk": "week", "dt": "date"}


# 月收益率, 周涨跌幅: the returns of each month (week), said with the frequency's own word (月度),
# never 月 alone, which names a month to group by or to pick.
_ZH_PERIOD_RETURNS = re.compile(
    r"(?<![0-9一二三四五六七八九十两几每个上下本前后近这那哪当同])(?P<unit>周|月|季)(?=(?:收益|回报|涨跌幅|报酬))"
)
_ZH_FREQUENCY = {"周": "周度", "月": "月度", "季": "季度"}


# 这五年, 这三个月 (these five years): the past five years, as 近五年 says, where no date is said.
_DATED = re.compile(
    r"(?:19|20)\d{2}|\d{1,2}\s*月|[一二三四五六七八九十]{1,2}月(?!份?(?:收益|回报))"
)
_THESE_LAST = re.compile(
    r"这(?=[一两二三四五六七八九十几\d]+\s*个?\s*(?:年|月|季度|周|星期|天|交易日))"
)


# 失业最严重的时候, 通胀最厉害的那年: unemployment and inflation are worst at their highest.
_WORST_RATE_ZH = re.compile(r"(失业|通胀|通货膨胀)率?最(?:严重|厉害|糟糕?)")


def expand_period_shorthand(text: str) -> str:
    """`text` with qtr/yr/mth/wk/dt (and their plurals) written out, 月收益率 as 月度收益率,
    这五年 as 近五年."""
    text = _SHORT_PERIODS.sub(lambda m: _PERIOD_WORDS[m.group(1).lower()] + m.group(2), text)
    if not _DATED.search(text):  # "2022年1月到6月，这6个月": the months said, restated
        text = _THESE_LAST.sub("近", text)
    text = _WORST_RATE_ZH.sub(lambda m: f"{m[1]}率最高", text)
    return _ZH_PERIOD_RETURNS.sub(lambda m: _ZH_FREQUENCY[m["unit"]], text)


# "the second best month": the ranking down to that place, so the place asked is shown ranked.
_ORDINAL_RANK = re.compile(
    r"(?i)\b(second|third|fourth|fifth|2nd|3rd|4th|5th)[-\s]+(?=(?:best|worst|biggest|largest|"
    r"highest|lowest|smallest|strongest|weakest|top|bottom|most|least)\b)"
)
_ORDINALS = {"second": "2", "third": "3", "fourth": "4", "fifth": "5"}


# 倒数第三 (third from the bottom), 第二高, 第三差: the same count of places, in Chinese.
_ZH_ORDINAL_RANK = re.compile(
    r"倒数第(?P<last>[二两三四五2-5])(?:名|位)?|第(?P<n>[二两三四五2-5])(?P<side>差|低|弱|少|好|高|强|多|大)"
)
_ZH_PLACES = {"二": "2", "两": "2", "三": "3", "四": "4", "五": "5"}


# "its single worst and single best daily moves", "the best & worst days": two superlatives over
# one noun, each said with it, so each reads as the measure it is.
_PAIRED_SUPERLATIVES = re.compile(
    r"(?i)\b(?P<a>worst|best|biggest|largest|smallest|highest|lowest)\s+(?P<join>and|&|or)\s+"
    r"(?:(?:the|its)\s+)?(?:single\s+)?(?P<b>worst|best|biggest|largest|smallest|highest|lowest)\s+"
    r"(?P<noun>(?:[a-z-]+\s+){0,2}?(?:days?|sessions?|returns?|moves?|gains?|drops?|falls?|losses?|"
    r"changes?|months?|quarters?|years?|weeks?))\b"
)


def expand_paired_superlatives(text: str) -> str:
    """`text` with a noun shared by two superlatives said after each ("worst and best daily
    returns" → "worst daily returns and best daily returns")."""
    return _PAIRED_SUPERLATIVES.sub(
        lambda m: f"{m['a']} {m['noun']} {m['join']} {m['b']} {m['noun']}", text
    )


def expand_ordinals(text: str) -> str:
    """`text` with an ordinal before a superlative said as the count to rank down to ("second
    best" → "2 best", 倒数第三 → 最差的3): the ranking then shows the place asked, never only
    the first."""

    def zh(found: re.Match[str]) -> str:
        place = found["last"] or found["n"]
        count = _ZH_PLACES.get(place, place)
        return f"最{found['side'] or '差'}的{count}个"

    text = _ZH_ORDINAL_RANK.sub(zh, text)
    return _ORDINAL_RANK.sub(lambda m: _ORDINALS.get(m[1].lower(), m[1][0]) + " ", text)


# A length anchored on a day, then another said on the same day with the day left out: "the 10
# trading days before 2019-01-03 and in the 10 after", "… and the 10 trading days after it".
_ANCHORED = re.compile(
    r"(?i)\b(?P<n>\d+)\s+(?P<unit>(?:trading\s+)?(?:days?|sessions?|weeks?|months?))\s+"
    r"(?:before|after|prior\s+to|following)\s+(?P<day>\d{4}-\d{1,2}-\d{1,2}|[A-Z][a-z]{2,8}\.?\s+"
    r"\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})"
)
_ELIDED = re.compile(
    r"(?i)\b(?P<n>\d+)(?:\s+(?:trading\s+)?(?:days?|sessions?|weeks?|months?))?\s+"
    r"(?P<side>after|before|following|prior)(?:\s+(?:it|that|that\s+day|then))?"
    r"(?=\s*(?:[?.!,;]|$|and\b))"
)


def expand_elided_anchor(text: str) -> str:
    """`text` with a length's anchor day said again where it was left out (see `_ELIDED`)."""
    first = _ANCHORED.search(text)
    if first is None:
        return text
    rest = text[first.end() :]
    later = _ELIDED.search(rest)
    if later is None:
        return text
    said = f"{later['n']} {first['unit']} {later['side']} {first['day']}"
    at = first.end() + later.start()
    return text[:at] + said + text[first.end() + later.end() :]


# "The whole year" said after the year was named once (2018年最后一个交易日…？全年跌了多少？, "…
# and how much did it fall for the full year?"): that year.
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_WHOLE_YEAR_ZH = re.compile(r"(?<![\d年])(?:全年度|全年|整年|整个年度)")
_WHOLE_YEAR_EN = re.compile(r"(?i)\b(?:for|over|in|during)\s+the\s+(?:full|whole|entire)\s+year\b")


# "What's the S&P 500's record close and how far below it is the index now?": the peak said
# before, pointed at by "it" / "that".
_PEAK_SAID = re.compile(
    r"(?i)\b(?P<peak>record\s+(?:close|closing\s+(?:high|level|price)|high|level)|all[-\s]time\s+"
    r"(?:high|low)|52[-\s]?week\s+(?:high|low)|(?:pre-covid\s+)?(?:closing\s+)?peak)\b"
)
_POINTED = re.compile(r"(?i)\bhow\s+far\s+(?P<side>below|under|off|from|above)\s+(?:it|that)\b")


def expand_pointed_peak(text: str) -> str:
    """`text` with "how far below it" said as the peak named before ("below its record close")."""
    pointed = _POINTED.search(text)
    peak = _PEAK_SAID.search(text, 0, pointed.start()) if pointed else None
    if pointed is None or peak is None:
        return text
    said = f"how far {pointed['side']} its {peak['peak']}"
    return text[: pointed.start()] + said + text[pointed.end() :]


def expand_whole_year(text: str) -> str:
    """`text` with "the whole year" said as the one year it names elsewhere."""
    years = set(_YEAR.findall(text))
    if len(years) != 1:
        return text
    (year,) = years
    text = _WHOLE_YEAR_ZH.sub(f"{year}年全年", text)
    return _WHOLE_YEAR_EN.sub(f"in {year}", text)


# "The widest the spread got in 2008-09, and which month?": a year and the next one's two digits
# name two years when the question asks which month or quarter in them (one month has no month
# to pick); otherwise 2008-09 stays September 2008.
_YEAR_PAIR = re.compile(r"(?<![\d-])((?:19|20)(\d{2}))-(\d{2})(?![\d-])")
_SUB_PERIOD_ASKED = re.compile(
    r"(?i)\bwhich\s+(?:month|quarter|year|week)|\bwhat\s+(?:month|quarter)\b|哪个?月|哪个?季度|哪一?年"
    # "widest month", "best quarters", "how many months": periods picked or counted in the span
    r"|\b(?:peak|trough|highest|lowest|widest|narrowest|best|worst|strongest|weakest)\s+"
    r"(?:months?|quarters?|weeks?)\b|\bhow\s+many\s+(?:months|quarters|weeks)\b"
    r"|几个月|几个季度|(?:最好|最差|最高|最低|最大|最小)的?(?:月份?|季度)"
    # "when was the spread at its widest during 2008-09": a date picked in the span
    r"|\bwhen\b[^.?!]{0,60}?\b(?:widest|narrowest|highest|lowest|peak(?:ed)?|bottom(?:ed)?|"
    r"largest|smallest|biggest|deepest|max(?:imum)?|min(?:imum)?)\b"
    r"|(?:什么时候|何时)[^。？！]{0,20}?最"
)


def expand_year_pairs(text: str) -> str:
    """`text` with "2008-09" written "2008-2009" where it can only be two years."""
    if not _SUB_PERIOD_ASKED.search(text):
        return text

    def years(found: re.Match[str]) -> str:
        first, tail = int(found[2]), int(found[3])
        if tail != (first + 1) % 100:
            return found[0]
        return f"{found[1]}-{found[1][:2]}{found[3]}"

    return _YEAR_PAIR.sub(years, text)


# A Fed cycle named by its first year in other words than the episode's names: "the 2004–2006
# Fed hiking cycle", "the Fed's 2015 tightening campaign", "the hiking cycle that began in
# 2015", 2015年那轮美联储加息周期. Written as the episode's own name ("the 2004 hiking cycle",
# 2015年加息周期), so its days are the FOMC's first and last moves, never the calendar years
# said beside it; a cycle with no such episode stays unread.
_YEARS = r"(?P<y>(?:19|20)\d{2})(?:\s*(?:-|–|—|to|through)\s*(?:(?:19|20)\d{2}|\d{2}))?"
_FED = r"(?:(?:the\s+)?(?:fed|fomc|federal\s+reserve)(?:'s|’s)?\s+)"
_KIND = (
    r"(?P<kind>hiking|tightening|rate[-\s]hik(?:e|es|ing)|cutting|easing|rate[-\s]cut(?:s|ting)?)"
)
_FED_CYCLE_EN = re.compile(
    rf"(?i)\b(?:the\s+)?{_FED}?{_YEARS}\s+{_FED}?{_KIND}\s+(?:cycle|campaign)\b"
    rf"|\b(?:the\s+)?{_FED}?{_KIND.replace('kind', 'kind2')}\s+(?:cycle|campaign)\s+(?:that\s+)?"
    r"(?:began|started|starting|beginning|begun)\s+in\s+(?P<y2>(?:19|20)\d{2})\b"
)
_FED_CYCLE_ZH = re.compile(
    r"(?P<y>(?:19|20)\d{2})年?(?:\s*[-–—至到]\s*(?:(?:19|20)?\d{2})年?)?"
    r"(?:(?:开始|启动|开启)的(?:那轮|那一轮|这轮|那次)|(?:那轮|那一轮|这轮|那次|的))?"
    r"(?:美联储|联储|美国)?的?(?P<kind>加息|降息)(?:周期)?"
)


def name_fed_cycles(text: str) -> str:
    """`text` with a Fed rate cycle written as its episode's name."""

    def english(found: re.Match[str]) -> str:
        kind = (found["kind"] or found["kind2"]).lower()
        year = found["y"] or found["y2"]
        easing = kind.startswith(("cut", "eas", "rate cut", "rate-cut"))
        return f"the {year} {'cutting' if easing else 'hiking'} cycle"

    def chinese(found: re.Match[str]) -> str:
        return f"{found['y']}年{found['kind']}周期"

    return _FED_CYCLE_ZH.sub(chinese, _FED_CYCLE_EN.sub(english, text))


def simplified(text: str) -> str:
    """`text` with traditional characters written simplified (OpenCC's t2s), kept only when every
    offset stays: the names, measures and vocabulary are written in simplified characters."""
    if not is_chinese(text):
        return text
    converted = _t2s().convert(text)
    return converted if len(converted) == len(text) else text


@lru_cache(maxsize=1)
def _t2s() -> Any:
    import opencc

    return opencc.OpenCC("t2s")


# Cantonese written as Hong Kong investors type it, said in Mandarin words of the same length (so
# every offset stays): 跌咗几多 → 跌了多少, 而家离佢仲差几多 → 现在离它还差多少, 边只 → 哪只.
_CANTONESE = {
    "几多": "多少", "而家": "现在", "乜嘢": "什么", "点样": "怎样", "咁多": "这么多",
    "咗": "了", "係": "是", "佢": "它", "仲": "还", "嘅": "的", "唔": "不", "冇": "没", "啲": "些",
    "睇": "看", "揾": "找", "嚟": "来", "噉": "这",
    # a stock's rise (升) said as Mandarin says it (涨), never 上升 or 升值, 升息
    "升咗": "涨了", "升得": "涨得", "升幅": "涨幅", "升超": "涨超", "大升": "大涨", "劲升": "大涨",
    "劲跌": "大跌", "最劲": "最多", "入货": "买入", "捞底": "抄底", "收市价": "收盘价",
    "收市": "收盘", "喺": "在", "嚟㗎": "的呢", "㗎": "呢", "定系": "还是", "嗰": "那", "𠮶": "那",
    # how badly or well a move went: 跌得最伤, 跌得最犀利, 升得最劲 (劲 → 多 above)
    "最伤": "最狠", "最犀利": "最厉害",
    # back (返) to where it was: 收返上嚟, 升返去高位, 返到之前嘅高位
    "收返": "收回", "升返": "涨回", "返到": "回到", "返去": "回去", "返上": "回上",
    "揸住": "持有",
}  # fmt: skip
# 同 joining two moves, days or extremes ("最大升幅同最大跌幅", "嗰日同升得最劲嗰日", "最好同最差")
# is "and", never 同比 or 同期.
_AND_YUE = re.compile(r"(?<=[幅日天价高低好差季月年周])同(?![比期一样时意])")
_CANTONESE_WORD = re.compile("|".join(sorted(map(re.escape, _CANTONESE), key=len, reverse=True)))
_WHICH_YUE = re.compile(r"边(?=[一二三四五六七八九十两几0-9]*[个只日天年月度间次位家季周])")
# 係 (is), which OpenCC writes 系: "是" in Cantonese text, never 体系, 关系, 系统, 系列.
_IS_YUE = re.compile(r"(?<![体关联派直星水谱母父世])系(?![统列数谱])")
# 呢 before a count or a measure word is "these" (呢几只), not the question particle.
_THESE_YUE = re.compile(r"呢(?=[几个只些间])")


# 那 typed for 哪 ("2020年那个月涨得最多？"): "that month" before a superlative that ends the
# question, with no month, day or week said before it for "that" to point at.
_WHICH_TYPED = re.compile(
    r"那(?=(?:一|个)?(?:交易日|天|日|周|星期|个?月|个?季度|季|年|只|支|家)"
    r"(?:(?!多少)[^，。,；;？?几是]){0,10}?最(?:(?!多少)[^，。,；;？?几是]){0,6}(?:[？?]|$))"
)
_POINTED_AT = re.compile(r"\d\s*(?:月|日|号|周)|[一二三四五六七八九十]+月|上周|本周|这周|那")


def _which_typed(text: str) -> str:
    found = _WHICH_TYPED.search(text)
    if found is None or _POINTED_AT.search(text[: found.start()]):
        return text
    return text[: found.start()] + "哪" + text[found.end() :]


# 好多 asking an amount, as Sichuan and Chongqing say 多少 ("涨了好多喃？", "值好多钱嘛？"): only
# where it ends the question, never "涨了好多" (rose a lot) said as a statement.
_HOW_MUCH_SW = re.compile(r"好多(?=(?:钱|个点|点|块|美元|天|年)?[喃嘛哦呢啊哈]?\s*(?:[？?]|$))")


def mandarin(text: str) -> str:
    """`text` in simplified characters (美國銀行 → 美国银行), with Cantonese function words, a
    Sichuan 好多 and Taiwan's 报酬率 said in Mandarin and 那 typed for 哪 read as 哪, each the
    same length."""
    text = simplified(text)
    if "报酬" in text:  # Taiwan's 报酬率 (報酬率) is the mainland's 收益率
        text = text.replace("报酬", "收益")
    if "殖利率" in text:
        # Taiwan's 殖利率 of a bond is its 收益率; of a stock's cash payout (现金殖利率,
        # 股息殖利率, beside 配息/股利) it is the dividend yield, 股息率
        paid = re.search(r"现金殖利率|股息殖利率|配息|股利|除息", text) is not None
        text = text.replace("殖利率", "股息率" if paid else "收益率")
    if "那" in text:
        text = _which_typed(text)
    if "好多" in text:
        text = _HOW_MUCH_SW.sub("多少", text)
    if not _CANTONESE_WORD.search(text) and "边" not in text:
        return text
    text = _CANTONESE_WORD.sub(lambda m: _CANTONESE[m[0]], text)
    text = _AND_YUE.sub("和", _THESE_YUE.sub("这", _IS_YUE.sub("是", text)))
    return _WHICH_YUE.sub("哪", text)


# "more then 5%": "then" typed for "than" between a comparative and a number, where "then" (next,
# at that time) cannot stand; "fell more, then rose" keeps its comma and its "then".
_THEN_FOR_THAN = re.compile(
    r"(?i)\b(more|less|fewer|greater|bigger|larger|smaller|higher|lower|better|worse)\s+"
    r"(then)(?=\s*(?:[-−+]?\s*(?:[$¥€£]|US\$|HK\$)?\s*\d))"
)


def respell_than(text: str) -> str:
    """`text` with "then" read as "than" after a comparative and before a number (the same
    length, so every offset stays where it was)."""
    return _THEN_FOR_THAN.sub(
        lambda m: m[0][: m.start(2) - m.start()] + ("THAN" if m[2].isupper() else "than"), text
    )


def respell_measures(text: str, vocab: Vocab, catalog: Catalog) -> tuple[str, list[Respelling]]:
    """`text` with near-miss measure words replaced by the phrase they stand for, and the
    replacements made (left to right)."""
    phrases, words = _measures(vocab)
    tokens = list(_WORD.finditer(text))
    changes: list[tuple[int, int, Respelling]] = []
    i = 0
    while i < len(tokens):
        step = 1
        for n in range(min(LONGEST_RUN, len(tokens) - i), 0, -1):
            run = tokens[i : i + n]
            if any(text[a.end() : b.start()] != " " for a, b in pairwise(run)):
                continue  # only words one space apart form a phrase
            said = text[run[0].start() : run[-1].end()]
            if said.casefold() in phrases:
                step = n  # written right: nothing to read again
                break
            found = _closest(said, phrases, words, vocab, catalog)
            if found is not None:
                changes.append((run[0].start(), run[-1].end(), found))
                step = n
                break
        i += step
    changes += _sound_alike_measures(text, vocab)
    changes.sort(key=lambda change: change[0])
    for start, end, change in reversed(changes):
        text = text[:start] + change.read + text[end:]
    return text, [c for _, _, c in changes]


_ZH_RUN = re.compile(r"[\u3400-\u9fff]+")
_MIN_ZH_MEASURE = 3  # two-character words are one character from too many others


def _sound_alike_measures(text: str, vocab: Vocab) -> list[tuple[int, int, Respelling]]:
    """Chinese measure words typed with another character of the same sound (收溢率 for 收益率:
    a pinyin input method offers both): a piece of three or more characters that differs from a
    measure phrase in one character and sounds like it (toneless pinyin, the syllables input
    methods confuse made one: 最大回测 for 最大回撤). Pieces that
    overlap a measure phrase as written are left alone (the pinyin tables load only for a
    likely typo)."""
    measures = _zh_measures_of(
        tuple((name, tuple(m.zh)) for name, m in vocab.metrics.metrics.items())
    )
    index, lengths, written = measures.index, measures.lengths, measures.written
    found: list[tuple[int, int, Respelling]] = []
    for run in _ZH_RUN.finditer(text):
        piece, at = run.group(0), run.start()
        exact = [
            (i, i + n)
            for n in written
            for i in range(len(piece) - n + 1)
            if piece[i : i + n] in index
        ]
        position = 0
        while position < len(piece):
            change = _sound_alike_at(piece, position, lengths, index, exact)
            if change is None:
                position += 1
                continue
            said, read, metric = change
            respelt = Respelling(said=said, read=read, metric=metric)
            found.append((at + position, at + position + len(said), respelt))
            position += len(said)
    return found


def _sound_alike_at(
    piece: str,
    position: int,
    lengths: list[int],
    index: dict[str, list[tuple[str, MetricId]]],
    exact: list[tuple[int, int]],
) -> tuple[str, str, MetricId] | None:
    """The measure phrase the characters at `position` nearly spell, longest first, if they
    sound like it and overlap no measure phrase as written."""
    for length in lengths:
        said = piece[position : position + length]
        if len(said) < length:
            continue
        if any(s < position + length and position < e for s, e in exact):
            continue
        near = {
            (phrase, metric)
            for k in range(length)
            for phrase, metric in index.get(said[:k] + "?" + said[k + 1 :], [])
        }
        if not near:
            continue
        from datapilot.brains.offline.homophones import near_sound

        heard = near_sound(said)
        alike = [(phrase, metric) for phrase, metric in near if near_sound(phrase) == heard]
        if len({metric for _, metric in alike}) == 1:
            phrase, metric = min(alike)
            return said, phrase, metric
    return None


@dataclass(frozen=True)
class _ZhMeasures:
    """Chinese measure phrases indexed for sound-alike typos (`_zh_measures_of`)."""

    index: dict[str, list[tuple[str, MetricId]]]
    lengths: list[int]  # the lengths of the wildcard keys, longest first
    written: list[int]  # the lengths of the phrases as written, longest first


@lru_cache(maxsize=4)
def _zh_measures_of(metrics: tuple[tuple[MetricId, tuple[str, ...]], ...]) -> _ZhMeasures:
    """Each Chinese measure phrase of three or more characters under each of its one-character
    wildcards (收益率 under ?益率, 收?率 and 收益?); every phrase as written under itself."""
    phrases = {phrase: name for name, zh in metrics for phrase in zh if _ZH_RUN.fullmatch(phrase)}
    # The phrases as written are keys too (no "?"): a piece that is one is not respelt.
    index: dict[str, list[tuple[str, MetricId]]] = {p: [] for p in phrases}
    for phrase, name in phrases.items():
        if len(phrase) < _MIN_ZH_MEASURE:
            continue
        for k in range(len(phrase)):
            index.setdefault(phrase[:k] + "?" + phrase[k + 1 :], []).append((phrase, name))
    lengths = sorted({len(k) for k in index if "?" in k}, reverse=True)
    written = sorted({len(k) for k in phrases}, reverse=True)
    return _ZhMeasures(index, lengths, written)


def _closest(
    said: str, phrases: dict[str, MetricId], words: frozenset[str], vocab: Vocab, catalog: Catalog
) -> Respelling | None:
    lowered = said.casefold()
    letters = lowered.replace(" ", "")
    if len(letters) < MIN_LETTERS:
        return None
    limit = 1 if len(letters) <= 9 else 2
    found = process.extract(
        lowered, list(phrases), scorer=OSA.distance, score_cutoff=limit, limit=None
    )
    near = [(str(p), int(d)) for p, d, _ in found if p[0] == lowered[0]]  # never the first letter
    if not near:
        return None
    best = min(d for _, d in near)
    closest = {phrases[p] for p, d in near if d == best}
    if len(closest) > 1:
        return None  # two measures as close: no clear reading
    phrase = min((p for p, d in near if d == best), key=len)
    said_words, phrase_words = lowered.split(), phrase.split()
    if len(said_words) == len(phrase_words):
        pairs = [(s, p) for s, p in zip(said_words, phrase_words, strict=True) if s != p]
        if any(OSA.distance(s, p) > (1 if len(p) <= 9 else 2) for s, p in pairs):
            return None  # each word a near miss on its own: "bigger" is not "biggest"
        changed = [s for s, _ in pairs]
    else:
        if letters != phrase.replace(" ", ""):
            return None  # words joined or split ("draw down") and nothing else
        changed = said_words
    if len(said_words) == len(phrase_words) and any(
        w in words or w in vocab.matcher for w in changed
    ):
        return None  # a word the vocabulary knows means itself ("prices", not "price")
    if len(said_words) == 1 and is_common_word(said):
        return None  # an everyday word alone ("sharp") is not a measure
    if any(m.score >= 100 for w in changed for m in catalog.lookup(w, limit=1)):
        return None  # a name of the catalog
    return Respelling(said=said, read=phrase, metric=phrases[phrase])


def _measures(vocab: Vocab) -> tuple[dict[str, MetricId], frozenset[str]]:
    """Every English measure phrase of letters and spaces → its measure, and their words."""
    return _measures_of(tuple((name, tuple(m.en)) for name, m in vocab.metrics.metrics.items()))


@lru_cache(maxsize=4)
def _measures_of(
    metrics: tuple[tuple[MetricId, tuple[str, ...]], ...],
) -> tuple[dict[str, MetricId], frozenset[str]]:
    phrases: dict[str, MetricId] = {}
    for name, en in metrics:
        for phrase in en:
            key = " ".join(phrase.casefold().split())
            if re.fullmatch(r"[a-z]+(?: [a-z]+)*", key):
                phrases.setdefault(key, name)
    words = frozenset(w for p in phrases for w in p.split())
    return phrases, words


def respelling_note(changes: list[Respelling], vocab: Vocab, zh: bool) -> str:
    """What the answer says of the words it read as a measure."""
    if zh:

        def zh_name(change: Respelling) -> str:
            names = vocab.metrics.metrics[change.metric].zh
            return names[0] if names else f"“{change.read}”"

        said = "，".join(f"把“{c.said}”读作{zh_name(c)}" for c in changes)
        return f"{said}。"
    said = "; ".join(f'read "{c.said}" as "{c.read}"' for c in changes)
    return said[0].upper() + said[1:] + "."
