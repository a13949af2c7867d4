"""Chinese names typed with another character of the same sound: 沃尔马 for 沃尔玛, 平果 for 苹果.

A pinyin input method offers every character of a syllable, and picking the neighbour of the
right one is the commonest Chinese typo. When a question names nothing the catalog knows, each
run of Chinese characters is compared, by sound (toneless pinyin, `pypinyin`), with the
catalog's Chinese names: a piece that sounds exactly like a name and differs from it in one
character (two in a name of five or more) is read as that name, and the trace says so. Only this
failure path loads the pinyin tables (~0.3 s), so questions that name things pay nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from datapilot.data.catalog import Catalog
from datapilot.data.entity import Entity, Match

_RUN = re.compile(r"[\u3400-\u9fff]+")
SOUND_SCORE = 85.0  # below an exact name, above the reader's minimum


def homophone_matches(text: str, catalog: Catalog) -> list[Match]:
    """Pieces of `text` that sound like a Chinese name of the catalog, best (longest) first."""
    if not _RUN.search(text):
        return []
    index = _index(catalog)
    if not index:
        return []
    lengths = sorted({len(name) for name, _ in index.values()}, reverse=True)
    found: list[Match] = []
    taken: list[tuple[int, int]] = []
    for run in _RUN.finditer(text):
        for length in lengths:
            for at in range(run.start(), run.end() - length + 1):
                span = (at, at + length)
                if any(s < span[1] and span[0] < e for s, e in taken):
                    continue
                piece = text[span[0] : span[1]]
                hit = index.get(_sound(piece))
                if hit is None:
                    continue
                name, entity = hit
                differ = sum(a != b for a, b in zip(piece, name, strict=True))
                if differ == 0 or differ > (2 if length >= 5 else 1):
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


def _sound(piece: str) -> tuple[str, ...]:
    from pypinyin import Style, lazy_pinyin

    return tuple(lazy_pinyin(piece, style=Style.NORMAL))


@lru_cache(maxsize=4)
def _index_of(names: tuple[tuple[str, str], ...]) -> dict[tuple[str, ...], tuple[str, str]]:
    index: dict[tuple[str, ...], tuple[str, str]] = {}
    ambiguous: set[tuple[str, ...]] = set()
    for name, entity_id in names:
        key = _sound(name)
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
            if len(name) >= 2 and all("\u3400" <= ch <= "\u9fff" for ch in name)
        )
    )
    by_id = {e.id: e for e in catalog.entities()}
    return {k: (name, by_id[i]) for k, (name, i) in _index_of(names).items() if i in by_id}
