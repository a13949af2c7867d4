"""Which model endpoint to call: from settings, overridden per request (OpenBB key and model)."""

from __future__ import annotations

from pydantic import BaseModel, SecretStr

from datapilot.core.context import QuestionContext
from datapilot.settings import Settings

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Used only when a request brings an OpenAI key but neither it nor the settings name a model.
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


class LLMConfig(BaseModel):
    """One OpenAI-compatible endpoint and model."""

    base_url: str = OPENAI_BASE_URL
    api_key: SecretStr | None = None
    model: str
    timeout_s: float = 60.0
    max_retries: int = 3

    @property
    def shown_url(self) -> str:
        """The base URL as messages show it: no user:password, query or fragment (a key may
        be there), since chat users and guests read those messages."""
        from datapilot.net import shown_address  # httpx, once a message names the endpoint

        return shown_address(self.base_url)

    @property
    def endpoint_key(self) -> str:
        """Identifies the endpoint+model, e.g. to remember which output formats it accepts."""
        return f"{self.base_url.rstrip('/')}#{self.model}"


def resolve_config(settings: Settings, context: QuestionContext | None = None) -> LLMConfig | None:
    """The endpoint to use for this request, or None when no model is configured.

    A key or model sent with the request (OpenBB's `api_keys.openai_api_key`, the `model`
    feature option) wins over the settings; a request key without any base URL means OpenAI.
    """
    request_key = context.llm_api_key if context else None
    request_model = context.llm_model if context else None
    api_key = _secret(request_key) or _secret(settings.llm_api_key)
    base_url = settings.llm_base_url
    model = request_model or settings.llm_model
    if not (base_url or api_key):
        return None
    if not model:
        if base_url and base_url.rstrip("/") != OPENAI_BASE_URL:
            return None  # a self-hosted endpoint needs an explicit model name
        model = DEFAULT_OPENAI_MODEL
    return LLMConfig(
        base_url=base_url or OPENAI_BASE_URL,
        api_key=api_key,
        model=model,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
    )


def _secret(value: SecretStr | str | None) -> SecretStr | None:
    # Settings copied with a request's key (`model_copy(update=…)`) hold it as a plain string.
    if value is None or isinstance(value, SecretStr):
        return value
    return SecretStr(value) if value else None
