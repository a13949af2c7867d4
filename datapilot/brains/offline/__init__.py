"""The offline brain: bilingual time windows, entities, intent and a planner, with no model.

`OfflineBrain().understand(question, context)` returns an intent with explicit dates and a
trace of every decision, plus a plan over the interface library. The brain (its planner and
readers) loads on first use of `OfflineBrain`: a module that needs one of this package's
readers (tool arguments, time windows) imports only that one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datapilot.brains.offline.brain import OfflineBrain

__all__ = ["OfflineBrain"]


def __getattr__(name: str) -> Any:
    if name != "OfflineBrain":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from datapilot.brains.offline.brain import OfflineBrain

    return OfflineBrain
