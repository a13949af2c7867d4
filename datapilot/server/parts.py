"""What this installation has and what it misses: one check per part, shared by
`GET /api/v1/features` (its `parts`), `datapilot serve` (a line per missing optional part at start)
and `datapilot doctor`.

A part is required when nothing works without it (the data, the store); every other part is
optional: without it one piece is off (Code mode, Chinese in PNG charts, live data, the model),
and the check says why and what fixes it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from datapilot.settings import Settings

if TYPE_CHECKING:
    from datapilot.model_client import LLMConfig

#: How long `/api/v1/features` keeps the checks (a model endpoint is asked over the network).
PARTS_TTL_S = 10.0
_MODEL_TIMEOUT_S = 3.0
# The live providers and the module each needs (their extra installs it).
_PROVIDER_MODULES = {"yahoo": ("yfinance", "live"), "akshare": ("akshare", "china")}


class Part(BaseModel):
    """One part of the installation: whether it works, and if not, why and the fix."""

    available: bool
    required: bool = Field(default=False, description="Nothing works without it.")
    reason: str = Field(default="", description="Why it is not available.")
    fix: str = Field(default="", description="What makes it available.")


def check_parts(settings: Settings, names: Iterable[str] | None = None) -> dict[str, Part]:
    """Every part (or those `names`), checked now; a model endpoint is asked with a short
    timeout. Redis appears only when configured."""
    parts: dict[str, Part] = {}
    for name in names or _CHECKS:
        check = _CHECKS[name]
        try:
            part = check(settings)
        except Exception as error:  # a check that breaks reports it: it never stops the others
            part = Part(available=False, reason=f"{type(error).__name__}: {error}")
        if part is not None:
            parts[name] = part
    return parts


def missing_lines(parts: dict[str, Part]) -> list[str]:
    """One line per part that is not available: its name, why, and the fix."""
    return [
        f"{name}: {part.reason}" + (f" — {part.fix}" if part.fix else "")
        for name, part in parts.items()
        if not part.available
    ]


class PartsCache:
    """The checks, kept `PARTS_TTL_S` per process so a page load costs no network round trip."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: tuple[float, dict[str, Part]] | None = None

    def get(self, settings: Settings) -> dict[str, Part]:
        with self._lock:
            held = self._held
        if held is None or time.monotonic() - held[0] >= PARTS_TTL_S:
            held = (time.monotonic(), check_parts(settings))
            with self._lock:
                self._held = held
            return held[1]
        # The interpreter's check is its own short-lived probe, which looks again at once when
        # bubblewrap appears: a newly installed one shows on the next page load.
        return held[1] | check_parts(settings, ["interpreter"])


# ---- the checks -----------------------------------------------------------------------------


def _data(settings: Settings) -> Part:
    from datapilot.server.routes.health import data_coverage

    coverage = data_coverage(settings)
    if coverage.error is not None:
        return Part(available=False, required=True, reason=coverage.error, fix=coverage.fix or "")
    if not coverage.entities:
        return Part(
            available=False,
            required=True,
            reason="the warehouse holds no data",
            fix="run `datapilot data seed`",
        )
    return Part(available=True, required=True)


def _database(settings: Settings) -> Part:
    from datapilot.store import database_url, open_store

    url = database_url(settings)
    shown = url.render_as_string(hide_password=True)
    try:
        open_store(settings)
    except Exception as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[:1]
        said = reason[0] if reason else type(error).__name__
        return Part(
            available=False,
            required=True,
            reason=f"{shown} cannot be used: {said}",
            fix="fix DATAPILOT_DATABASE_URL (unset: SQLite in the data dir) or start that database",
        )
    return Part(available=True, required=True)


def _interpreter(settings: Settings) -> Part:
    from datapilot.interpreter.isolation import readiness

    ready = readiness(settings)
    return Part(available=ready.available, reason=ready.reason, fix=ready.fix)


def _chinese_font(settings: Settings) -> Part:
    from datapilot.render.charts import font_families

    if len(font_families()) > 1:
        return Part(available=True)
    return Part(
        available=False,
        reason="no font with Chinese glyphs: Chinese text in PNG charts shows as boxes",
        fix="`pip install mplfonts`, or install a CJK system font (e.g. fonts-noto-cjk)",
    )


def _redis(settings: Settings) -> Part | None:
    if settings.redis_url is None:
        return None  # not configured: counters live in the store
    fix = "start Redis at DATAPILOT_REDIS_URL, or unset it to keep counters in the store"
    if importlib.util.find_spec("redis") is None:
        return Part(available=False, reason="the redis package is not installed", fix=fix)
    import redis

    client = redis.Redis.from_url(
        settings.redis_url.get_secret_value(), socket_timeout=2, socket_connect_timeout=2
    )
    try:
        client.ping()
    except redis.RedisError as error:
        return Part(available=False, reason=f"Redis cannot be reached: {error}", fix=fix)
    finally:
        client.close()
    return Part(available=True)


def _model(settings: Settings) -> Part:
    from datapilot.model_client import resolve_config

    config = resolve_config(settings)
    if config is not None and settings.offline:
        return Part(
            available=False,
            reason="offline mode (DATAPILOT_OFFLINE) forbids reaching the model endpoint",
            fix="unset DATAPILOT_OFFLINE",
        )
    if config is None:
        return Part(
            available=False,
            reason="no model endpoint is configured: the offline reader answers",
            fix="set DATAPILOT_LLM_BASE_URL and DATAPILOT_LLM_MODEL (and DATAPILOT_LLM_API_KEY)",
        )
    fix = "check DATAPILOT_LLM_BASE_URL and that the endpoint is running"
    status = asyncio.run(_probe(config))
    if status is None:
        reason = f"the model endpoint {config.base_url} cannot be reached"
        return Part(available=False, reason=reason, fix=fix)
    if status in (401, 403):
        return Part(
            available=False,
            reason=f"the model endpoint {config.base_url} refuses the key ({status})",
            fix="check DATAPILOT_LLM_API_KEY",
        )
    if status >= 500:
        reason = f"the model endpoint {config.base_url} fails ({status})"
        return Part(available=False, reason=reason, fix=fix)
    return Part(available=True)


async def _probe(config: LLMConfig) -> int | None:
    """The model client's own probe of its endpoint (the SDK's request, key and base URL)."""
    from datapilot.model_client import LLMClient

    client = LLMClient(config)
    try:
        return await client.probe(timeout_s=_MODEL_TIMEOUT_S)
    finally:
        await client.aclose()


def _live_providers(settings: Settings) -> Part:
    from datapilot.data.providers.router import provider_names

    names = provider_names(settings)
    if settings.offline:
        return Part(
            available=False,
            reason="offline mode (DATAPILOT_OFFLINE) forbids live data",
            fix="unset DATAPILOT_OFFLINE",
        )
    if not names:
        return Part(
            available=False,
            reason="only the bundled data is configured",
            fix="`pip install 'datapilot[live]'`, then set DATAPILOT_PROVIDERS=bundled,yahoo,fred",
        )
    missing = [
        (name, *_PROVIDER_MODULES[name])
        for name in names
        if name in _PROVIDER_MODULES
        and importlib.util.find_spec(_PROVIDER_MODULES[name][0]) is None
    ]
    if missing:
        said = ", ".join(f"{name} needs {module}" for name, module, _ in missing)
        extras = " and ".join(f"`pip install 'datapilot[{extra}]'`" for _, _, extra in missing)
        return Part(available=False, reason=said, fix=extras)
    return Part(available=True)


_CHECKS: dict[str, Callable[[Settings], Part | None]] = {
    "data": _data,
    "database": _database,
    "interpreter": _interpreter,
    "chinese_font": _chinese_font,
    "redis": _redis,
    "model": _model,
    "live_providers": _live_providers,
}
#: The parts the server runs without (a line each at `datapilot serve`'s start when missing).
OPTIONAL = ("interpreter", "chinese_font", "redis", "model", "live_providers")
