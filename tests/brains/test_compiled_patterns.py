"""The time grammar's patterns are compiled once per machine: a later process builds them from
the cache, and they match exactly as `re.compile`'s do."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from datapilot.brains.offline import windows
from datapilot.brains.offline.vocab import load_vocab
from datapilot.core import compiled_patterns as compiled

SAMPLES = [
    "Apple closing price in 2020",
    "苹果近三年的走势",
    "S&P 500 since the start of COVID through the end of 2021",
    "the first half of 2019 vs H2 2019",
    "过去6个月沪深300",
    "30d vol of NVDA over the past two years",
]


@pytest.fixture()
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(compiled, "cache_folder", lambda: tmp_path)
    return tmp_path


def _grammar() -> windows.Grammar:
    vocab = load_vocab(None)
    return windows.Grammar(vocab.time, vocab.episodes)


def test_a_second_grammar_compiles_no_pattern_and_reads_the_same(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _grammar()
    assert list(cache.glob("patterns-*.marshal"))
    compiles: list[str] = []
    original = re._compiler.compile  # type: ignore[attr-defined]

    def counting(pattern: object, flags: int = 0) -> object:
        compiles.append(str(pattern))
        return original(pattern, flags)

    re.purge()  # nothing from the first grammar in `re`'s own cache
    monkeypatch.setattr(re._compiler, "compile", counting)  # type: ignore[attr-defined]
    second = _grammar()
    monkeypatch.setattr(re._compiler, "compile", original)  # type: ignore[attr-defined]
    # Every rule and marker came from the cache (other helpers may compile small patterns).
    ours = {regex.pattern for _, regex, _ in second.rules}
    ours |= {regex.pattern for regex in second.markers.values()}
    assert len(ours) > 50 and ours.isdisjoint(compiles)
    today = date(2024, 6, 30)
    for text in SAMPLES:
        assert second.read(text, today) == first.read(text, today), text
    for (name, ours, _), (_, theirs, _) in zip(second.rules, first.rules, strict=True):
        expected = re.compile(theirs.pattern, re.IGNORECASE)
        assert (ours.pattern, ours.flags, ours.groupindex) == (
            expected.pattern,
            expected.flags,
            expected.groupindex,
        ), name
        for text in SAMPLES:
            assert [m.span() for m in ours.finditer(text)] == [
                m.span() for m in expected.finditer(text)
            ], name


def test_a_damaged_cache_is_compiled_again(cache: Path) -> None:
    _grammar()
    (path,) = cache.glob("patterns-*.marshal")
    path.write_bytes(b"not marshal data")
    grammar = _grammar()
    assert grammar.read("Apple in 2020", date(2024, 1, 1)).start == date(2020, 1, 1)
    assert path.read_bytes() != b"not marshal data"  # written again, whole


def test_patterns_compile_without_a_writable_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    monkeypatch.setattr(compiled, "cache_folder", lambda: blocked / "cache")
    (pattern,) = compiled.compile_all([(r"(?P<y>\d{4})年", re.IGNORECASE)])
    assert pattern.search("2020年").group("y") == "2020"


@pytest.fixture()
def fresh_re_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`re`'s cache and the preloaded programs as a new process has them."""
    monkeypatch.setattr(re, "_cache", {})
    monkeypatch.setattr(compiled, "_preloaded", {})
    monkeypatch.setattr(compiled, "_kind", ["other"])
    monkeypatch.setattr(re, "_MAXCACHE", re._MAXCACHE)  # type: ignore[attr-defined]
    compiled.preload_re_cache("other")  # nothing kept yet: as a command's first start
    return cache


def _next_process(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled.save_re_cache()
    monkeypatch.setattr(re, "_cache", {})
    monkeypatch.setattr(compiled, "_preloaded", {})
    compiled.preload_re_cache("other")


def test_a_command_builds_only_the_kept_patterns_it_uses(
    fresh_re_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A command kept more patterns than the next one uses (an ask keeps ~1,500, uses ~650).
    kept = [rf"(?P<word>w{i}[a-z]*)\s+(?P<n>\d+)" for i in range(600)]
    for pattern in kept:
        re.compile(pattern, re.IGNORECASE)
    _next_process(monkeypatch)
    assert len(re._cache) < 10  # type: ignore[attr-defined]  # nothing built before it is asked for

    compiles: list[str] = []
    original = re._compiler.compile  # type: ignore[attr-defined]

    def counting(pattern: object, flags: int = 0) -> object:
        compiles.append(str(pattern))
        return original(pattern, flags)

    monkeypatch.setattr(re._compiler, "compile", counting)  # type: ignore[attr-defined]
    for pattern in kept[:5]:
        ours, theirs = re.compile(pattern, re.IGNORECASE), original(pattern, re.IGNORECASE)
        assert (ours.flags, ours.groupindex) == (theirs.flags, theirs.groupindex)
        text = "then W2x 17 and w3 4"
        assert [m.groupdict() for m in ours.finditer(text)] == [
            m.groupdict() for m in theirs.finditer(text)
        ]
    assert compiles == []  # built from the stored programs
    assert len(re._cache) < 15  # type: ignore[attr-defined]


def test_the_kept_patterns_a_command_uses_outlast_those_it_does_not(
    fresh_re_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled, "_RE_CACHE_LIMIT", 100)
    everyday = [rf"every{i}\d+" for i in range(20)]
    for pattern in everyday:
        re.compile(pattern)
    # Later commands each bring new patterns of their own, and use the everyday ones again.
    for run in range(6):
        _next_process(monkeypatch)
        for pattern in everyday:
            re.compile(pattern)
        for i in range(30):
            re.compile(rf"run{run}x{i}\d+")
    _next_process(monkeypatch)
    assert all((pattern, 0) in compiled._preloaded for pattern in everyday)


def test_patterns_no_command_uses_any_more_do_not_pile_up(
    fresh_re_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every question brings a few patterns of its own (its names'): kept for a while, they must
    # not grow the file every later command reads back.
    everyday = [rf"every{i}\d+" for i in range(50)]
    for run in range(40):
        for pattern in everyday:
            re.compile(pattern)
        for i in range(30):
            re.compile(rf"question{run}x{i}\d+")
        _next_process(monkeypatch)
    assert all((pattern, 0) in compiled._preloaded for pattern in everyday)
    assert ("question39x0\\d+", 0) in compiled._preloaded  # the last question's are kept
    assert len(compiled._preloaded) <= len(everyday) + 30 + compiled._RE_CACHE_UNUSED
