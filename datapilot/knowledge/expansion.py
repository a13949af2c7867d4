"""A question to a library, read in the documents' words too: the other words of each glossary
group it uses (`glossary.toml`, the Chinese column words of `table_words.toml`), in English and
Chinese; the general dictionary's words in the other language for its other words
(`dictionary.py`: 委员会 → "committee"); and its numbers in words as digits ("two percent" → 2%,
百分之四十 → 40%, "half a million" → 500,000).

Each match is an `Alternative`: the question's tokens it stands for and the words a passage may
hold instead. Search scores a passage by the better of the question's own words and the best
alternative word it holds (`scoring`); the "does anything answer it" check counts a question's
token as held when a passage holds it or one of its alternatives.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Set
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from datapilot.brains.offline.numbers import read_number, zh_number
from datapilot.data.text import CJK, is_chinese
from datapilot.interfaces.table_words import column_words
from datapilot.knowledge.dictionary import chinese_of, english_of
from datapilot.retrieval import tokenize

_FILE = Path(__file__).with_name("glossary.toml")
_LATIN_WORD = re.compile(r"[a-z][a-z'\-]{2,}")

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
_ONES += " fifteen sixteen seventeen eighteen nineteen"
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
WORDS = {w: n for n, w in enumerate(_ONES.split())} | {
    w: 10 * n for n, w in enumerate(_TENS.split(), 2)
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_WORD = "(?:" + "|".join(sorted(WORDS, key=len, reverse=True)) + ")"
# "six hundred and fifty-eight": hundreds said before the tens and ones.
_HUNDREDS = rf"{_WORD} hundred(?:(?: and)? {_WORD}(?:[- ]{_WORD})?)?"
_EN_NUMBER = re.compile(
    rf"(?<![a-z0-9])(?P<half>half )?(?P<value>\d+(?:\.\d+)?|{_HUNDREDS}|{_WORD}(?:[- ]{_WORD})?"
    rf"(?: point (?P<point>{_WORD}))?|an?)?"
    rf"(?: (?P<scale>{'|'.join(_SCALES)}))?"
    r"(?: (?P<percent>percent|per cent|percentage points?))?(?![a-z0-9])"
)
_ZH_PERCENT = re.compile(r"百分之(?P<value>[零〇一二两三四五六七八九十百点.\d]+)")
# A count said in Chinese numerals before what it counts (十股, 三个月, 两年; not the ordinal
# 第三季度): a passage writes it in digits (每10股, 3个月) or, in English, in words ("three
# months").
_ZH_COUNT = re.compile(
    r"(?<![第零〇一二两三四五六七八九十百千\d])(?P<value>[一二两三四五六七八九十百千]+)"
    r"(?P<unit>个月|个季度|季度|股|年|周|天|倍|家|次|位|名|人)"
)
_EN_UNITS = {"个月": "months", "个季度": "quarters", "季度": "quarters", "年": "years"}
_EN_UNITS |= {"周": "weeks", "天": "days", "倍": "times"}
# A number of ten thousands or hundreds of millions in Chinese numerals (一百五十万辆): a passage
# writes its digits (150万辆).
_ZH_SCALED = re.compile(
    r"(?<![零〇一二两三四五六七八九十百千\d])(?P<value>[一二两三四五六七八九十百千]+)(?P<scale>万|亿)"
)
# An amount of yuan said as people say it (两块五 is 2.5元, 三块 is 3元, 八毛 is 0.8元).
_ZH_YUAN = re.compile(
    r"(?<![零〇一二两三四五六七八九十百千\d])(?P<whole>[一二两三四五六七八九十百千]+)块"
    r"(?:钱)?(?P<tenths>[一二三四五六七八九])?(?![一二三四五六七八九十百千万亿])"
)


@dataclass(frozen=True)
class Alternative:
    """Tokens of the question (`asked`) a passage may hold in other words (`instead`)."""

    asked: frozenset[str]
    instead: frozenset[str]
    # From the general dictionary: the words it gives, each as tokens; a passage holds the
    # question's word only when it holds one of them whole ("annual report" for 年报, not
    # "report" alone).
    words: tuple[frozenset[str], ...] = ()
    # Each other word or phrase as its tokens, for ranking: a passage is scored by the best one
    # it holds, not by every token of them all.
    phrases: tuple[tuple[str, ...], ...] = ()

    def held_in(self, tokens: Set[str]) -> bool:
        """Whether a passage with these tokens says what `asked` says, in other words."""
        if self.words:
            return any(word <= tokens for word in self.words)
        if self.phrases:
            # Every word of a phrase: "gross domestic product" does not say 毛利率 ("gross
            # margin"); a Chinese phrase by its whole word, whatever its pieces.
            return any(set(p) <= tokens or max(p, key=len) in tokens for p in self.phrases)
        return bool(self.instead & tokens)


@cache
def _phrases() -> dict[str, frozenset[str]]:
    """Each glossary phrase → the other phrases of its groups."""
    content = tomllib.loads(_FILE.read_text(encoding="utf-8"))
    groups: list[list[str]] = [[str(w).lower() for w in g] for g in content["groups"]]
    groups += [[zh, en] for zh, en in column_words().items()]
    others: dict[str, set[str]] = {}
    for group in groups:
        for phrase in group:
            others.setdefault(phrase, set()).update(p for p in group if p != phrase)
    return {phrase: frozenset(rest) for phrase, rest in others.items()}


def glossary_others(phrase: str) -> frozenset[str]:
    """The other words of the glossary groups of `phrase` as written (经营利润 → "operating
    profit", 营业利润, …; empty when the glossary lacks it)."""
    return _phrases().get(phrase.lower(), frozenset())


@cache
def _chinese() -> re.Pattern[str]:
    """The Chinese phrases, longest first, matched as written."""
    chinese = sorted((p for p in _phrases() if is_chinese(p)), key=len, reverse=True)
    return re.compile("|".join(re.escape(p) for p in chinese))


@cache
def _english() -> dict[tuple[str, ...], str]:
    """The English phrases by their retrieval tokens (stemmed, stopwords dropped), so "rising"
    finds "rise" and "exposed" finds "exposure"'s group when it lists "exposed"."""
    english = {tuple(tokenize(p)): p for p in _phrases() if not is_chinese(p)}
    return {tokens: phrase for tokens, phrase in english.items() if tokens}


def _instead(phrase: str) -> frozenset[str]:
    return frozenset(t for p in _phrases()[phrase] for t in tokenize(p))


def _glossary(phrase: str, asked: frozenset[str]) -> Alternative:
    """A glossary match: the other words of its groups (those the question does not say)."""
    others = {tuple(tokenize(p)) for p in _phrases()[phrase]}
    kept = tuple(sorted(o for o in others if o and not set(o) <= asked))
    return Alternative(asked, _instead(phrase) - asked, phrases=kept)


@lru_cache(maxsize=1024)
def alternatives(question: str) -> tuple[Alternative, ...]:
    """The question's glossary words and numbers in words, with what a passage may say
    instead."""
    text = question.lower()
    found: list[Alternative] = []
    for match in _chinese().finditer(text):
        asked = frozenset(tokenize(match.group(0)))
        if asked and _instead(match.group(0)) - asked:
            found.append(_glossary(match.group(0), asked))
    tokens = [t for t in tokenize(CJK.sub(" ", text))]
    longest = max(map(len, _english()))
    at = 0
    while at < len(tokens):
        for size in range(min(longest, len(tokens) - at), 0, -1):
            phrase = _english().get(tuple(tokens[at : at + size]))
            if phrase is not None:
                asked = frozenset(tokens[at : at + size])
                if _instead(phrase) - asked:
                    found.append(_glossary(phrase, asked))
                at += size
                break
        else:
            at += 1
    found += _dictionary(text, frozenset(t for a in found for t in a.asked))
    for words, digits in numbers_in_words(text):
        asked = frozenset(tokenize(words))
        instead = frozenset(tokenize(digits)) - asked
        if instead:
            phrases = (tuple(tokenize(digits)),)
            found.append(Alternative(asked or instead, instead, phrases=phrases))
    return tuple(found)


def _dictionary(text: str, covered: frozenset[str]) -> list[Alternative]:
    """The question's other words in the other language, from the general dictionary: each
    Chinese word's English, each English word's Chinese (words the glossary matched aside)."""
    found: list[Alternative] = []
    for word in dict.fromkeys(_jieba_words(text)):
        asked = frozenset(tokenize(word)) - covered
        senses = [frozenset(tokenize(s)) - asked for s in english_of(word).split("; ")]
        _add(found, asked, [s for s in senses if s])
    english = {w: frozenset(tokenize(w)) - covered for w in _LATIN_WORD.findall(text)}
    english = {word: asked for word, asked in english.items() if asked}
    for word, chinese in chinese_of(tuple(english)).items():
        _add(found, english[word], [frozenset(tokenize(w)) - english[word] for w in chinese])
    return found


def _add(found: list[Alternative], asked: frozenset[str], words: list[frozenset[str]]) -> None:
    words = [w for w in words if w]
    if asked and words:
        phrases = tuple(tuple(sorted(w)) for w in words)
        found.append(Alternative(asked, frozenset().union(*words), tuple(words), phrases))


def _jieba_words(text: str) -> list[str]:
    """The question's Chinese words of two characters or more, as retrieval cuts them."""
    return [t for t in tokenize(text) if len(t) >= 2 and is_chinese(t)]


def numbers_in_words(text: str) -> list[tuple[str, str]]:
    """(as written, in digits) for the numbers of `text` that a document would write otherwise:
    "two percent" → 2%, "half a million" → 500,000, "3 per cent" → 3%, 百分之四十 → 40%,
    十股 → 10股, 三个月 → 3个月 and "three months", 一百五十万 → 150万, 两块五 → 2.5元."""
    found: list[tuple[str, str]] = []
    for match in _EN_NUMBER.finditer(text.lower()):
        value, scale, percent = match.group("value"), match.group("scale"), match.group("percent")
        if not value and not match.group("half"):
            continue
        if value in (None, "a", "an"):
            number = 1.0
        else:
            read = _spoken(value)
            if read is None:
                continue
            number = read
        if match.group("point"):
            number += WORDS[match.group("point")] / 10
        number *= _SCALES.get(scale or "", 1) * (0.5 if match.group("half") else 1)
        spelt = not re.fullmatch(r"[\d.]+", value or "")
        if percent and percent.startswith("percentage"):
            digits = f"{_plain(number)} percentage points"
        elif percent:
            digits = f"{_plain(number)}%"
        elif spelt and scale and number >= _SCALES[scale]:
            # A document writes "658 billion" as often as 658,000,000,000.
            found.append((match.group(0), f"{_plain(number / _SCALES[scale])} {scale}"))
            digits = f"{number:,.0f}"
        elif spelt and number >= 1_000:
            digits = f"{number:,.0f}"
        elif spelt and (scale or number >= 10):
            digits = _plain(number)
        else:
            continue  # "one", "a", 2019: a count or a year, nothing to rewrite
        found.append((match.group(0), digits))
    for match in _ZH_PERCENT.finditer(text):
        raw = match.group("value")
        whole, _, fraction = raw.replace("点", ".").partition(".")
        read = int(whole) if whole.isdigit() else zh_number(whole)
        if read is None:
            continue
        tail = "".join(c if c.isdigit() else str(zh_number(c)) for c in fraction)
        found.append((match.group(0), f"{_plain(float(f'{read}.{tail or 0}'))}%"))
    for match in _ZH_COUNT.finditer(text):
        count = zh_number(match.group("value"))
        if count is None:
            continue
        found.append((match.group(0), f"{count}{match.group('unit')}"))
        english = _EN_UNITS.get(match.group("unit"))
        in_words = next((w for w, n in WORDS.items() if n == count), None)
        if english and in_words:
            found.append((match.group(0), f"{in_words} {english}"))
    for match in _ZH_SCALED.finditer(text):
        scaled = zh_number(match.group("value"))
        if scaled is not None:
            found.append((match.group(0), f"{scaled}{match.group('scale')}"))
    for match in _ZH_YUAN.finditer(text):
        whole = zh_number(match.group("whole"))
        tenths = zh_number(match.group("tenths") or "零")
        if whole is not None and tenths is not None:
            found.append((match.group(0), f"{_plain(whole + tenths / 10)}元"))
    return found


def _spoken(value: str) -> float | None:
    """A number said in words or digits, hundreds included ("six hundred and fifty-eight")."""
    hundreds, said, rest = value.partition(" hundred")
    if not said:
        return read_number(value, WORDS)
    rest = rest.removeprefix(" and").strip()
    below = read_number(rest, WORDS) if rest else 0.0
    return None if below is None else WORDS[hundreds] * 100 + below


def _plain(number: float) -> str:
    """12.0 → "12", 2.5 → "2.5"."""
    return f"{number:.10g}"
