"""Regular expressions compiled once per machine instead of once per process.

The time grammar builds ~85 patterns from the vocabulary (some of several thousand characters);
Python's `re` parses and compiles them in Python code, ~50-100 ms of every `datapilot ask`. What
compiling produces (the matcher's program: a list of integers, and the group names) is kept in
the user's cache folder, in `marshal` format (plain data: no code is loaded from it), under a
key made of the patterns, their flags and the interpreter's `re` engine version; a later process
builds its patterns from it directly. Anything unexpected (another Python whose `re` internals
differ, a damaged or unwritable cache) falls back to `re.compile`, so the patterns are the same
either way.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import marshal
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_KEEP = 8  # cache files kept, newest first
Compiled = tuple[str, int, list[int], int, dict[str, int], tuple[str | None, ...]]


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


def _write(path: Path, programs: list[Compiled]) -> None:
    """Written whole or not at all (a temporary file renamed), and never an error: a read-only
    cache only means compiling again next time."""
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
