"""The offline brain: bilingual time windows, entities, intent and a planner, with no model.

`OfflineBrain().understand(question, context)` returns an intent with explicit dates and a
trace of every decision, plus a plan over the interface library.
"""

from datapilot.brains.offline.brain import OfflineBrain

__all__ = ["OfflineBrain"]
