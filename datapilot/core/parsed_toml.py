"""TOML files parsed once per change instead of once per process.

`tomllib` is written in Python: the offline reader's vocabulary (eight files, ~60 KB) took
~12-25 ms to parse in every `datapilot ask`. What a file parses to is kept as JSON (read by the
C decoder in ~1 ms) in the user's cache folder beside the compiled patterns
(`core.compiled_patterns`), under the file's path, and used while the file's size and
modification time are those it was parsed from. Dates and times, which JSON lacks, are kept
tagged. A missing, damaged or stale entry only means parsing the file again, and a cache that
cannot be written only means parsing it every time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import tomllib
from collections.abc import Callable
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

FORMAT = 1  # raised when what is stored changes shape
_TAG = "\x00toml"  # the key of a tagged date or time: no TOML key a file could hold by accident
_PARSERS: dict[str, Callable[[str], datetime | date | time]] = {
    "datetime": datetime.fromisoformat,
    "date": date.fromisoformat,
    "time": time.fromisoformat,
}


def read_toml(path: Path) -> dict[str, Any]:
    """`tomllib.loads(path.read_text())`, from the cache when `path` has not changed since it
    was parsed. Raises as `tomllib` and `read_text` do (a missing file, invalid TOML)."""
    stamp = _stamp(path)
    entry = _entry(path)
    if stamp is not None:
        cached = _read(entry, str(path), stamp)
        if cached is not None:
            return cached
    content = tomllib.loads(path.read_text(encoding="utf-8"))
    if stamp is not None:
        _write(entry, {"format": FORMAT, "path": str(path), "stamp": stamp, "toml": content})
    return content


def _stamp(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _entry(path: Path) -> Path:
    from datapilot.core.compiled_patterns import cache_folder

    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    return cache_folder() / "toml" / f"{digest}.json"


def _read(entry: Path, path: str, stamp: list[int]) -> dict[str, Any] | None:
    try:
        body = json.loads(entry.read_text(encoding="utf-8"), object_hook=_untag)
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or [body.get(k) for k in ("format", "path", "stamp")] != [
        FORMAT,
        path,
        stamp,
    ]:
        return None
    content = body.get("toml")
    return content if isinstance(content, dict) else None


def _write(entry: Path, body: dict[str, Any]) -> None:
    """Written whole or not at all (a temporary file renamed), and never an error."""
    with contextlib.suppress(OSError, TypeError, ValueError):
        entry.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(body, ensure_ascii=False, default=_tag)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".toml-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, entry)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)


def _tag(value: object) -> dict[str, str]:
    # datetime before date: a datetime is a date too.
    if isinstance(value, datetime):
        name = "datetime"
    elif isinstance(value, date):
        name = "date"
    elif isinstance(value, time):
        name = "time"
    else:
        raise TypeError(f"{type(value).__name__} is not a TOML value")
    return {_TAG: name, "value": value.isoformat()}


def _untag(item: dict[str, Any]) -> Any:
    kind = item.get(_TAG)
    if kind is None or len(item) != 2:
        return item
    return _PARSERS[kind](item["value"])
