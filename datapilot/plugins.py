"""The plugin manager: built-in and third-party plugins, loaded from the `datapilot` entry points.

Built-ins are entry points of this package like any other plugin's (see `pyproject.toml`), so
one mechanism registers interfaces, providers, brains, tools, commands and routes. Beside entry
points, the folder `<data dir>/plugins/` holds plugin packages the design stage writes
(`datapilot design`): each registers through the same hooks once the user has accepted it, and
only while its files match the hash recorded at acceptance. They are read when the interface
library is built, not at start-up, so `datapilot --help` reads no settings; the library is built
again when they change (`packages_stamp`), so a running server follows `design accept`. Importing a
plugin module registers nothing by side effect: its `@hookimpl` functions are called when the
registry, the router, the command line or the app asks for them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

import pluggy

from datapilot import hookspecs
from datapilot.core.entry_points import entry_points
from datapilot.hookspecs import BrainFactory, ProviderFactory, ToolFactory

log = logging.getLogger(__name__)
_lock = threading.Lock()
_manager: pluggy.PluginManager | None = None
Factory = TypeVar("Factory")
PLUGIN_FILE = "plugin.json"
_HASHED = ("plugin.py", "interface.py")
_packages: dict[tuple[str, str], ModuleType] = {}  # (folder, code hash) -> loaded plugin.py

if TYPE_CHECKING:
    from datapilot.interfaces.registry import Registry


def plugin_manager() -> pluggy.PluginManager:
    """The process's plugin manager, with every installed `datapilot` entry point loaded."""
    global _manager
    with _lock:
        if _manager is None:
            manager = pluggy.PluginManager(hookspecs.PROJECT)
            manager.add_hookspecs(hookspecs)
            _load_entry_points(manager)
            _manager = manager
        return _manager


def _load_entry_points(manager: pluggy.PluginManager) -> None:
    """Register every `datapilot` entry point; one that cannot be loaded is skipped with a
    warning naming it, so a broken plugin never takes the command line or the server down."""
    for point in entry_points(group=hookspecs.PROJECT):
        if manager.get_plugin(point.name) is not None or manager.is_blocked(point.name):
            continue
        try:
            manager.register(point.load(), name=point.name)
        except Exception as error:
            log.warning(
                "the Datapilot plugin %r (%s) was not loaded: %s: %s; uninstall or fix it",
                point.name,
                point.value,
                type(error).__name__,
                error,
            )


def load_local_plugins(manager: pluggy.PluginManager, data_dir: Path | None = None) -> list[str]:
    """Register the accepted plugin packages of `data_dir/plugins/` in `manager` (embedding,
    tests); returns their names. The interface library registers them itself
    (`register_packages`), per data dir."""
    names: list[str] = []
    for folder, module in accepted_packages(data_dir):
        name = f"local:{folder}"
        if manager.get_plugin(name) is None:
            manager.register(module, name=name)
            names.append(name)
    return names


def accepted_packages(data_dir: Path | None = None) -> list[tuple[str, ModuleType]]:
    """The accepted plugin packages of `<data dir>/plugins/`, each as (folder name, its loaded
    `plugin.py`). A package counts only when its `plugin.json` says it was accepted and its files
    still hash as they did then; anything else is skipped with a warning saying why."""
    if data_dir is None:
        from datapilot.settings import get_settings

        data_dir = get_settings().data_dir
    root = data_dir / "plugins"
    found: list[tuple[str, ModuleType]] = []
    for meta in sorted(root.glob(f"*/{PLUGIN_FILE}")) if root.is_dir() else []:
        folder = meta.parent
        try:
            body = json.loads(meta.read_text(encoding="utf-8"))
            if not body.get("accepted"):
                continue
            digest = package_hash(folder)
            if body.get("sha256") != digest:
                log.warning(
                    "the plugin package %s changed since it was accepted and was not loaded; "
                    "review it and run `datapilot design accept %s` again",
                    folder,
                    folder.name,
                )
                continue
            key = (str(folder.resolve()), digest)
            with _lock:
                module = _packages.get(key)
            if module is None:
                spec = importlib.util.spec_from_file_location(
                    f"datapilot_local_{folder.name}", folder / "plugin.py"
                )
                if spec is None or spec.loader is None:
                    raise ImportError("no plugin.py")
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                with _lock:
                    _packages[key] = module
            found.append((folder.name, module))
        except Exception as error:
            log.warning(
                "the plugin package %s was not loaded: %s: %s", folder, type(error).__name__, error
            )
    return found


def register_packages(registry: Registry, packages: list[tuple[str, ModuleType]]) -> None:
    """Register the interfaces of `packages` (from `accepted_packages`) through their own
    `register_interfaces` hook implementation, as the plugin manager would. A package that
    fails, or names an interface the library already has, is skipped whole with a warning: a
    server that picks up an acceptance while it runs must keep answering."""
    for folder, module in packages:
        hook = getattr(module, "register_interfaces", None)
        if hook is None:
            continue
        own = type(registry)()  # the package's own first (plugins may not import interfaces)
        try:
            hook(registry=own)
            taken = [spec.name for spec in own if spec.name in registry]
            if taken:
                raise ValueError(f"the library already has {', '.join(sorted(taken))}")
        except Exception as error:
            log.warning(
                "the plugin package %s was not loaded: %s: %s", folder, type(error).__name__, error
            )
            continue
        for spec in own:
            registry.register(spec)


Stamp = tuple[tuple[str, str, int, int, int, int], ...]


def packages_stamp(root: Path) -> Stamp:
    """What the package files under `root` (`<data dir>/plugins`) look like to `stat`: each
    folder's `plugin.json` and code files, by modification and change time, size and inode.

    Writing, accepting, rejecting or editing a package changes it, so a library built for one
    stamp can be reused while the stamp stays the same. Costs a directory listing and a few
    `stat` calls per package (hashing the code is left to `accepted_packages`); one failed
    listing when the folder does not exist.
    """
    found: list[tuple[str, str, int, int, int, int]] = []
    try:
        entries = os.scandir(root)
    except (FileNotFoundError, NotADirectoryError):
        return ()
    with entries:
        for entry in entries:
            for name in (PLUGIN_FILE, *_HASHED):
                try:
                    st = os.stat(os.path.join(entry.path, name))
                except OSError:  # not a package folder, or a file it does not have
                    if name == PLUGIN_FILE:
                        break
                    continue
                found.append(
                    (entry.name, name, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
                )
    return tuple(sorted(found))


def package_hash(folder: Path) -> str:
    """SHA-256 over a plugin package's code files, in a fixed order."""
    digest = hashlib.sha256()
    for name in _HASHED:
        path = folder / name
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def register(plugin: object, name: str | None = None) -> str | None:
    """Register a plugin object or module at run time (embedding, tests); returns its name."""
    return plugin_manager().register(plugin, name=name)


def unregister(plugin: object) -> None:
    """Remove a plugin registered with `register`."""
    plugin_manager().unregister(plugin)


def providers() -> dict[str, ProviderFactory]:
    """Live data providers by name (a plugin's own in the order it registers them)."""
    return _named(plugin_manager().hook.register_providers, "provider")


def brains() -> dict[str, BrainFactory]:
    """Brains by name."""
    return _named(plugin_manager().hook.register_brains, "brain")


def tools() -> dict[str, ToolFactory]:
    """Tool sources by name."""
    return _named(plugin_manager().hook.register_tools, "tool")


def _named(hook: Callable[..., object], what: str) -> dict[str, Factory]:
    found: dict[str, Factory] = {}

    def add(name: str, factory: Factory) -> None:
        key = name.strip().lower()
        if key in found:
            raise ValueError(f"two plugins register a {what} named {key!r}")
        found[key] = factory

    hook(register=add)
    return found
