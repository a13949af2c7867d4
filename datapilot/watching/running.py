"""One run of a watch, for its owner: a report's question answered by the pipeline, or an
alert's condition evaluated over the new rows of its data; each run recorded as a watch event
and delivered (`watching.delivery`).

A report is asked like a request of its owner (their imports, the server's brain and today); an
alert reads only what its owner reads. Store work runs in threads, the pipeline in a thread of
its own with its own event loop, so a run never holds up the server's requests.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from datapilot.core.answer import Answer
from datapilot.core.watches import EventStatus, WatchEvent, WatchInfo
from datapilot.data.changes import DataChange
from datapilot.settings import Settings
from datapilot.store.models import WatchClaim
from datapilot.store.watches import WatchRuns
from datapilot.watching.alerts import evaluate_alert
from datapilot.watching.delivery import deliver
from datapilot.watching.triggers import utc

if TYPE_CHECKING:
    from datapilot.store import Store

log = logging.getLogger(__name__)
_STATUS: dict[str, EventStatus] = {"ok": "ok", "no_data": "no_data"}


class Runner:
    """Runs watches of one store under one server's settings."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store

    # ---- the store, for the scheduler (blocking: called in threads) ---------------------------

    def scheduled_watches(self) -> list[WatchInfo]:
        with self.store.session() as session:
            return WatchRuns(session, self.settings).active()

    def last_claimed(self, watch_id: str) -> datetime | None:
        """The latest due time a replica claimed for this watch (None: never run)."""
        with self.store.session() as session:
            latest = select(func.max(WatchClaim.due_at)).where(WatchClaim.watch_id == watch_id)
            return session.scalar(latest)

    def claim(self, watch_id: str, due_at: datetime, replica: str) -> bool:
        """Claim one due time: True for the one replica that runs it."""
        with self.store.session(write=True) as session:
            runs = WatchRuns(session, self.settings)
            if runs.get(watch_id) is None:  # deleted meanwhile
                return False
            return runs.claim(watch_id, utc(due_at), by=replica)

    # ---- runs ---------------------------------------------------------------------------------

    async def run_due(self, watch_id: str, due_at: datetime, *, late: bool = False) -> None:
        """A claimed due time: a report answers its question; an alert reads its new rows."""
        watch = await asyncio.to_thread(self._watch, watch_id)
        if watch is None or watch.status != "active":
            return
        if watch.kind == "report":
            await self.run_report(watch, due_at, late=late)
        else:
            await self.run_alert(watch, due_at=due_at, late=late)

    async def run_report(
        self, watch: WatchInfo, due_at: datetime | None = None, *, late: bool = False
    ) -> WatchEvent:
        """Answer the report's question for its owner, record it and deliver it."""
        question = watch.spec.question or watch.text
        answer = await self.ask(question, watch.owner_id)
        status = _STATUS.get(answer.status, "error")
        error = None if status != "error" else (answer.message or answer.status)

        def record() -> WatchEvent:
            with self.store.session(write=True) as session:
                return WatchRuns(session, self.settings).record(
                    watch.id,
                    kind="report",
                    status=status,
                    due_at=utc(due_at) if due_at else None,
                    day=answer.today,
                    result=answer.model_dump(mode="json"),
                    error=error,
                    late=late,
                )

        event = await asyncio.to_thread(record)
        return await deliver(self.settings, self.store, watch, event, answer)

    async def run_alert(
        self,
        watch: WatchInfo,
        *,
        due_at: datetime | None = None,
        late: bool = False,
        change: DataChange | None = None,
    ) -> list[WatchEvent]:
        """Evaluate the alert over its rows not yet read; record and deliver each firing."""
        events = await asyncio.to_thread(
            evaluate_alert, self.settings, self.store, watch, due_at, late, change
        )
        delivered = []
        for event in events:
            delivered.append(await deliver(self.settings, self.store, watch, event, None))
        return delivered

    async def data_changed(self, change: DataChange) -> list[WatchEvent]:
        """Rows were added: the alerts that read them (their owner's, or everyone's for data
        everyone reads) look at the new rows, in date order."""

        def alerts() -> list[WatchInfo]:
            with self.store.session() as session:
                return WatchRuns(session, self.settings).alerts_on(change.ids, change.owner)

        fired: list[WatchEvent] = []
        for watch in await asyncio.to_thread(alerts):
            try:
                fired += await self.run_alert(watch, change=change)
            except Exception:
                log.exception("alert %s failed on new data for %s", watch.id, change.ids)
        return fired

    async def ask(self, question: str, owner: str) -> Answer:
        """The pipeline's answer to `question` as a request of `owner` would get it."""
        from datapilot.core.context import QuestionContext

        context = QuestionContext(
            today=self.settings.effective_today(),
            brain=self.settings.brain,
            offline=self.settings.offline,
            data_owner=owner,
        )
        try:
            return await asyncio.to_thread(_answer_blocking, question, context, self.settings)
        except Exception as error:  # a failure is the run's result, never the scheduler's
            log.exception("a watch's question failed: %r", question)
            return Answer(
                query=question,
                today=context.today,
                status="error",
                message=f"Something failed while answering: {type(error).__name__}: {error}",
            )

    def _watch(self, watch_id: str) -> WatchInfo | None:
        with self.store.session() as session:
            return WatchRuns(session, self.settings).get(watch_id)


def _answer_blocking(question: str, context: object, settings: Settings) -> Answer:
    """Build the request's context and run the pipeline to its answer, in this thread."""
    from datapilot.brains import answer
    from datapilot.core.context import QuestionContext
    from datapilot.engine.context import RequestContext

    assert isinstance(context, QuestionContext)
    request = RequestContext.for_request(context, settings)

    async def bounded() -> Answer:
        async with asyncio.timeout(settings.request_timeout_s):
            return await answer(question, request)

    try:
        return asyncio.run(bounded())
    except TimeoutError:
        return Answer(
            query=question,
            today=context.today,
            status="error",
            message=f"The report took longer than {settings.request_timeout_s:g} s and was "
            "stopped (DATAPILOT_REQUEST_TIMEOUT_S).",
        )
