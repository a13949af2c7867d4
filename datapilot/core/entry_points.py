"""Installed entry points, read once per change of the installed packages, not once per process.

`importlib.metadata.entry_points` reads and parses every installed package's entry-point file
(~15-20 ms for ~200 packages), and a process asked twice: for Datapilot's plugins
(`datapilot.plugins`) and, at its first model, for pydantic's. What was found is kept in the
user's cache folder (`core.compiled_patterns.cache_folder`) under a stamp of every package's
metadata folder on `sys.path` and its entry-point file (size, modification time, inode), which
a `stat` per package gives (~2 ms): installing, removing, upgrading or editing a package reads
them again. When another finder than the path's could list packages, nothing is kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sys
from importlib.metadata import EntryPoint
from importlib.metadata import entry_points as scanned_entry_points
from pathlib import Path

log = logging.getLogger(__name__)

# The groups a process reads: its plugins', and pydantic's (read at the first model it builds).
GROUPS = ("datapilot", "pydantic")
# The finders that list the packages on `sys.path`: the standard library's, and the
# `importlib_metadata` backport's, which takes that job over once imported (litellm imports it).
PATH_FINDERS = ("PathFinder", "MetadataPathFinder")
_KEEP = 8  # files kept (one per search path), the most recently written first
_found: dict[str, list[EntryPoint]] | None = None


def entry_points(group: str) -> list[EntryPoint]:
    """The installed entry points of `group` (one of `GROUPS`), as `importlib.metadata` lists
    them."""
    if group not in GROUPS:
        return list(scanned_entry_points(group=group))
    global _found
    if _found is None:
        _found = _kept_or_scanned()
    return list(_found[group])


def skip_pydantic_plugin_scan() -> None:
    """Tell pydantic, through its documented `PYDANTIC_DISABLE_PLUGINS`, that there are no
    plugins to look for when no installed package declares one, before its first model would
    scan every package for them. A value the user set is kept; processes this one starts are of
    the same installation, so they inherit the answer."""
    if "PYDANTIC_DISABLE_PLUGINS" not in os.environ and not entry_points("pydantic"):
        os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"


def _kept_or_scanned() -> dict[str, list[EntryPoint]]:
    try:
        stamp = _stamp()
        # One file per search path (a test runner's, a checkout's, the installed command's), so
        # that processes started differently do not take turns writing the same file over.
        where = repr((sys.path, os.getcwd())).encode()
    except OSError:  # a working directory that is gone: read the packages
        stamp = None
    path = None
    if stamp is not None:
        from datapilot.core.compiled_patterns import cache_folder

        path = cache_folder() / f"entry-points-{hashlib.sha256(where).hexdigest()[:16]}.json"
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            kept = json.loads(path.read_text(encoding="utf-8"))
            if kept["stamp"] == stamp:
                return {
                    group: [EntryPoint(name, value, group) for name, value in kept["groups"][group]]
                    for group in GROUPS
                }
    every = scanned_entry_points()  # one reading of the packages for every group
    found = {group: list(every.select(group=group)) for group in GROUPS}
    if path is not None:
        groups = {group: [(p.name, p.value) for p in points] for group, points in found.items()}
        _write(path, json.dumps({"stamp": stamp, "groups": groups}))
    return found


def _stamp() -> str | None:
    """A digest of what `importlib.metadata` would read the entry points from, or None when
    another finder than the path's lists packages too."""
    finders = [
        finder
        for finder in sys.meta_path
        if getattr(finder, "find_distributions", None) is not None
        and getattr(finder, "__name__", type(finder).__name__) not in PATH_FINDERS
    ]
    if finders:
        return None
    seen: list[object] = [sys.version, sys.prefix]
    for entry in sys.path:
        folder = entry or "."
        try:
            listing = sorted(os.scandir(folder), key=lambda item: item.name)
        except OSError:
            seen.append((entry, _stat(folder)))  # a zip file, a path hook's name, nothing
            continue
        seen.append((entry, os.path.abspath(folder)))
        for item in listing:
            if item.name.endswith((".dist-info", ".egg-info")):
                seen.append((item.name, _stat(os.path.join(item.path, "entry_points.txt"))))
    return hashlib.sha256(repr(seen).encode()).hexdigest()


def _stat(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _write(path: Path, text: str) -> None:
    """Whole or not at all (a temporary file renamed); a cache that cannot be written only means
    reading the packages again next time."""
    import tempfile

    folder = os.path.dirname(path)
    with contextlib.suppress(OSError):
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".entry-points-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        kept = sorted(Path(folder).glob("entry-points-*.json"), key=_age)
        for old in kept[_KEEP:]:
            with contextlib.suppress(OSError):
                old.unlink()
    log.debug("entry points kept in %s", path)


def _age(path: Path) -> float:
    try:
        return -path.stat().st_mtime
    except OSError:
        return 0.0
