"""Usage accounting for model calls: calls, prompt/completion tokens and latency."""

from __future__ import annotations

from pydantic import BaseModel, Field

from datapilot.core.answer import Usage


class CallUsage(BaseModel):
    """One model call as the endpoint reported it (or as counted locally when it did not)."""

    purpose: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    ok: bool = True


class UsageMeter(BaseModel):
    """Collects the calls of one request."""

    calls: list[CallUsage] = Field(default_factory=list)

    def record(self, call: CallUsage) -> None:
        self.calls.append(call)

    def total(self) -> Usage:
        return Usage(
            llm_calls=len(self.calls),
            prompt_tokens=sum(call.prompt_tokens for call in self.calls),
            completion_tokens=sum(call.completion_tokens for call in self.calls),
            llm_latency_ms=round(self.latency_ms, 1),
        )

    @property
    def latency_ms(self) -> float:
        return sum(call.latency_ms for call in self.calls)
