"""pydantic's question about a builtin default factory, answered once per process.

For every field with a `default_factory`, pydantic asks whether the factory takes the validated
data (`takes_validated_data_argument`), through `inspect.signature`. For `list` (~185 of this
package's fields) the standard library parses the type's text signature each time (~0.2 ms):
~13 ms of a terminal answer's start-up, ~70 fields. A builtin type's answer never changes, so
it is kept once asked; every other factory is asked as pydantic always does.

pydantic's field machinery is wrapped once loaded: at once if it is, else as it is imported
(pydantic's own modules take the function from it then). Importing Datapilot imports no pydantic.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

FIELDS = "pydantic._internal._fields"
_FUNCTION = "takes_validated_data_argument"
# Modules that hold their own reference to the function (`from ._fields import …`).
_HOLDERS = ("pydantic._internal._generate_schema",)


def remember_builtin_factories() -> None:
    """Keep pydantic's answer per builtin factory type, from now on (or from its first import)."""
    module = sys.modules.get(FIELDS)
    if module is not None:
        _wrap(module)
    elif not any(isinstance(finder, _WhenImported) for finder in sys.meta_path):
        sys.meta_path.insert(0, _WhenImported())


def _wrap(module: ModuleType) -> None:
    original: Callable[[Any], bool] | None = getattr(module, _FUNCTION, None)
    if original is None or getattr(original, "__wrapped__", None) is not None:
        return  # another pydantic (no such function), or done already
    answers: dict[type, bool] = {}

    def remembered(default_factory: Any) -> bool:
        if type(default_factory) is not type or default_factory.__module__ != "builtins":
            return original(default_factory)
        answer = answers.get(default_factory)
        if answer is None:
            answer = answers[default_factory] = original(default_factory)
        return answer

    remembered.__wrapped__ = original  # type: ignore[attr-defined]
    remembered.__doc__ = original.__doc__
    setattr(module, _FUNCTION, remembered)
    for name in _HOLDERS:
        holder = sys.modules.get(name)
        if holder is not None and getattr(holder, _FUNCTION, None) is original:
            setattr(holder, _FUNCTION, remembered)


class _WhenImported:
    """A finder for pydantic's field machinery alone: the module is found by the other finders,
    and wrapped once it has run. It leaves the import system after that one import."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != FIELDS:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if finder is self or find is None else find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _ThenWrap(spec.loader, self)
        return spec


class _ThenWrap:
    """A loader that runs the module's own, then wraps it (`_wrap`)."""

    def __init__(self, loader: Any, finder: _WhenImported) -> None:
        self._loader = loader
        self._finder = finder

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        try:
            self._loader.exec_module(module)
        finally:
            if self._finder in sys.meta_path:
                sys.meta_path.remove(self._finder)
            # The module keeps its own loader, as if it had been imported as usual.
            module.__loader__ = self._loader
            if module.__spec__ is not None:
                module.__spec__.loader = self._loader
        _wrap(module)

    def __getattr__(self, name: str) -> Any:  # the source for tracebacks, and the rest
        return getattr(self._loader, name)
