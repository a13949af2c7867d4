"""Chinese names typed with another character of the same sound: 沃尔马 for 沃尔玛, 摩跟大通.

A pinyin input method offers every character of a syllable, and picking the neighbour of the
right one is the commonest Chinese typo. Words no reading took are compared with the catalog's
Chinese names of three or more characters: a piece that differs from a name in one character
(two in a name of five or more) and sounds exactly like it (toneless pinyin, `pypinyin`) is read
as that name, and the trace says so. The pinyin tables (~0.3 s to load) are read only when such
a near name is found, so other questions pay nothing. Two-character names are left out: too
many everyday words are one character from one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from datapilot.data.catalog import Catalog
from datapilot.data.entity import Entity, Match

_RUN = re.compile(r"[\u3400-\u9fff]+")
SOUND_SCORE = 85.0  # below an exact name, above the reader's minimum
LONGEST_RUN = 40  # characters of one run of Chinese scanned for sound-alike names


def homophone_matches(
    text: str, catalog: Catalog, taken: list[tuple[int, int]] | None = None
) -> list[Match]:
    """Pieces of `text` outside the `taken` spans that sound like a Chinese name of the
    catalog, best (longest) first."""
    if not _RUN.search(text):
        return []
    names = _chinese_names(catalog)
    lengths = sorted(names, reverse=True)
    found: list[Match] = []
    taken = list(taken or [])
    for run in _RUN.finditer(text):
        if run.end() - run.start() > LONGEST_RUN:
            continue  # a wall of characters is no sentence naming a company: never scanned
        for length in lengths:
            for at in range(run.start(), run.end() - length + 1):
                span = (at, at + length)
                if any(s < span[1] and span[0] < e for s, e in taken):
                    continue
                piece = text[span[0] : span[1]]
                if not any(_near(piece, name) for name in names.get(length, ())):
                    continue  # no name a character away: no pinyin needed
                hit = _index(catalog).get(sound(piece))
                if hit is None:
                    continue
                name, entity = hit
                if not _near(piece, name):
                    continue
                taken.append(span)
                found.append(
                    Match(
                        entity=entity,
                        score=SOUND_SCORE,
                        matched=piece,
                        start=span[0],
                        end=span[1],
                        how="sound",
                    )
                )
    return found


def _near(piece: str, name: str) -> bool:
    """`piece` is `name` with one character changed (two in a name of five or more)."""
    differ = sum(a != b for a, b in zip(piece, name, strict=True))
    return 0 < differ <= (2 if len(name) >= 5 else 1)


def _chinese_names(catalog: Catalog) -> dict[int, list[str]]:
    """The catalog's Chinese names of three or more characters, by length."""
    by_length: dict[int, list[str]] = {}
    for e in catalog.entities():
        for name in (e.name, *e.aliases):
            if len(name) >= 3 and _RUN.fullmatch(name):
                by_length.setdefault(len(name), []).append(name)
    return by_length


def sound(piece: str) -> tuple[str, ...]:
    """The toneless pinyin of `piece`, syllable by syllable (the tables load on first use)."""
    from pypinyin import Style, lazy_pinyin

    return tuple(lazy_pinyin(piece, style=Style.NORMAL))


# The syllables pinyin input methods let a typist confuse ("fuzzy pinyin"): flat and curled
# tongue initials (c/ch, s/sh, z/zh), and front and back nasal finals (an/ang, en/eng, in/ing).
_FUZZY_INITIAL = re.compile(r"^([csz])h")
_FUZZY_FINAL = re.compile(r"([aei]n)g$")


def near_sound(piece: str) -> tuple[str, ...]:
    """`sound(piece)` with the syllables an input method confuses made one (测 ce for 撤 che)."""
    return tuple(
        _FUZZY_FINAL.sub(r"\1", _FUZZY_INITIAL.sub(r"\1", syllable)) for syllable in sound(piece)
    )


@lru_cache(maxsize=4)
def _index_of(names: tuple[tuple[str, str], ...]) -> dict[tuple[str, ...], tuple[str, str]]:
    index: dict[tuple[str, ...], tuple[str, str]] = {}
    ambiguous: set[tuple[str, ...]] = set()
    for name, entity_id in names:
        key = sound(name)
        if key in index and index[key][1] != entity_id:
            ambiguous.add(key)  # two names that sound alike: neither is guessed
        index.setdefault(key, (name, entity_id))
    return {k: v for k, v in index.items() if k not in ambiguous}


def _index(catalog: Catalog) -> dict[tuple[str, ...], tuple[str, Entity]]:
    """Toneless pinyin of every Chinese name of two or more characters → (name, entity)."""
    names = tuple(
        sorted(
            (name, e.id)
            for e in catalog.entities()
            for name in (e.name, *e.aliases)
            if len(name) >= 3 and _RUN.fullmatch(name)
        )
    )
    by_id = {e.id: e for e in catalog.entities()}
    return {k: (name, by_id[i]) for k, (name, i) in _index_of(names).items() if i in by_id}
