"""The LLM brain: plans with any OpenAI-compatible model, grounded in the catalog and registry."""

from __future__ import annotations

from datapilot.brains.llm.brain import LLMBrain
from datapilot.brains.llm.planner import Planner, PlanningFailed

__all__ = ["LLMBrain", "Planner", "PlanningFailed"]
