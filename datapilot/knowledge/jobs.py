"""Upload jobs: a PDF of more than `JOB_PAGES` pages is read after the upload is answered
(202 with the job), and its owner follows the job (pages read, chunks, state, error) instead of
holding a request open for the whole read.

Jobs live in the server process that took the upload (kept for the last `KEEP` uploads): a
client polls the server it uploaded to. A job is its owner's: another user's poll finds nothing.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from datapilot.data.documents import ReadLimits, within
from datapilot.knowledge.chunking import format_of
from datapilot.knowledge.library import DocumentInfo, LibraryNotFound
from datapilot.settings import Settings
from datapilot.store.models import utcnow

JOB_PAGES = 20
KEEP = 500
JobState = Literal["reading", "writing", "done", "failed"]


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


class UploadJobs:
    """One server's upload jobs, each with its owner."""

    def __init__(self, keep: int = KEEP) -> None:
        self._jobs: OrderedDict[str, tuple[str, UploadJob]] = OrderedDict()
        self._lock = threading.Lock()
        self.keep = keep
        self.running: set[object] = set()  # the jobs' tasks, held until they end

    def start(self, owner: str, library: str, name: str, pages: int) -> UploadJob:
        job = UploadJob(id=uuid.uuid4().hex, library=library, name=name, pages=pages)
        with self._lock:
            self._jobs[job.id] = (owner, job)
            while len(self._jobs) > self.keep:
                self._jobs.popitem(last=False)
        return job

    def update(self, job_id: str, **changes: object) -> None:
        with self._lock:
            found = self._jobs.get(job_id)
            if found is not None:
                owner, job = found
                self._jobs[job_id] = (owner, job.model_copy(update=changes))

    def get(self, owner: str, library: str, job_id: str) -> UploadJob:
        """The owner's job on `library` (its id); `LibraryNotFound` for any other."""
        with self._lock:
            found = self._jobs.get(job_id)
        if found is None or found[0] != owner or found[1].library != library:
            raise LibraryNotFound(
                f"no upload job {job_id!r} in this library (jobs are kept by the server that "
                "took the upload, for its last uploads); list the documents to see what was added"
            )
        return found[1]


def pdf_pages(settings: Settings, name: str, data: bytes, mime: str | None = None) -> int:
    """How many pages the upload has when it is a PDF (its streams measured first), else 0;
    0 too when it cannot be read, so that reading it says why."""
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
