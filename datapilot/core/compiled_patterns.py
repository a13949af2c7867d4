"""Regular expressions compiled once per machine instead of once per process.

Python's `re` parses and compiles patterns in Python code. A `datapilot ask` compiles several
hundred of them (the time grammar's ~85, some of several thousand characters; every module's
own; its libraries'), 0.1-0.3 s of CPU in every process. What compiling produces (the matcher's
program: a list of integers, and the group names) is kept in the user's cache folder, in
`marshal` format (plain data: no code is loaded from it), under a key naming the interpreter and
its `re` engine, and a later process builds its patterns from it directly:

- `compile_all`: a set of patterns compiled together (the time grammar's), one file per set;
- `preload_re_cache` / `save_re_cache`: `re`'s own cache of compiled patterns, which from a
  command's start builds what the last command compiled from its stored program when it is
  first asked for, and is written back at the command's end when it compiled new ones, so
  `re.compile` and `re.search` anywhere find their pattern compiled.

Anything unexpected (another Python whose `re` internals differ, a damaged or unwritable cache)
falls back to compiling as usual, so the patterns are the same either way.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import marshal
import os
import re
import sys
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_KEEP = 8  # cache files kept, newest first
Compiled = tuple[str, int, list[int], int, dict[str, int], tuple[str | None, ...]]
Stored = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]


def compile_all(patterns: Sequence[tuple[str, int]]) -> list[re.Pattern[str]]:
    """`re.compile(pattern, flags)` of each, from the cache when it holds them."""
    try:
        import _sre

        key = _key(patterns, _sre.MAGIC)
        path = cache_folder() / f"patterns-{key}.marshal"
        programs = _read(path, len(patterns))
        if programs is None:
            programs = [_program(pattern, flags) for pattern, flags in patterns]
            _write(path, programs)
        return [_sre.compile(*program) for program in programs]
    except Exception as error:  # `re` internals of another Python: compile as usual
        log.debug("compiling patterns without the cache: %s: %s", type(error).__name__, error)
        return [re.compile(pattern, flags) for pattern, flags in patterns]


def cache_folder() -> Path:
    """Where compiled patterns are kept: the user's cache folder for Datapilot."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("datapilot"))


def _key(patterns: Sequence[tuple[str, int]], magic: int) -> str:
    digest = hashlib.sha256(repr((sys.version, magic, list(patterns))).encode())
    return digest.hexdigest()[:32]


def _program(pattern: str, flags: int) -> Compiled:
    """What `re._compiler.compile` hands to `_sre.compile` for this pattern, as plain data."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]
    names = {str(name): int(index) for name, index in parsed.state.groupdict.items()}
    by_index: list[str | None] = [None] * parsed.state.groups
    for name, index in names.items():
        by_index[index] = name
    # Plain types only (`re` hands over flag enums and named constants, which marshal refuses).
    flags = int(flags | parsed.state.flags)
    return str(pattern), flags, code, int(parsed.state.groups - 1), names, tuple(by_index)


def _read(path: Path, count: int) -> list[Compiled] | None:
    try:
        data: Any = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, list) or len(data) != count:
        return None
    if not all(isinstance(item, tuple) and len(item) == 6 for item in data):
        return None
    return data


def _write(path: Path, programs: list[Any], *, prune: bool = True) -> None:
    """Written whole or not at all (a temporary file renamed), and never an error: a read-only
    cache only means compiling again next time."""
    import tempfile

    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".patterns-")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(marshal.dumps(programs))
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        if not prune:
            return
        # Another vocabulary (or Python) makes another file: the most recent few are kept.
        kept = sorted(path.parent.glob("patterns-*.marshal"), key=_age)
        for old in kept[_KEEP:]:
            with contextlib.suppress(OSError):
                old.unlink()


def _age(path: Path) -> float:
    try:
        return -path.stat().st_mtime
    except OSError:
        return 0.0


# ---- `re`'s own cache, kept across processes -------------------------------------------------

_RE_CACHE_LIMIT = 4000  # patterns kept for the next command (an ask uses ~1,250)
# Of those, patterns this command did not use: a question's own (its names' patterns), those of
# a vocabulary since changed. Without a bound they piled up to the limit, and reading them all
# back cost every later command (~0.02 s and a dozen collector passes at 2,700 kept).
_RE_CACHE_UNUSED = 400
# `re`'s cache drops its oldest pattern once it holds `re._MAXCACHE` (512): a command using more
# than that lost the preloaded patterns to the ones it compiled first, then compiled those again.
# A command's cache holds all of its patterns instead.
_RE_CACHE_SIZE = 8192
_RE_CACHE_NEW = 4  # new patterns that make the file be written again
_RE_CACHE_FORMAT = 2  # programs stored as bytes (format 1: lists of integers, 5x slower to load)
# What the last command compiled: (pattern, flags asked for) -> (flags compiled with, code as
# bytes, groups, names, ...).
_preloaded: dict[tuple[str, int], Stored] = {}
_kind = ["other"]


class _PreloadedCache(dict):
    """`re`'s cache, which builds a preloaded pattern the first time it is asked for: a
    command uses only some of what the last one kept (building all ~1,550 cost ~20 ms)."""

    def __missing__(self, key: Any) -> Any:
        import _sre

        kind, pattern, flags = key
        stored = _preloaded.get((pattern, flags)) if kind is str else None
        if stored is None:
            raise KeyError(key)
        compiled = _sre.compile(pattern, *_unpacked(stored))
        self[key] = compiled
        return compiled


def _packed(program: Compiled) -> Stored:
    _, flags, code, groups, names, by_index = program
    return flags, array("I", code).tobytes(), groups, names, by_index


def _unpacked(stored: Stored) -> tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]:
    flags, code, groups, names, by_index = stored
    return flags, array("I", code).tolist(), groups, names, by_index


def preload_re_cache(kind: str = "other") -> None:
    """Let `re`'s cache build the patterns the last command of this `kind` (`ask`, `serve`:
    each compiles its own set) compiled from their stored programs, if this Python's cache is
    the dictionary this code knows; never raises."""
    _kind[0] = kind if kind.isidentifier() and len(kind) <= 32 else "other"
    try:
        import _sre

        cache = _re_cache()
        if cache is None or array("I").itemsize != _sre.CODESIZE:
            return
        if isinstance(getattr(re, "_MAXCACHE", None), int):
            re._MAXCACHE = max(re._MAXCACHE, _RE_CACHE_SIZE)  # type: ignore[attr-defined]
        data: Any = marshal.loads(_re_cache_path(_sre.MAGIC).read_bytes())
        if not isinstance(data, list):
            return
        for pattern, flags, *stored in data[-_RE_CACHE_LIMIT:]:
            if isinstance(pattern, str) and isinstance(flags, int) and isinstance(stored[1], bytes):
                _preloaded[pattern, flags] = tuple(stored)
        if hasattr(re, "_cache2"):  # Python 3.12+ takes patterns out with `pop`: build them now
            for (pattern, flags), stored in _preloaded.items():
                cache.setdefault((str, pattern, flags), _sre.compile(pattern, *_unpacked(stored)))
        elif type(cache) is dict:
            re._cache = _PreloadedCache(cache)  # type: ignore[attr-defined]
    except Exception as error:  # no cache yet, or another Python's: compile as usual
        log.debug("re's cache not preloaded: %s: %s", type(error).__name__, error)


def save_re_cache() -> None:
    """Write the stored programs back for the next command, with those of the patterns this one
    compiled that the file did not hold, when there were a few; never raises."""
    try:
        import _sre

        cache = _re_cache()
        if cache is None or array("I").itemsize != _sre.CODESIZE:
            return
        used = [
            (pattern, flags)
            for kind, pattern, flags in list(cache)
            if kind is str and isinstance(flags, int) and not flags & re.DEBUG
        ]
        if sum(key not in _preloaded for key in used) < _RE_CACHE_NEW:
            # Nothing new worth a write: a few patterns differ in every process (some are built
            # from sets, whose order changes from run to run) and compile in no time.
            return
        # Those this command used last, so that the file's limit drops the longest unused first.
        in_use = set(used)
        kept = [(*key, *stored) for key, stored in _preloaded.items() if key not in in_use]
        kept = kept[-_RE_CACHE_UNUSED:] if _RE_CACHE_UNUSED else []
        kept += [(*key, *(_preloaded.get(key) or _packed(_program(*key)))) for key in used]
        _write(_re_cache_path(_sre.MAGIC), kept[-_RE_CACHE_LIMIT:], prune=False)
    except Exception as error:
        log.debug("re's cache not saved: %s: %s", type(error).__name__, error)


def _re_cache() -> dict[Any, Any] | None:
    cache = getattr(re, "_cache", None)
    return cache if isinstance(cache, dict) else None


def _re_cache_path(magic: int) -> Path:
    key = repr((sys.version, magic, _RE_CACHE_FORMAT))
    version = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_folder() / f"re-cache-{_kind[0]}-{version}.marshal"
