"""The FastAPI application: its middleware (keys, limits, CORS), its error handlers, and the
routes the `register_routes` hook adds (`server.plugin`)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles

from datapilot import __version__
from datapilot.plugins import plugin_manager
from datapilot.server.auth import (
    ApiKeyMiddleware,
    AuthRefusal,
    KeyGate,
    auth_refusal_handler,
    confine_bound_key,
    is_public,
)
from datapilot.server.browser_guard import BrowserGuard, FormPostGuard
from datapilot.server.docs import declare_bearer, mount_docs
from datapilot.server.errors import NATIVE_ERRORS, native_error_handler
from datapilot.server.limits import RequestLimitsMiddleware
from datapilot.settings import Settings, get_settings
from datapilot.store import open_store
from datapilot.store.shared_data import replica_log

if TYPE_CHECKING:
    from datapilot.watching.scheduler import WatchScheduler

_ASSETS = Path(__file__).parent / "assets"
log = logging.getLogger(__name__)
# How long, in all, the warm-up waits for requests to be answered before it goes on regardless.
_WARM_UP_YIELD_S = 60.0
# Quiet seconds (no answer in progress) before the warm-up's heavy stages start.
_WARM_UP_QUIET_S = 1.5


@asynccontextmanager
async def _warmed_up(app: FastAPI) -> AsyncIterator[None]:
    """Serve at once and pay the one-time costs in the background (off the event loop).

    `datapilot serve` binds its port before the app is built, so the warm-up starts with the
    port already open: start-up waits for nothing a request can pay for, and the first
    question finds the warehouse, the library and the brain's vocabulary ready, or shares
    whatever part of that work is still under way."""
    from datapilot.server.parts import parts_of

    # The model endpoint is probed in the background too: a dead one delays neither start-up
    # nor `/api/v1/features`.
    parts_of(app).model.start()
    stop = threading.Event()
    warming = asyncio.create_task(_warm_up(app, stop))
    try:
        async with _watching(app):
            yield
    finally:
        stop.set()  # a warm-up still under way ends after its current stage
        await asyncio.shield(warming)
        # Kernels die with their server: stopped here, at the graceful shutdown a SIGTERM
        # starts (and killed by the kernel's own death signal, should the server die harder).
        from datapilot.interpreter.sessions import close_pools

        await asyncio.to_thread(close_pools)
        if app.state.shares_data:  # the store goes with the server: stop reading its log
            from datapilot.data.shared import unshare

            unshare(app.state.settings.warehouse_path)
        # Collectable again at shutdown, as Python's own exit expects (native extensions
        # report frozen objects as leaks).
        gc.unfreeze()


@asynccontextmanager
async def _watching(app: FastAPI) -> AsyncIterator[None]:
    """The watches' scheduler (`watching`), started in the background so that it delays
    nothing a request waits for, and stopped with the server."""
    if not (app.state.run_watches and app.state.settings.watch_scheduler):
        yield
        return
    from datapilot.watching import start_watching

    made: list[WatchScheduler] = []

    async def start() -> None:
        # Built off the event loop (its scheduler library and runner load here), once the
        # server serves: nothing of it comes before the first request.
        scheduler = await asyncio.to_thread(start_watching, app.state.settings, app.state.store)
        made.append(scheduler)
        app.state.watches = scheduler
        await scheduler.start()

    starting = asyncio.create_task(start())
    try:
        yield
    finally:
        app.state.watches = None
        if not starting.done():
            starting.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await starting
        for scheduler in made:
            await scheduler.stop()


@asynccontextmanager
async def _watches_only(app: FastAPI) -> AsyncIterator[None]:
    """The lifespan of an app built without its warm-up but with its watches (tests)."""
    async with _watching(app):
        yield


async def _warm_up(app: FastAPI, stop: threading.Event) -> None:
    """`engine.pipeline.warm_up` in a thread, then what it built kept out of the collector.

    Each stage waits while requests are answered, and the heavy ones (the forecasting models,
    the documents' readers) for a quiet moment too (at most `_WARM_UP_YIELD_S` in all): a
    question asked meanwhile, typically the first one right after `/health` answers, does not
    share the CPU (and the GIL) with imports it does not need."""
    from datapilot.server.workers import quiet_for, running_streams

    deadline = time.monotonic() + _WARM_UP_YIELD_S

    def pause(stage: str) -> None:
        quiet = _WARM_UP_QUIET_S if stage in ("models", "documents") else 0.0
        while not stop.is_set() and time.monotonic() < deadline:
            if not running_streams() and quiet_for() >= quiet:
                return
            time.sleep(0.02)

    def warm() -> dict[str, float]:
        # Imported in the thread: the engine's import (pandas, DuckDB; ~1 s of CPU) on the
        # event loop held the first `/health` until it was done.
        from datapilot.engine.pipeline import warm_up

        return warm_up(app.state.settings, stop, pause)

    timings = await asyncio.to_thread(warm)
    log.info("warmed up in %.0f ms: %s", sum(timings.values()), timings)
    if stop.is_set():
        return
    # What start-up built (modules, models, the warehouse's catalog, the brain's vocabulary)
    # lives as long as the server: kept out of the collector's full passes, which otherwise
    # walked it every few seconds under load, stopping every request for ~0.3 s each time.
    gc.collect()
    gc.freeze()


def create_app(
    settings: Settings | None = None, *, warm_up: bool = True, watches: bool | None = None
) -> FastAPI:
    """Build the app; `settings` default to the process-wide ones. With `warm_up` (the default)
    the server pays its one-time costs in the background once it serves (see
    `engine.pipeline.warm_up`), so the first request is about as fast as later ones. `watches`
    (default: as `warm_up`) runs the watches' scheduler while the app's lifespan lasts
    (`DATAPILOT_WATCH_SCHEDULER` may turn it off)."""
    settings = settings or get_settings()
    watching = warm_up if watches is None else watches
    app = FastAPI(
        lifespan=_warmed_up if warm_up else (_watches_only if watching else None),
        # One rule for every route, a plugin's included: a key bound to an assistant reaches
        # that assistant's routes only.
        dependencies=[Depends(confine_bound_key)],
        title="Datapilot",
        version=__version__,
        # /openapi.json is the published plugin's spec (`server.publish`); /docs reads this one.
        openapi_url="/api/openapi.json",
        # `/docs` is served from local files (`docs.mount_docs`); ReDoc would need a CDN.
        docs_url=None,
        redoc_url=None,
        description=(
            "A data copilot for finance. `/v1/query` speaks the OpenBB Workspace agent "
            "protocol; `/api/v1/ask` is the native API (Answer JSON or LMC chunks); `/run` and "
            "`/mcp` publish Datapilot as a plugin (`/.well-known/ai-plugin.json`)."
        ),
    )
    app.state.settings = settings
    app.state.run_watches = watching
    app.state.watches = None  # the scheduler, while the lifespan runs it
    # The store is migrated before the first request (a clear error here stops start-up).
    app.state.store = store = open_store(settings)
    log = replica_log(store)
    app.state.shares_data = log is not None
    if log is not None:  # replicas on one PostgreSQL: what users add to the data is shared
        from datapilot.data.shared import share  # pandas: only replicas pay for it here

        share(settings.warehouse_path, log)
    # Added before CORS, so CORS wraps it: preflights pass and refusals carry CORS headers.
    app.state.key_gate = gate = KeyGate(store, settings.auth_cache_s)
    # Innermost: every route, those added later included, gets the body limit and the limits of
    # this app's settings, then the form-shaped POST check (`browser_guard`).
    app.add_middleware(FormPostGuard)
    app.add_middleware(RequestLimitsMiddleware, settings=settings)
    app.add_middleware(ApiKeyMiddleware, gate=gate)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_origin_regex=settings.cors_origin_regex or None,
        allow_credentials=True,
        allow_methods=["*"],
        allow_headers=["*"],
    )
    # Outermost: a foreign Host, a foreign Origin or a form-shaped POST is refused before CORS,
    # the keys or any route sees it (`browser_guard`).
    app.add_middleware(BrowserGuard, settings=settings)
    # One handler per API family: the native one (the OpenAI face catches its own errors
    # first, see `routes.openai`), and the door's, whose refusals keep their shape everywhere.
    for kind in NATIVE_ERRORS:
        app.add_exception_handler(kind, native_error_handler)
    app.add_exception_handler(AuthRefusal, auth_refusal_handler)
    plugin_manager().hook.register_routes(app=app)
    app.mount("/assets", StaticFiles(directory=_ASSETS), name="assets")
    mount_docs(app)
    declare_bearer(app, is_public)
    return app
