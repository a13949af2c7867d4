"""What this installation has and what it misses: one check per part, shared by
`GET /api/v1/features` (its `parts`), `datapilot serve` (a line per missing optional part at start)
and `datapilot doctor`.

A part is required when nothing works without it (the data, the store); every other part is
optional: without it one piece is off (Code mode, Chinese in PNG charts, live data, the model),
and the check says why and what fixes it.

The model endpoint is the one part asked over the network. The server never waits for it: a
`ModelWatch` probes it in a thread of its own (at start-up, and again when its state is older
than `PARTS_TTL_S` and someone reads it) and answers with its last known state, "checking"
until the first probe ends. `datapilot doctor` waits for the probe, at most `MODEL_TIMEOUT_S`.
"""

from __future__ import annotations

import asyncio
import importlib.util
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from datapilot.settings import Settings

if TYPE_CHECKING:
    from fastapi import FastAPI

    from datapilot.model_client import LLMConfig

#: How long `/api/v1/features` keeps the checks, and the model endpoint's last probe.
PARTS_TTL_S = 10.0
#: The model endpoint's probe: connecting takes at most `MODEL_CONNECT_S`, all of it at most
#: `MODEL_TIMEOUT_S` (a host that drops connection attempts is told from a slow one sooner).
MODEL_TIMEOUT_S = 3.0
MODEL_CONNECT_S = 1.5
# The live providers and the module each needs (their extra installs it).
_PROVIDER_MODULES = {"yahoo": ("yfinance", "live"), "akshare": ("akshare", "china")}


class Part(BaseModel):
    """One part of the installation: whether it works, and if not, why and the fix."""

    available: bool
    required: bool = Field(default=False, description="Nothing works without it.")
    reason: str = Field(default="", description="Why it is not available.")
    fix: str = Field(default="", description="What makes it available.")
    checking: bool = Field(
        default=False,
        description="Its first check is under way (the model endpoint's probe), so `available` "
        "is not known yet.",
    )


def check_parts(settings: Settings, names: Iterable[str] | None = None) -> dict[str, Part]:
    """Every part (or those `names`), checked now; a model endpoint is asked with a short
    timeout. Redis appears only when configured."""
    return dict(each_part(settings, names))


def each_part(settings: Settings, names: Iterable[str] | None = None) -> Iterator[tuple[str, Part]]:
    """The parts of `check_parts`, each as soon as it is checked (one at a time, in order)."""
    for name in names or _CHECKS:
        check = _CHECKS[name]
        try:
            part = check(settings)
        except Exception as error:  # a check that breaks reports it: it never stops the others
            part = Part(available=False, reason=f"{type(error).__name__}: {error}")
        if part is not None:
            yield name, part


def missing_lines(parts: dict[str, Part]) -> list[str]:
    """One line per part that is not available: its name, why, and the fix."""
    return [
        f"{name}: {part.reason}" + (f" — {part.fix}" if part.fix else "")
        for name, part in parts.items()
        if not part.available
    ]


def parts_of(app: FastAPI) -> PartsCache:
    """The checks of the server `app`, made at their first use."""
    cache: PartsCache | None = getattr(app.state, "parts", None)
    if cache is None:
        cache = app.state.parts = PartsCache(app.state.settings)
    return cache


class PartsCache:
    """The checks of one server, kept `PARTS_TTL_S` so a page load costs no round trip; the
    model endpoint's part is `model`'s last known state, never waited for."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.model = ModelWatch(settings)
        self._lock = threading.Lock()
        self._held: tuple[float, dict[str, Part]] | None = None

    def get(self) -> dict[str, Part]:
        with self._lock:
            held = self._held
        if held is None or time.monotonic() - held[0] >= PARTS_TTL_S:
            held = (time.monotonic(), check_parts(self.settings, _LOCAL))
            with self._lock:
                self._held = held
            parts = held[1]
        else:
            # The interpreter's check is its own short-lived probe, which looks again at once
            # when bubblewrap appears: a newly installed one shows on the next page load.
            parts = held[1] | check_parts(self.settings, ["interpreter"])
        parts = parts | {"model": self.model.current()}
        return {name: parts[name] for name in _CHECKS if name in parts}


class ModelWatch:
    """The model endpoint's last known state, probed in a thread of its own so that reading it
    never waits on the network (nor holds an event loop): "checking" until the first probe ends,
    then the probe's finding, probed again in the background once older than `PARTS_TTL_S`."""

    def __init__(self, settings: Settings) -> None:
        try:  # a Part when the settings alone decide it
            self._settled = _model_settled(settings)
        except Exception as error:  # a configuration that breaks is reported, not raised
            self._settled = Part(available=False, reason=f"{type(error).__name__}: {error}")
        self._lock = threading.Lock()
        self._found: Part | None = None
        self._found_at = -math.inf
        self._probing = False

    @property
    def settled(self) -> Part | None:
        """The part when the settings alone decide it (no endpoint, offline): no probe then."""
        return self._settled if isinstance(self._settled, Part) else None

    def start(self) -> None:
        """Probe the endpoint now, in the background, unless a probe is under way."""
        config = self._settled
        if isinstance(config, Part):
            return
        with self._lock:
            if self._probing:
                return
            self._probing = True
        thread = threading.Thread(target=self._probe, args=(config,), daemon=True)
        thread.start()

    def current(self) -> Part:
        """The last known state, at once; a stale one is probed again in the background."""
        config = self._settled
        if isinstance(config, Part):
            return config
        with self._lock:
            found, age = self._found, time.monotonic() - self._found_at
        if age >= PARTS_TTL_S:
            self.start()
        if found is not None:
            return found
        return Part(
            available=False,
            checking=True,
            reason=f"checking whether the model endpoint {config.shown_url} answers "
            f"(at most {MODEL_TIMEOUT_S:g} s)",
        )

    def _probe(self, config: LLMConfig) -> None:
        try:
            found = asyncio.run(probe_model(config))
        except Exception as error:  # a probe that breaks says so: it never ends the watch
            found = Part(available=False, reason=f"{type(error).__name__}: {error}")
        with self._lock:
            self._found, self._found_at, self._probing = found, time.monotonic(), False


# ---- the checks -----------------------------------------------------------------------------


def _data(settings: Settings) -> Part:
    from datapilot.server.coverage import data_coverage

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
    from datapilot.render.fonts import has_chinese_font

    if has_chinese_font():
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
    """The model endpoint's part, waiting for its probe (at most `MODEL_TIMEOUT_S`)."""
    settled = _model_settled(settings)
    return settled if isinstance(settled, Part) else asyncio.run(probe_model(settled))


def _model_settled(settings: Settings) -> Part | LLMConfig:
    """The model's part when the settings alone decide it (none configured, offline mode),
    else the endpoint to probe."""
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
    return config


async def probe_model(config: LLMConfig) -> Part:
    """The model client's own probe of its endpoint (the SDK's request, key and base URL); what
    it finds also tells the brains whether to wait on that endpoint (`model_client.health`)."""
    from datapilot.model_client import LLMClient
    from datapilot.model_client.health import mark_down, mark_up

    client = LLMClient(config)
    try:
        found = await client.probe(timeout_s=MODEL_TIMEOUT_S, connect_s=MODEL_CONNECT_S)
    finally:
        await client.aclose()
    status = found.status
    # As `health.reachable` would conclude: any answer means reachable.
    (mark_down if status is None else mark_up)(config.endpoint_key)
    fix = "check DATAPILOT_LLM_BASE_URL and that the endpoint is running"
    if status is None:
        reason = f"the model endpoint {config.shown_url} cannot be reached: {found.problem}"
        return Part(available=False, reason=reason, fix=fix)
    if status in (401, 403):
        return Part(
            available=False,
            reason=f"the model endpoint {config.shown_url} refuses the key ({status})",
            fix="check DATAPILOT_LLM_API_KEY",
        )
    if status >= 500:
        reason = f"the model endpoint {config.shown_url} fails ({status})"
        return Part(available=False, reason=reason, fix=fix)
    return Part(available=True)


def _live_providers(settings: Settings) -> Part:
    from datapilot.data.providers.names import provider_names

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
# Checked on this machine, without waiting on the network for long (the model endpoint is).
_LOCAL = [name for name in _CHECKS if name != "model"]
#: The parts the server runs without (a line each at `datapilot serve`'s start when missing).
OPTIONAL = ("interpreter", "chinese_font", "redis", "model", "live_providers")
