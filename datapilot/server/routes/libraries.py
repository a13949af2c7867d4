"""Knowledge libraries over HTTP, under `/api/v1/libraries`: a caller's libraries, their
documents (uploaded as base64 JSON) and search with citations. Another tenant's libraries
answer 404 like libraries that do not exist. A PDF of more than `JOB_PAGES` pages is read as a
job: 202 `{"job": …}` at once, then `GET …/jobs/{job_id}` (on any replica: jobs are in the
store) until it is done or failed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from datapilot.assistants.files import FileIn
from datapilot.data.documents.progress import reporting_pages
from datapilot.knowledge.errors import UploadRefused
from datapilot.knowledge.infos import DocumentInfo, LibraryInfo, SearchResult
from datapilot.knowledge.jobs import JOB_PAGES, JobProgress, UploadJob, UploadJobs, pdf_pages
from datapilot.server.deps import CHAT, MANAGE, InStoreDep, SettingsDep, TenantDep
from datapilot.server.errors import VALIDATION_RESPONSES, Refused
from datapilot.server.store_calls import OwnedCalls, off_loop

T = TypeVar("T")
log = logging.getLogger(__name__)
router = APIRouter(
    prefix="/api/v1/libraries", tags=["Knowledge libraries"], responses=VALIDATION_RESPONSES
)
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "The request cannot be done as asked; `detail` says why."},
    404: {"description": "No such library or document for this caller."},
    413: {"description": "The document is over a limit; `detail` names the setting."},
    202: {
        "description": f'A PDF of more than {JOB_PAGES} pages: `{{"job": …}}`, read after '
        "this answer; follow it at `GET /api/v1/libraries/{ref}/jobs/{job_id}`."
    },
    502: {"description": "The embeddings or rerank endpoint failed."},
}


class LibraryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=2000)


class SearchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(default=5, ge=1, le=50)


if TYPE_CHECKING:  # the libraries' machinery (readers, indexes, vectors) loads per request
    from datapilot.knowledge.library import Libraries

    LibraryCalls = OwnedCalls[Libraries]
else:
    LibraryCalls = OwnedCalls


async def library_calls_of(
    tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> LibraryCalls:
    """The caller's libraries (a user's: a guest has none)."""
    if tenant.user_id is None:
        raise Refused("guests have no knowledge libraries")
    from datapilot.knowledge.library import Libraries

    return LibraryCalls(Libraries, tenant.user_id, settings, in_store)


LibrariesDep = Annotated[LibraryCalls, Depends(library_calls_of)]
JobCalls = OwnedCalls[UploadJobs]


async def job_calls_of(libraries: LibrariesDep) -> JobCalls:
    """The caller's upload jobs (in the store: any replica answers a poll)."""
    return JobCalls(UploadJobs, libraries.owner, libraries.settings, libraries.in_store)


JobsDep = Annotated[JobCalls, Depends(job_calls_of)]


@router.post("", response_model=LibraryInfo, status_code=201, dependencies=MANAGE, responses=ERRORS)
async def create_library(body: LibraryIn, libraries: LibrariesDep) -> Any:
    return await libraries(lambda x: x.create(body.name, body.description))


@router.get("", response_model=list[LibraryInfo], dependencies=CHAT)
async def list_libraries(libraries: LibrariesDep) -> Any:
    return await libraries(lambda x: x.all())


@router.get("/{ref}", response_model=LibraryInfo, dependencies=CHAT, responses=ERRORS)
async def get_library(ref: str, libraries: LibrariesDep) -> Any:
    return await libraries(lambda x: x.get(ref))


@router.delete(
    "/{ref}", status_code=204, response_model=None, dependencies=MANAGE, responses=ERRORS
)
async def delete_library(ref: str, libraries: LibrariesDep) -> Response:
    await libraries(lambda x: x.delete(ref))
    return Response(status_code=204)


@router.post(
    "/{ref}/documents",
    response_model=DocumentInfo,
    status_code=201,
    dependencies=MANAGE,
    responses=ERRORS,
    summary="Add a document (PDF, HTML, Markdown, text, CSV, XLSX, DOCX) as base64",
)
async def add_document(
    ref: str,
    body: FileIn,
    libraries: LibrariesDep,
    jobs: JobsDep,
    settings: SettingsDep,
    in_store: InStoreDep,
    request: Request,
) -> Any:
    library = await libraries(lambda x: x.get(ref), write=False)  # it exists, before reading
    data = body.data()
    pages = await off_loop(lambda: pdf_pages(settings, body.name, data, body.mime))
    if pages > JOB_PAGES:
        job = await jobs(lambda x: x.start(library.id, body.name, pages), write=True)
        progress = JobProgress(in_store.store, job.id, settings)
        run = asyncio.create_task(_run_job(progress, job, libraries, settings, body, data))
        beat = asyncio.create_task(_beat(progress))
        run.add_done_callback(lambda _: beat.cancel())
        _keep(request, run, beat)
        return JSONResponse(
            {"job": job.model_dump(mode="json")},
            status_code=202,
            headers={"Location": f"/api/v1/libraries/{library.id}/jobs/{job.id}"},
        )
    from datapilot.knowledge.library import read_upload

    # Read (and embed) outside the write transaction; then one transaction writes it all.
    upload = await off_loop(lambda: read_upload(settings, body.name, data, body.mime))
    return await libraries(lambda x: x.add(ref, upload))


def _keep(request: Request, *tasks: asyncio.Task[Any]) -> None:
    """Hold a job's tasks until they end (the loop keeps only weak references to tasks)."""
    state = request.app.state
    if getattr(state, "upload_tasks", None) is None:
        state.upload_tasks = set()
    running: set[asyncio.Task[Any]] = state.upload_tasks
    for task in tasks:
        running.add(task)
        task.add_done_callback(running.discard)


async def _beat(progress: JobProgress) -> None:
    """The job's heartbeat while it runs: a poll tells a long embedding or write (no pages to
    count) from a job whose server stopped."""
    while True:
        await asyncio.sleep(progress.heartbeat_s)
        with contextlib.suppress(Exception):  # the store is away: the next beat retries
            await off_loop(progress.beat)


async def _run_job(
    progress: JobProgress,
    job: UploadJob,
    libraries: LibraryCalls,
    settings: Any,
    body: FileIn,
    data: bytes,
) -> None:
    """Read, then add, the upload of `job`, its row kept up to date; never raises."""

    from datapilot.knowledge.library import read_upload

    def read() -> Any:
        with reporting_pages(progress.pages):  # on the reading thread: writes off the loop
            return read_upload(settings, body.name, data, body.mime)

    try:
        try:
            upload = await off_loop(read)
            await off_loop(lambda: progress.write(state="writing", chunks=len(upload.chunks)))
            document = await libraries(lambda x: x.add(job.library, upload), write=True)
            changes: dict[str, Any] = {"state": "done", "document": document}
        except UploadRefused as error:
            changes = {"state": "failed", "error": str(error), "setting": error.setting}
        except Exception as error:  # the job reports every failure; nothing was added
            changes = {"state": "failed", "error": f"{type(error).__name__}: {error}"}
        await off_loop(lambda: progress.write(**changes))
    except Exception:  # the store cannot take the news: a poll reports the job stalled
        log.exception("upload job %s: its state could not be written", job.id)


@router.get(
    "/{ref}/jobs/{job_id}",
    response_model=UploadJob,
    dependencies=CHAT,
    responses=ERRORS,
    summary="An upload job: pages read, chunks, state (reading, writing, done, failed), error",
)
async def get_job(ref: str, job_id: str, libraries: LibrariesDep, jobs: JobsDep) -> Any:
    library = await libraries(lambda x: x.get(ref), write=False)
    return await jobs(lambda x: x.get(library.id, job_id), write=False)


@router.get(
    "/{ref}/documents",
    response_model=list[DocumentInfo],
    dependencies=CHAT,
    responses=ERRORS,
)
async def list_documents(ref: str, libraries: LibrariesDep) -> Any:
    return await libraries(lambda x: x.documents(ref))


@router.delete(
    "/{ref}/documents/{document_id}",
    status_code=204,
    response_model=None,
    dependencies=MANAGE,
    responses=ERRORS,
)
async def delete_document(ref: str, document_id: str, libraries: LibrariesDep) -> Response:
    await libraries(lambda x: x.remove(ref, document_id))
    return Response(status_code=204)


@router.post(
    "/{ref}/search",
    response_model=SearchResult,
    dependencies=CHAT,
    responses=ERRORS,
    summary="The passages that best match a query, with citations (file, page, offsets)",
)
async def search_library(ref: str, body: SearchIn, libraries: LibrariesDep) -> Any:
    return await libraries(lambda x: x.search(ref, body.query, body.k), write=False)
