"""The watches' scheduler: APScheduler 3's asyncio scheduler, one job per scheduled watch, in
`datapilot serve` (the app's lifespan).

Each replica runs the same jobs; a due run first claims its (watch, due time) row in the store
(`watch_claims`, unique), so exactly one replica runs it. The set of watches is read from the
store at start, after every change made on this server, and every `DATAPILOT_WATCH_SYNC_S` for
those made on others. A watch that missed due times while no server ran (found at start) runs
once for them, marked late, or skips them (its schedule's `missed` policy). Alerts are also
evaluated when the data change (`data.changes`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from datapilot.data.changes import DataChange, listen
from datapilot.settings import Settings
from datapilot.watching.triggers import last_missed, trigger_for, utc

if TYPE_CHECKING:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    from datapilot.store import Store
    from datapilot.watching.running import Runner

log = logging.getLogger(__name__)
_SYNC_JOB = "watches-sync"
_STOP_GRACE_S = 10.0  # how long a stopping server waits for the runs under way


def _due_executor() -> Any:
    """An executor that hands each run its scheduled time (APScheduler 3 gives run times to
    executors only): replicas claim the same (watch, due time) pair by it."""
    from apscheduler.executors.base import BaseExecutor

    class DueTimeExecutor(BaseExecutor):
        def start(self, scheduler: Any, alias: str) -> None:
            super().start(scheduler, alias)
            self._tasks: set[asyncio.Task[None]] = set()

        def shutdown(self, wait: bool = True) -> None:
            pass  # the scheduler's `stop` lets the runs under way end first (`runs`)

        def runs(self) -> set[asyncio.Task[None]]:
            return set(self._tasks)

        def _do_submit_job(self, job: Any, run_times: list[datetime]) -> None:
            async def run() -> None:
                for due in run_times:
                    await job.func(*job.args, due_at=due, **job.kwargs)

            task = asyncio.get_running_loop().create_task(run())
            self._tasks.add(task)

            def finished(done: asyncio.Task[None]) -> None:
                self._tasks.discard(done)
                error = None if done.cancelled() else done.exception()
                if error is None:
                    self._run_job_success(job.id, [])
                else:
                    self._run_job_error(job.id, error, error.__traceback__)

            task.add_done_callback(finished)

    return DueTimeExecutor()


class WatchScheduler:
    """Runs the store's active watches on their schedules, and their alerts on data changes."""

    def __init__(self, settings: Settings, store: Store, runner: Runner) -> None:
        self.settings = settings
        self.store = store
        self.runner = runner
        self.replica = f"{socket.gethostname()}:{os.getpid()}"
        self._scheduler: AsyncIOScheduler | None = None
        self._jobs: dict[str, str] = {}  # watch id -> the schedule its job runs (JSON)
        self._synced = False
        self._stop_listening: Callable[[], None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._executor: Any = None

    @property
    def running(self) -> bool:
        return self._scheduler is not None and self._scheduler.running

    async def start(self) -> None:
        """Start the scheduler (APScheduler is imported here, not when the server starts up)."""
        from apscheduler.schedulers.asyncio import AsyncIOScheduler

        self._loop = asyncio.get_running_loop()
        self._executor = _due_executor()
        scheduler = AsyncIOScheduler(
            executors={"default": self._executor},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
            timezone=UTC,
        )
        scheduler.start()
        self._scheduler = scheduler
        scheduler.add_job(
            self._sync_job, "interval", seconds=self.settings.watch_sync_s, id=_SYNC_JOB
        )
        self._stop_listening = listen(self.settings.warehouse_path, self._data_changed)
        await self.sync()

    async def stop(self) -> None:
        if self._stop_listening is not None:
            self._stop_listening()
            self._stop_listening = None
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
            self._scheduler = None
        # Runs under way end (their deliveries recorded) within the grace; then they are stopped.
        running = self._tasks | (self._executor.runs() if self._executor is not None else set())
        if running:
            _, late = await asyncio.wait(running, timeout=_STOP_GRACE_S)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)

    # ---- the set of watches -----------------------------------------------------------------

    async def sync(self) -> None:
        """Add, change and remove jobs to match the store's active scheduled watches."""
        scheduler = self._scheduler
        if scheduler is None:
            return
        watches = await asyncio.to_thread(self.runner.scheduled_watches)
        now = datetime.now(UTC)
        first, self._synced = not self._synced, True
        wanted: set[str] = set()
        for watch in watches:
            schedule = watch.spec.schedule
            if schedule is None or watch.status != "active":
                continue
            wanted.add(watch.id)
            shown = schedule.model_dump_json()
            if self._jobs.get(watch.id) == shown:
                continue
            trigger = trigger_for(schedule, watch.created_at)
            if first:  # what was missed while no server ran (not a pause's time)
                await self._catch_up(watch.id, trigger, schedule.missed, watch.created_at, now)
            scheduler.add_job(
                self._due,
                trigger,
                kwargs={"watch_id": watch.id},
                id=f"watch-{watch.id}",
                replace_existing=True,
            )
            self._jobs[watch.id] = shown
        for gone in set(self._jobs) - wanted:
            self._jobs.pop(gone)
            if scheduler.get_job(f"watch-{gone}") is not None:
                scheduler.remove_job(f"watch-{gone}")

    def resync(self) -> None:
        """Take a change made on this server (a watch added, paused, resumed, deleted) at once;
        call on the scheduler's event loop."""
        if self._scheduler is not None:
            self._spawn(self.sync())

    async def _sync_job(self, due_at: datetime | None = None) -> None:
        await self.sync()

    async def _catch_up(
        self, watch_id: str, trigger: Any, policy: str, created: datetime, now: datetime
    ) -> None:
        """A due time missed while no server ran: run it once (late), or skip it."""
        last = await asyncio.to_thread(self.runner.last_claimed, watch_id)
        missed = last_missed(trigger, max(utc(created), utc(last)) if last else created, now)
        if missed is None:
            return
        if policy == "skip":
            log.info("watch %s missed its run due %s; skipped (its policy)", watch_id, missed)
            return
        self._spawn(self._due(watch_id, due_at=missed))

    # ---- runs ---------------------------------------------------------------------------------

    async def _due(self, watch_id: str, due_at: datetime | None = None) -> None:
        """One due run (the executor passes its due time): claimed first, so that one replica
        runs it."""
        due = utc(due_at or datetime.now(UTC))
        claimed = await asyncio.to_thread(self.runner.claim, watch_id, due, self.replica)
        if not claimed:
            return
        late = (datetime.now(UTC) - due).total_seconds() > self.settings.watch_late_after_s
        try:
            await self.runner.run_due(watch_id, due, late=late)
        except Exception:
            log.exception("watch %s failed at its run due %s", watch_id, due)

    def _data_changed(self, change: DataChange) -> None:
        """Called in the writer's thread: the alerts' evaluation is handed to the event loop."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(lambda: self._spawn(self.runner.data_changed(change)))

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a watch task failed", exc_info=task.exception())

    async def settled(self) -> None:
        """Wait for the runs under way (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
