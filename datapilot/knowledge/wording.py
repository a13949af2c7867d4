"""A question as a library reads it: misspelt English words read as the word meant
("statment" → "statement", "unemplyment" → "unemployment"), and Chinese sentence-final
particles that only mark a guess or a tag question dropped (来着, 对吧: jieba cuts 10亿来着 into
10 and 亿来, a word no passage holds).

A word is taken as misspelt when neither the library's passages nor everyday English
(`common_words`, Zipf frequency 4 and above) nor the general dictionary (`dictionary`) has it,
it is rarely written (`_RARE_ZIPF`),
and one word is within one edit of it (two for a word of eight letters or more; a swap of two
letters is one edit): the library's own words first, then everyday English. Short words (under
five letters, six for everyday English) are left alone: "gilts" is one edit from "gifts".
"""

from __future__ import annotations

import re
from functools import cache

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from datapilot.brains.offline.spelling import expand_period_shorthand, mandarin
from datapilot.data.common_words import common_words
from datapilot.data.text import is_chinese
from datapilot.knowledge.dictionary import chinese_of
from datapilot.retrieval import tokenize

_WORD = re.compile(r"(?<![A-Za-z'\-])[A-Za-z]{5,}(?![A-Za-z'\-])")
# A word written this often (wordfreq's Zipf frequency) is a word, not a slip ("Sharpe" 3.3 is
# not "share"); the usual misspellings are rarer ("statment" 1.7, "recieve" 2.8).
_RARE_ZIPF = 3.0
_PARTICLES = re.compile(r"(?:来着|对吧|是吧|对不对|是不是这样)(?=\s*[？?。！!]?\s*$)")
# "A not A" asks whether (含不含税 is 是否含税): read as the word a passage writes (含税). The
# verbs that frame a question this way (是不是, 有没有, 会不会, 能不能) are read as framing.
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])[不没]\1(?=[\u4e00-\u9fff])")
_FRAMING = frozenset("是有会能要可")
# Colloquial question words said as the written language says them (啥原因 is 什么原因).
_COLLOQUIAL = re.compile(r"啥|咋")
_WRITTEN = {"啥": "什么", "咋": "怎么"}
# Cantonese 啲 between two words marks whose or which ones (金桥科技啲员工: the company's staff),
# as 的 does; a passage holds neither.
_OF_YUE = re.compile(r"(?<=[\u4e00-\u9fff])啲(?=[\u4e00-\u9fff])")


def edits_allowed(word: str) -> int:
    return 2 if len(word) >= 8 else 1


@cache
def _common() -> tuple[str, ...]:
    return tuple(sorted(w for w in common_words() if w.isalpha() and len(w) >= 5))


def _closest(word: str, words: tuple[str, ...] | frozenset[str]) -> str | None:
    """The one word of `words` closest to `word`, within `edits_allowed` (None when none is, or
    two are equally close)."""
    allowed = edits_allowed(word)
    found = process.extract(
        word, words, scorer=DamerauLevenshtein.distance, score_cutoff=allowed, limit=2
    )
    if not found:
        return None
    tied = len(found) > 1 and found[1][1] == found[0][1]
    # Two words as near are one when they are forms of one word ("reviewd": review, reviewed).
    if tied and tokenize(str(found[0][0])) != tokenize(str(found[1][0])):
        return None
    return str(found[0][0])


def library_words(texts: list[str]) -> frozenset[str]:
    """The lower-case English words of a library's passages."""
    return frozenset(w.lower() for text in texts for w in _WORD.findall(text))


def as_read(question: str, known: frozenset[str]) -> str:
    """`question` with its misspelt English words replaced by the word meant (`known`: the
    library's words, `library_words`), its guess-marking Chinese particles dropped and its
    "A not A" questions read as the word (含不含税 → 含税); shorthand ("yr"), traditional
    characters, Cantonese and colloquial words (啥) as written Mandarin says them."""
    text = expand_period_shorthand(question.strip())
    if is_chinese(text):
        # Traditional characters and Cantonese or Taiwanese words, as the brains read them.
        text = _COLLOQUIAL.sub(lambda m: _WRITTEN[m.group(0)], mandarin(_OF_YUE.sub("的", text)))
    text = _PARTICLES.sub("", text)
    text = _A_NOT_A.sub(lambda m: m.group(0) if m.group(1) in _FRAMING else m.group(1), text)
    unknown = {
        w.lower()
        for w in _WORD.findall(text)
        if w.lower() not in known and w.lower() not in common_words()
    }
    near: dict[str, str] = {}
    for word in unknown:
        meant = _closest(word, known)
        if meant is None and len(word) >= 6:
            meant = _closest(word, _common())
        if meant is not None:
            near[word] = meant
    if not near:
        return text
    # Only now, with a word to put instead: wordfreq's list and the dictionary take a while.
    from wordfreq import zipf_frequency

    in_dictionary = chinese_of(tuple(sorted(near)))
    fixed = {
        word: meant
        for word, meant in near.items()
        if not in_dictionary.get(word) and zipf_frequency(word, "en") < _RARE_ZIPF
    }
    if not fixed:
        return text
    return _WORD.sub(lambda m: fixed.get(m.group(0).lower(), m.group(0)), text)
