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

from datapilot.data.common_words import common_words
from datapilot.knowledge.dictionary import chinese_of
from datapilot.retrieval import tokenize

_WORD = re.compile(r"(?<![A-Za-z'\-])[A-Za-z]{5,}(?![A-Za-z'\-])")
# A word written this often (wordfreq's Zipf frequency) is a word, not a slip ("Sharpe" 3.3 is
# not "share"); the usual misspellings are rarer ("statment" 1.7, "recieve" 2.8).
_RARE_ZIPF = 3.0
_PARTICLES = re.compile(r"(?:来着|对吧|是吧|对不对|是不是这样)(?=\s*[？?。！!]?\s*$)")


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
    library's words, `library_words`) and its guess-marking Chinese particles dropped."""
    text = _PARTICLES.sub("", question.strip())
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
