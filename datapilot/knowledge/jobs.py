"""Upload jobs: a PDF of more than `JOB_PAGES` pages is read after the upload is answered
(202 with the job), and its owner follows the job (pages read, chunks, state, error) instead of
holding a request open for the whole read.

Jobs live in the store (`library_jobs`), so a poll reaching any replica, or the same server after
a restart, finds them; each user keeps the last `KEEP`. A job is its owner's: another user's poll
finds nothing. The server reading a job writes its progress (`JobProgress`); a job that has had
no news for `kb_job_stall_s` was left by a server that stopped, and reads as failed.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from datapilot.data.documents.limits import ReadLimits, within
from datapilot.knowledge.errors import LibraryNotFound
from datapilot.knowledge.infos import DocumentInfo
from datapilot.settings import Settings
from datapilot.store import Store
from datapilot.store.models import LibraryJob, utcnow

log = logging.getLogger(__name__)
JOB_PAGES = 20
KEEP = 100  # jobs kept per user: the newest
PAGES_EVERY_S = 0.5  # pages read are written at most this often; state changes always
JobState = Literal["reading", "writing", "done", "failed"]
RUNNING = ("reading", "writing")


class UploadJob(BaseModel):
    id: str
    library: str = Field(description="The library's id.")
    name: str = Field(description="The document's name.")
    state: JobState = "reading"
    pages: int = Field(description="Pages of the document.")
    pages_done: int = Field(default=0, description="Pages read so far.")
    chunks: int = Field(default=0, description="Chunks cut, once read.")
    error: str | None = Field(default=None, description="Why it failed, when it did.")
    setting: str | None = Field(default=None, description="The limit a refused upload passed.")
    document: DocumentInfo | None = Field(default=None, description="The document, once added.")
    created_at: datetime = Field(default_factory=utcnow)


def stopped_error(name: str, stall_s: float) -> str:
    return (
        f"the server reading {name} stopped before the document was read (no news of the job "
        f"for over {stall_s:g} s); nothing was added: upload it again"
    )


def _job_of(row: LibraryJob, stall_s: float) -> UploadJob:
    job = UploadJob(
        id=row.id,
        library=row.library_id,
        name=row.name,
        state=row.state,  # type: ignore[arg-type]
        pages=row.pages,
        pages_done=row.pages_done,
        chunks=row.chunks,
        error=row.error,
        setting=row.setting,
        document=DocumentInfo.model_validate(row.document) if row.document else None,
        created_at=row.created_at,
    )
    if job.state in RUNNING and utcnow() - row.updated_at > timedelta(seconds=stall_s):
        # A live job writes at least every quarter of the stall limit: this one's server died.
        return job.model_copy(update={"state": "failed", "error": stopped_error(job.name, stall_s)})
    return job


class UploadJobs:
    """One user's upload jobs in the store (`repo(session, owner, settings)`, like `Libraries`)."""

    def __init__(self, session: Session, owner_id: str, settings: Settings) -> None:
        self.session, self.owner_id, self.settings = session, owner_id, settings

    def start(self, library: str, name: str, pages: int) -> UploadJob:
        """A new job reading `name` into `library` (its id); the user's oldest beyond `KEEP` go."""
        row = LibraryJob(
            owner_id=self.owner_id, library_id=library, name=name, state="reading", pages=pages
        )
        self.session.add(row)
        self.session.flush()
        stale = (
            select(LibraryJob.id)
            .where(LibraryJob.owner_id == self.owner_id)
            .order_by(LibraryJob.created_at.desc(), LibraryJob.id)
            .offset(KEEP)
        )
        old = list(self.session.scalars(stale))
        if old:
            self.session.execute(delete(LibraryJob).where(LibraryJob.id.in_(old)))
        return _job_of(row, self.settings.kb_job_stall_s)

    def get(self, library: str, job_id: str) -> UploadJob:
        """The user's job on `library` (its id); `LibraryNotFound` for any other."""
        row = self.session.scalars(
            select(LibraryJob).where(
                LibraryJob.id == job_id,
                LibraryJob.owner_id == self.owner_id,
                LibraryJob.library_id == library,
            )
        ).one_or_none()
        if row is None:
            raise LibraryNotFound(
                f"no upload job {job_id!r} in this library (jobs are kept for each user's last "
                f"{KEEP} uploads); list the documents to see what was added"
            )
        return _job_of(row, self.settings.kb_job_stall_s)


class JobProgress:
    """What the server reading a job writes to its row: pages read (at most every
    `PAGES_EVERY_S`, and the last page), state changes, and a heartbeat while it runs. Each
    call is one short store transaction: call it off the event loop."""

    def __init__(self, store: Store, job_id: str, settings: Settings) -> None:
        self.store, self.job_id = store, job_id
        # Often enough that a live job never looks stalled, even on a loaded machine.
        self.heartbeat_s = min(settings.kb_job_stall_s / 4, 30.0)
        self._last = 0.0
        self._lock = threading.Lock()

    def write(self, **changes: Any) -> None:
        """Set `changes` (and the time of this news) on the job's row."""
        if "document" in changes and isinstance(changes["document"], BaseModel):
            changes["document"] = changes["document"].model_dump(mode="json")
        with self.store.session(write=True) as session:
            session.execute(
                update(LibraryJob)
                .where(LibraryJob.id == self.job_id)
                .values(**changes, updated_at=utcnow())
            )

    def pages(self, done: int, total: int) -> None:
        """A page listener (`reporting_pages`): writes when due, and at the last page."""
        now = time.monotonic()
        with self._lock:
            if done < total and now - self._last < PAGES_EVERY_S:
                return
            self._last = now
        try:
            self.write(pages_done=done)
        except Exception:  # a missed count is no reason to stop reading: the next one comes
            log.warning("upload job %s: pages read not written", self.job_id, exc_info=True)

    def beat(self) -> None:
        """The job is alive (no other change)."""
        self.write()


def pdf_pages(settings: Settings, name: str, data: bytes, mime: str | None = None) -> int:
    """How many pages the upload has when it is a PDF (its streams measured first), else 0;
    0 too when it cannot be read, so that reading it says why."""
    from datapilot.knowledge.chunking import format_of  # the documents' readers, when used

    if format_of(name, data, mime or "") != "pdf":
        return 0

    def count(reading: object) -> int:
        from datapilot.data.documents.limits import measure_pdf_streams
        from datapilot.data.documents.pdf_text import open_pdf

        measure_pdf_streams(data, reading)  # type: ignore[arg-type]
        pdf = open_pdf(data, name)
        try:
            return len(pdf)
        finally:
            pdf.close()

    try:
        return within(name, ReadLimits.of(settings), count)
    except Exception:  # over a limit, broken or locked (pdfminer's errors too): reading says why
        return 0
