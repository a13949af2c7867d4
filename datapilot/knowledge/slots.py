"""What a question pins down besides its words, which a passage must say too to answer it:
the months it names (July is not August), the quarters it numbers (Q2 is not Q3), the counts
of years or months it names ("over five years" is not "over three years", 近五年), and a
reason when it asks why ("Why did two members prefer a cut?" is not answered by "Two members
dissented, preferring a cut"), the tier it numbers (tier 2 capital is not tier 1) and a
place it asks a figure from where the passage gives that figure ("revenue from the Middle East"
is not 海外收入占比为22%，主要来自东南亚和中东市场: the place is named apart from the figure).
"""

from __future__ import annotations

import re

from datapilot.brains.offline.numbers import zh_number
from datapilot.knowledge.coverage import (
    MONTHS,
    asks_date,
    checked,
    chinese_passage,
    dated,
    token_set,
)
from datapilot.knowledge.expansion import WORDS, alternatives
from datapilot.retrieval import tokenize

_MONTH_OF = {m: n for n, m in enumerate(MONTHS.split(), 1)}
# A month a question names: capitalised and not its first word, so "may" the modal is not May.
_ASKED_MONTH = re.compile(rf"(?<!^)\b({'|'.join(m.title() for m in MONTHS.split())})\b")
_WRITTEN_MONTH = re.compile(
    rf"(?i)\b({'|'.join(MONTHS.split())}|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b"
)
# 9月, 十二月 (not 3个月, a count of months).
_ZH_MONTH = re.compile(r"(?<![\d个])(\d{1,2}|[一二三四五六七八九十]{1,3})月(?!份额)")
# A count of years or months ("five years", "three-year", 近五年, 12个月): the period a figure
# covers. A four-digit number before 年 is a year, a number before a bare 月 a month.
_NUMBER_WORDS = "|".join(sorted(WORDS, key=len, reverse=True))
_EN_COUNT = re.compile(rf"(?i)(?<![\w.-])(\d+(?:\.\d+)?|{_NUMBER_WORDS})[\s-]+(year|month)s?\b")
_ZH_COUNT = re.compile(
    r"(?<![\d.哪几每今去明前后当])(\d{1,2}|[一两二三四五六七八九十]{1,3})(年|个月)"
)

# A numbered quarter: "Q3", "third quarter", 第三季度, 三季报 (not 前三季度, the first three; not
# 这一季, this quarter).
_EN_QUARTER = re.compile(
    r"(?i)\bq([1-4])\b|\b(first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+quarter\b"
)
_ZH_QUARTER = re.compile(r"(?<![前后上下这该本每同近])第?([一二三四1-4])季(?=度|报|末)")
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}


def quarters(text: str) -> set[int]:
    """The quarters of a year `text` numbers (Q2, "the third quarter", 第四季度)."""
    found = {
        int(digit) if digit else _ORDINALS[word.lower()]
        for digit, word in _EN_QUARTER.findall(text)
    }
    return found | {
        int(q) if q.isdigit() else "一二三四".index(q) + 1 for q in _ZH_QUARTER.findall(text)
    }


_YEAR_END = re.compile(r"(?i)\b(?:the\s+)?end\s+of\s+the\s+year\b|\byear[-\s]end\b|年底|年末")


# A figure summed over several quarters (前三季度, "the first nine months", "year to date").
_CUMULATIVE = re.compile(
    r"(?i)前[两二三四]个?季度|\bfirst\s+(?:two|three|2|3)\s+quarters\b|\bnine\s+months\b"
    r"|\byear[-\s]to[-\s]date\b|年初至今|上半年|前半年|\bfirst\s+half\b"
)


def quarter_apart(question: str, body: str) -> bool:
    """Whether a passage's `body` (its document's name aside) gives the quarter the question
    numbers as a figure of its own: False when it only sums it with others (R&D "in the third
    quarter alone" beside 前三季度研发费用合计15.7亿元)."""
    asked = quarters(question)
    if not asked or not _CUMULATIVE.search(body):
        return True
    return asked <= quarters(_CUMULATIVE.sub(" ", body))


def _month_number(word: str) -> int | None:
    word = word.lower()
    if word in _MONTH_OF:
        return _MONTH_OF[word]
    for name, number in _MONTH_OF.items():
        if len(word) >= 3 and name.startswith(word):
            return number
    return int(word) if word.isdigit() else zh_number(word)


def months(text: str, *, asked: bool = False) -> set[int]:
    """The months `text` names (1–12): English names (`asked`: only capitalised, full names,
    as a question writes them) and 9月, 十二月."""
    english = _ASKED_MONTH if asked else _WRITTEN_MONTH
    found = [m.group(1) for m in english.finditer(text)] + [
        m.group(1) for m in _ZH_MONTH.finditer(text)
    ]
    said = {n for n in map(_month_number, found) if n is not None}
    # "by the end of the year", 年底 in a passage: December ("by December" asks it)
    return said | ({12} if not asked and _YEAR_END.search(text) else set())


def month_tokens(question: str) -> set[str]:
    """The tokens of the months the question names ("8月份" → 8, 月份; "August" → august): a
    passage naming those months holds them, in whatever language it names them."""
    found = [m.group(0) for m in _ASKED_MONTH.finditer(question)]
    found += [m.group(0) + "份" for m in _ZH_MONTH.finditer(question)]
    return {t for said in found for t in tokenize(said)}


def counts(text: str) -> set[tuple[float, str]]:
    """The counts of years and months `text` writes, as (number, "year" or "month")."""
    found: set[tuple[float, str]] = set()
    for match in _EN_COUNT.finditer(text):
        number = match.group(1).lower()
        value = float(number) if number[0].isdigit() else WORDS.get(number)
        if value is not None:
            found.add((float(value), match.group(2).lower()))
    # (过去五年 is five years: 去 there is not 去年's)
    for match in _ZH_COUNT.finditer(text.replace("过去", "过往")):
        number = match.group(1)
        value = int(number) if number.isdigit() else zh_number(number.replace("两", "二"))
        if value is not None:
            found.add((float(value), "year" if match.group(2) == "年" else "month"))
    return found


# A range of months: 7到9月, 7-9月, 七至九月 ("the months July to September").
_ZH_MONTHS = r"(\d{1,2}|[一二三四五六七八九十]{1,3})"
_ZH_MONTH_RANGE = re.compile(rf"{_ZH_MONTHS}月?(?:到|至|-|~|～|—)\s*{_ZH_MONTHS}月")


def quarter_ranges(question: str) -> dict[int, set[int]]:
    """The calendar quarters the question names as a range of their months (7到9月 is the
    third quarter), each with those months."""
    found: dict[int, set[int]] = {}
    for match in _ZH_MONTH_RANGE.finditer(question):
        first, last = (_month_number(m) for m in match.groups())
        if first is not None and last is not None and last - first == 2 and first % 3 == 1:
            found[(first + 2) // 3] = set(range(first, last + 1))
    return found


def periods_held(question: str, text: str) -> bool:
    """Whether `text` names every month the question names (July is not August), every quarter
    it numbers (Q2 is not Q3) and every count of years or months it names ("over five years"
    is not "over three years"; 近五年), those it checks aside (a guess, the number of a question
    asking whether). A count is also held where the passage holds the glossary's words for it
    ("first half" for "the first six months")."""
    ranged = quarter_ranges(question)
    said_months, said_quarters = months(text), quarters(text)
    spanned = {m for months_of in ranged.values() for m in months_of}
    if not months(question, asked=True) - spanned <= said_months:
        return False
    if not quarters(question) <= said_quarters:
        return False
    # 7到9月: the third quarter, said as the quarter or as its months
    if any(q not in said_quarters and not m <= said_months for q, m in ranged.items()):
        return False
    guessed = checked(question)
    written = counts(text)
    # A count said in the other unit is the same length: 不满12个月 is the passage's 一年以内.
    lengths = {_in_months(value, unit) for value, unit in written}
    tokens = token_set(text)
    glossary = {
        t for a in alternatives(question) if not a.words and a.held_in(tokens) for t in a.asked
    }
    for value, unit in counts(question):
        said = {_plain_number(value), *number_words(value)}
        if _in_months(value, unit) in lengths or said & guessed:
            continue
        if not (said & glossary and _UNIT_WORDS[unit] & glossary):
            return False
    return True


# A count's unit as either language's token writes it ("month" of "12 months", 月 of 12个月).
_UNIT_WORDS = {"year": frozenset({"year", "年"}), "month": frozenset({"month", "月"})}


def _in_months(value: float, unit: str) -> float:
    return value * 12 if unit == "year" else value


def _plain_number(value: float) -> str:
    return f"{value:.10g}"


def number_words(value: float) -> set[str]:
    """The tokens of the English words for a whole number under twenty ("five")."""
    return {t for w, n in WORDS.items() if n == value for t in tokenize(w)}


# A question asking why ("why did …", "what caused …", 为什么, 原因): the passage must give a
# reason, by a word for one ("because", "helped by", "due to").
_ASKS_REASON = re.compile(
    r"(?i)\bwhy\b|\bwhat (?:reasons?|caused|causes|drove|drives|explains?)\b|\breasons?\b"
    r"|为什么|为何|原因|什么导致"
)
_REASON = re.compile(
    r"(?i)\b(?:because|due to|owing to|on account of|as a result|(?:a|the) result of|reflect\w*"
    r"|(?:driven|helped|boosted|hit|hurt|led|caused|weighed down|held back|supported) by"
    r"|thanks to|on the back of|amid|attributed to|weigh(?:s|ed)? on|drag(?:ged)? on|in order to"
    r"|so as to|the reason)\b"
    # "as" starting a clause ("fell 3% as clients moved to money funds"), not "such as", "as
    # of", "as well", "as a whole", "as much as".
    r"|(?<!such )\bas (?!(?:of|at|per|part|well|much|many|long|far|soon|a|an|to|if|though|"
    r"follows|such|expected|planned|projected|usual|before)\b)(?:\w+ ){0,3}(?:\w+ed|\w+s|"
    r"rose|fell|grew|was|were|had|did|moved|remained)\b"
)


def reason_given(question: str, text: str) -> bool:
    """Whether `text` gives the reason the question asks for, if it asks why ("Why did two
    members prefer a cut?" is not answered by "Two members dissented, preferring a cut"). An
    English passage must say it by a word for a reason; a Chinese one often puts a cause beside
    its effect without one (欧洲发起反补贴调查，出口增速或将放缓), so it is not read so."""
    if not _ASKS_REASON.search(question) or chinese_passage(text):
        return True
    return _REASON.search(text) is not None


# A question asking for a day (哪一天, "on what day"): only a passage writing a date answers it.
_ASKS_DAY = re.compile(r"哪一天|哪天|哪一日|何日|几号|(?i:\b(?:what|which) day\b|\bon what date\b)")


def day_given(question: str, text: str) -> bool:
    """Whether `text` writes a date, if the question asks for a date or a day ("the record
    date", 股权登记日是哪一天): a passage on the same dividend without its date does not answer."""
    asks = asks_date(question) or _ASKS_DAY.search(question) is not None
    return not asks or dated(text)


# A numbered tier or level of a thing: "tier 2 capital", "Tier-1", 二级资本, 一级市场 (not the
# end of a range of grades, 评级1到3级).
_TIER = re.compile(
    r"(?i)\btier[\s-]*(\d|one|two|three)\b|(?<![\d到至~～\-])([一二三123])级(?=[\u4e00-\u9fff])"
)


def tiers(text: str) -> set[int]:
    """The tiers `text` numbers (tier 1, 二级 → {1, 2})."""
    said = (m.group(1) or m.group(2) for m in _TIER.finditer(text))
    return {int(n) if n.isdigit() else WORDS.get(n.lower()) or zh_number(n) or 0 for n in said}


def tier_given(question: str, text: str) -> bool:
    """Whether `text` writes each tier the question numbers: a passage on tier 1 capital, or on
    none, does not answer a question on tier 2 (总资本（含二级资本）)."""
    return tiers(question) <= tiers(text)


# A place a figure is asked from: "revenue came from the Middle East", "sales from Europe",
# 来自中东的收入, 来源于欧洲.
_SOURCE_EN = re.compile(
    r"\b(?:came|come|comes|coming|derived|generated|earned|sourced|revenues?|sales|income|"
    r"make|makes|made|earn|earns|get|gets|got)"
    r"\s+from\s+(?:the\s+)?((?:[A-Z][\w'-]*)(?:\s+[A-Z][\w'-]*)*)"
)
# A place a business or its sales are named by: "Lanhai's Middle East business", "European
# sales" (not a possessor: "Lanhai Technology's …" is the company).
_PLACE_OF = re.compile(
    r"(?<![\w'])((?:[A-Z][a-z]+\s+)?[A-Z][a-z]+)\s+"
    r"(?:business|operations|segment|market|sales|revenues?)\b"
)
_SOURCE_ZH = re.compile(
    r"(?:来自|来源于|来源自)([\u4e00-\u9fff]{2,4}?)(?=的|市场|地区|区域|[，。？?！!,]|$)"
)
_FIGURE = re.compile(r"\d")
_CLAUSE = re.compile(r"[，。；：！？,;:!?\n]|\.(?=\s|$)")


def source_given(question: str, text: str) -> bool:
    """Whether `text` names each place the question asks a figure from in a clause with a
    figure: a place listed apart ("mainly from Southeast Asia and the Middle East" after the
    overseas share) has no figure of its own there, and a passage not naming it none at all."""
    places = [m.group(1) for m in _SOURCE_EN.finditer(question)]
    places += [m.group(1) for m in _PLACE_OF.finditer(question) if m.start() > 0]
    places += [m.group(1) for m in _SOURCE_ZH.finditer(question)]
    if not places:
        return True
    others = alternatives(question)
    clauses = [(token_set(c), bool(_FIGURE.search(c))) for c in _CLAUSE.split(text) if c.strip()]
    for place in places:
        said = set(tokenize(place))
        words = said | {t for a in others if said and a.asked <= said for t in a.instead}
        if not any(figure for tokens, figure in clauses if tokens & words):
            return False
    return True
