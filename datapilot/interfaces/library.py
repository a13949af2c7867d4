"""The installed interface library: every interface the plugins register, built once per set
of accepted design packages.

The packages of `<data dir>/plugins/` may be accepted, rejected or edited while a server runs, so
each call compares a cheap `stat` stamp of their files with the one the library was built for; a
changed stamp reads the accepted packages again (hashing their code) and builds the library again
only when they differ. Every library built is kept per set of packages (a few at most).
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import ModuleType

from datapilot.core.blas import one_blas_thread
from datapilot.interfaces.registry import Registry

_KEEP = 4  # libraries kept for sets of packages no longer current (a reject undone, two data dirs)
_KEEP_FOLDERS = 16  # data dirs one process serves (tests use many)
_lock = threading.Lock()
# Per plugins folder: the stamp last seen there and the library for it.
_seen: dict[Path, tuple[tuple[object, ...], Registry]] = {}
# Per set of accepted packages (folder name, loaded module — one per code hash): its library.
_built: dict[tuple[tuple[str, ModuleType], ...], Registry] = {}


def default_registry(data_dir: Path | None = None) -> Registry:
    """The library: every interface the installed plugins register, built-ins included, and the
    design packages accepted in `data_dir` (the settings' when None). The same object while
    those packages stay the same (BLAS then single-threaded)."""
    from datapilot.plugins import accepted_packages, packages_stamp

    if data_dir is None:
        from datapilot.settings import get_settings

        data_dir = get_settings().data_dir
    root = data_dir / "plugins"
    stamp = packages_stamp(root)
    seen = _seen.get(root)
    if seen is not None and seen[0] == stamp:
        return seen[1]
    with _lock:  # one build at a time; a request that waited finds it done
        seen = _seen.get(root)
        if seen is not None and seen[0] == stamp:
            return seen[1]
        # The stamp was taken first: a change from here on shows as a new stamp next time.
        packages = tuple(accepted_packages(data_dir))
        registry = _built.get(packages)
        if registry is None:
            registry = _build(list(packages))
            _built[packages] = registry
            while len(_built) > _KEEP:
                del _built[next(iter(_built))]
        _seen.pop(root, None)
        _seen[root] = (stamp, registry)
        while len(_seen) > _KEEP_FOLDERS:
            del _seen[next(iter(_seen))]
        return registry


def _build(packages: list[tuple[str, ModuleType]]) -> Registry:
    from datapilot.plugins import plugin_manager, register_packages

    registry = Registry()
    plugin_manager().hook.register_interfaces(registry=registry)
    register_packages(registry, packages)
    one_blas_thread()
    return registry
