"""What a question names that a passage must name too, read apart from the question's runs of
English words (`coverage`): the words before what a Chinese question asks the amount of (冰箱 and
业务 of 收入 in 冰箱业务收入是多少; 初始 of 保证金 in 要求多少初始保证金), said whole by the passage
or its document, not by jieba's pieces (经营 and 利润 are not 经营利润); and a share class named
by its letter before the noun (C类份额, "C shares") beside a document of share classes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from datapilot.data.text import is_chinese
from datapilot.knowledge.coverage import (
    ZH_ASKED,
    Unit,
    chinese_passage,
    frame_words,
    token_set,
)
from datapilot.knowledge.expansion import alternatives, glossary_others
from datapilot.retrieval import tokenize
from datapilot.retrieval.tokens import cut


def narrowed_zh(
    question: str,
    held: Callable[[Unit], bool],
    informative: Callable[[str], float],
    text: str,
    document: str,
) -> tuple[str, ...]:
    """The words the question names that the passage (`text`, of `document`) lacks: a class
    letter it does not name, the glossary's measure a Chinese question asks the amount of
    (多少保证金), or a word narrowing that measure which neither the passage nor its document
    says whole. Across languages only the glossary's words narrow: the dictionary misses too
    many of the others' translations (期限五年以上 for "longer bonds"); beside a passage writing
    the asked word as the question does, any word. `held` and `informative` as in
    `coverage.narrowed_away`."""
    missing: list[str] = []
    for label in class_labels(question):
        # C类份额, "C shares" beside a document of classes: the passage must name that class.
        if _CLASSES.search(document or text) and not _labelled_class(label, text):
            missing.append(f"{label}类")

    def weight(unit: Unit) -> float:
        return max(map(informative, unit))

    for verb, place in _ZH_DESTINATION.findall(question):
        # 出口到欧洲: the passage must say the place where it says the trade, not in another
        # clause (欧洲…反补贴调查 beside 出口量为150万辆 is not exports to Europe).
        clauses = [c for c in _ZH_CLAUSE.split(text) if verb in c]
        if chinese_passage(text) and not any(place in c for c in clauses):
            missing.append(f"{verb}到{place}")

    measures = {t for a in alternatives(question) if not a.words for t in a.asked}
    narrowed = zh_narrowed(question)
    # (a glossary word of two words, 核心 + 通胀; not one cut into its pieces, 卖出 of 卖出去)
    compound = (
        narrowed is not None
        and bool(glossary_others(narrowed[0]))
        and len(narrowed[1]) > 1
        and not any(a != b and a in b for a in narrowed[1] for b in narrowed[1])
    )
    if narrowed is not None and not held(narrowed[1]) and set(narrowed[1]) & measures:
        missing.append(narrowed[0])  # the glossary's measure asked the amount of (多少保证金)
    elif (
        narrowed is not None
        and compound
        and not said(narrowed[0], text, question)
        and not said(narrowed[0], document, question)
    ):
        # A glossary compound asked whole (核心通胀: "core inflation") beside a passage saying
        # only its head (通胀, "inflation"): another measure.
        missing.append(narrowed[0])
    elif narrowed is not None and held(narrowed[1]):
        same = narrowed[0] in text
        asked_weight = weight(narrowed[1])
        missing += [
            word
            for word, u in narrowed[2]
            if (same or set(u) & measures)
            and not said(word, text, question)
            and not said(word, document, question)
            and weight(u) >= asked_weight
        ]
    return tuple(missing)


def said(word: str, text: str, question: str = "") -> bool:
    """Whether `text` says `word` whole: as written, or one of the glossary's words for it or
    for a phrase of the question holding it (营业利润 or "operating profit" for 经营利润;
    "minimum investment" for 投资 of 最低投资金额), not merely its pieces (经营 and 利润)."""
    tokens = token_set(text)
    for phrase in (word, *glossary_others(word)):
        if is_chinese(phrase):
            if phrase in text:
                return True
        elif set(tokenize(phrase)) <= tokens and tokenize(phrase):
            return True
    pieces = set(tokenize(word))
    return any(
        not is_chinese("".join(phrase)) and set(phrase) <= tokens
        for a in alternatives(question)
        if not a.words and pieces <= a.asked
        for phrase in a.phrases
    )


# A class named by its letter before the noun: C类份额, "C shares", "the C share class" (not a
# question's first word: "A share class …" may be the article). "I" is the reader unless an
# article or a possessive comes before it ("the fund's I share class").
_CLASS_LABEL = re.compile(
    r"(?<![A-Za-z'’])([A-HJ-Z])\s*类|(?<=\s)([A-HJ-Z])[\s-]+(?:shares?|units?)\b"
    r"|(?:(?<=['’]s )|(?<=\bthe )|(?<=\bits )|(?<=\btheir ))(I)[\s-]+(?:shares?|units?)\b"
)


def class_labels(question: str) -> list[str]:
    """The class letters a question names before the noun (C类, "C shares")."""
    return [a or b or c for a, b, c in _CLASS_LABEL.findall(question)]


# Trade with a place (出口到欧洲, 销往美国): where the goods go narrows the trade asked of.
_ZH_DESTINATION = re.compile(
    r"(出口|进口|销售|出售|卖|投资|发货)(?:到|往|至)([\u4e00-\u9fff]{2,3}?)"
    r"(?=的|去|市场|多少|几|有|是|数量|[，。？?！!,]|$)"
)
_ZH_CLAUSE = re.compile(r"[，。；：！？,;:!?\n]")

_BRACKETED = re.compile(r"[（(][^（）()]{1,30}[）)]")
_CLASSES = re.compile(r"(?i)\bclass\b|类份额|类股")


def _labelled_class(label: str, text: str) -> bool:
    """Whether `text` names the class `label` (A类, "Share class: A", "the A share class")."""
    pattern = (
        rf"(?<![A-Za-z]){label}\s*类|(?i:class|share)\W{{0,3}}{label}(?![A-Za-z])"
        rf"|(?<![A-Za-z]){label}\W{{0,3}}(?i:share|class)"
    )
    return re.search(pattern, text) is not None


# What a Chinese question asks the amount of: the word before 多少 or 几 (出口多少辆, 增长多少).
# Latin letters belong to the phrase (GDP增长多少).
_ZH_AMOUNT = re.compile(r"([\u3400-\u9fffA-Za-z]+?)(?:是多少|为多少|有多少|多少|是几|几)")
# A share asked of a whole (新兴市场债券占多少比例, 占比多少): the proportion of what comes before.
_ZH_SHARE_OF = re.compile(
    # (占组合多少百分比: the whole it is a share of may be said between)
    r"([\u3400-\u9fffA-Za-z]+?)(?:一共|总共|大概|大约)?占(?:了)?(?:[\u4e00-\u9fff]{1,4}?的?)?"
    r"(?:多少|多大|几成|百分之几)的?(比例|比重|份额|百分比)?"
)
# A noun after 多少 or 几 is what is counted (要求多少初始保证金); a one-character measure word
# (多少辆, 几天) is not.
_ZH_HOW_MANY = re.compile(
    r"(?:多少|几)(?:个|家|位|名|项|种|只)?(?![天年月日周次倍辆人元亿万成点分])"
    r"([\u3400-\u9fff]+?)(?:呢|吗|的|[？?。，,]|$)"
)
# Words ending the phrase before the asked word: prepositions and conjunctions (对欧洲出口:
# 欧洲 is where, not which exports).
_ZH_PHRASE_END = frozenset("在对比从把被向给与和及跟于将会要能")
_ZH_NARROWING = 3  # words before the asked word read as narrowing it


# A word ending so names a time (明年, 近三年, 一季度, 同期): periods are read apart (years,
# the glossary's quarters and halves).
_ZH_TIME = re.compile(r"(?:年|月|日|季度|周|天|期)$")


@lru_cache(maxsize=1024)
def zh_narrowed(question: str) -> tuple[str, Unit, tuple[tuple[str, Unit], ...]] | None:
    """The word a Chinese question asks the amount or name of (as written and as its tokens)
    and the words right before it in its phrase, which narrow it: 冰箱 and 业务 of 收入 in
    冰箱业务收入是多少, 净利润 of 增长 in 净利润同比增长多少. A passage holding the asked word
    but not a narrowing word (空调业务收入, 营业收入同比增长) speaks of another business,
    another metric. Words framing the question (大概, 好像) and times (明年) do not narrow."""
    # A gloss in brackets (核心通胀（剔除能源同食品）是多少) restates the word before it.
    question = _BRACKETED.sub("", question)
    after = _ZH_HOW_MANY.search(question)
    found = ZH_ASKED.search(question) or _ZH_AMOUNT.search(question)
    share = _ZH_SHARE_OF.search(question)
    if share is not None:
        phrase = share.group(1) + (share.group(2) or "比例")
    elif after is not None and len(after.group(1)) >= 2:
        phrase = after.group(1)  # 多少初始保证金: the amount of 保证金, narrowed by 初始
    elif found is not None:
        phrase = found.group(1)
    else:
        return None
    words = _glossary_joined([w for w in cut(phrase) if w != "的"], question)
    units = [tuple(tokenize(w)) for w in words]
    if len(units) < 2 or not units[-1]:
        return None
    frame = frame_words(question)
    before: list[tuple[str, Unit]] = []
    for word, unit in zip(reversed(words[:-1]), reversed(units[:-1]), strict=True):
        if word in _ZH_PHRASE_END or len(before) == _ZH_NARROWING:
            break
        if unit and not set(unit) & frame and not _ZH_TIME.search(word):
            before.append((word, unit))
    return words[-1], units[-1], tuple(before)


def _glossary_joined(words: list[str], question: str) -> list[str]:
    """`words` with neighbours joined where together they are a glossary word jieba cuts
    apart (经营 + 利润 → 经营利润)."""
    glossary = [a.asked for a in alternatives(question) if not a.words and len(a.asked) > 1]
    joined: list[str] = []
    for word in words:
        # A word of no tokens (那边, 最后: stopwords) joins nothing, though the set is unchanged.
        if joined and tokenize(word) and set(tokenize(joined[-1] + word)) in glossary:
            joined[-1] += word
        else:
            joined.append(word)
    return joined
