"""Knowledge libraries over HTTP, under `/api/v1/libraries`: a caller's libraries, their
documents (uploaded as base64 JSON) and search with citations. Another tenant's libraries
answer 404 like libraries that do not exist."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from datapilot.assistants.files import FileIn
from datapilot.assistants.models import Tenant
from datapilot.assistants.repo import PlatformError
from datapilot.knowledge import (
    DocumentInfo,
    KnowledgeError,
    Libraries,
    LibraryInfo,
    LibraryNotFound,
    SearchResult,
    UploadRefused,
    read_upload,
)
from datapilot.knowledge.embeddings import EmbeddingsError
from datapilot.server.errors import VALIDATION_RESPONSES
from datapilot.server.routes.platform import chat_scope, manage_scope, tenant_of
from datapilot.settings import Settings
from datapilot.store import Store

T = TypeVar("T")
router = APIRouter(
    prefix="/api/v1/libraries", tags=["Knowledge libraries"], responses=VALIDATION_RESPONSES
)
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "The request cannot be done as asked; `detail` says why."},
    404: {"description": "No such library or document for this caller."},
    413: {"description": "The document is over a limit; `detail` names the setting."},
    502: {"description": "The embeddings or rerank endpoint failed."},
}


class LimitExceeded(Exception):
    def __init__(self, message: str, setting: str) -> None:
        super().__init__(message)
        self.message, self.setting = message, setting


def limit_response(error: LimitExceeded) -> JSONResponse:
    """413 in the body limit's shape (`message`, `setting`), with `detail` like other errors."""
    body = {"message": error.message, "setting": error.setting, "detail": error.message}
    return JSONResponse(status_code=413, content=body)


class LibraryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=2000)


class SearchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(default=5, ge=1, le=50)


def _owner(tenant: Tenant) -> str:
    if tenant.user_id is None:
        raise HTTPException(403, "guests have no knowledge libraries")
    return tenant.user_id


async def _run(request: Request, work: Callable[[], T]) -> T:
    """Blocking `work` in a worker thread; knowledge errors become 4xx/502 answers."""
    try:
        return await anyio.to_thread.run_sync(work)
    except LibraryNotFound as error:
        raise HTTPException(404, str(error)) from None
    except UploadRefused as error:
        if error.setting is not None:  # over a limit: 413 naming it, as the body limit does
            raise LimitExceeded(str(error), error.setting) from None
        raise HTTPException(400, str(error)) from None
    except (KnowledgeError, PlatformError) as error:
        raise HTTPException(400, str(error)) from None
    except EmbeddingsError as error:
        raise HTTPException(502, str(error)) from None


def _libraries(request: Request, tenant: Tenant, write: bool, act: Callable[[Libraries], T]) -> T:
    store: Store = request.app.state.store
    settings: Settings = request.app.state.settings
    with store.session(write=write) as session:
        return act(Libraries(session, _owner(tenant), settings))


@router.post(
    "", response_model=LibraryInfo, status_code=201, dependencies=manage_scope, responses=ERRORS
)
async def create_library(
    body: LibraryIn, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    return await _run(
        request,
        lambda: _libraries(request, tenant, True, lambda x: x.create(body.name, body.description)),
    )


@router.get("", response_model=list[LibraryInfo], dependencies=chat_scope)
async def list_libraries(request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await _run(request, lambda: _libraries(request, tenant, False, lambda x: x.all()))


@router.get("/{ref}", response_model=LibraryInfo, dependencies=chat_scope, responses=ERRORS)
async def get_library(ref: str, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await _run(request, lambda: _libraries(request, tenant, False, lambda x: x.get(ref)))


@router.delete(
    "/{ref}", status_code=204, response_model=None, dependencies=manage_scope, responses=ERRORS
)
async def delete_library(
    ref: str, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Response:
    await _run(request, lambda: _libraries(request, tenant, True, lambda x: x.delete(ref)))
    return Response(status_code=204)


@router.post(
    "/{ref}/documents",
    response_model=DocumentInfo,
    status_code=201,
    dependencies=manage_scope,
    responses=ERRORS,
    summary="Add a document (PDF, HTML, Markdown, text, CSV, XLSX, DOCX) as base64",
)
async def add_document(
    ref: str, body: FileIn, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    settings: Settings = request.app.state.settings

    def work() -> DocumentInfo:
        _libraries(request, tenant, False, lambda x: x.get(ref))  # exists, before reading
        # Read (and embed) outside the write transaction; then one transaction writes it all.
        upload = read_upload(settings, body.name, body.data(), body.mime)
        return _libraries(request, tenant, True, lambda x: x.add(ref, upload))

    try:
        return await _run(request, work)
    except LimitExceeded as error:
        return limit_response(error)


@router.get(
    "/{ref}/documents",
    response_model=list[DocumentInfo],
    dependencies=chat_scope,
    responses=ERRORS,
)
async def list_documents(ref: str, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    return await _run(
        request, lambda: _libraries(request, tenant, False, lambda x: x.documents(ref))
    )


@router.delete(
    "/{ref}/documents/{document_id}",
    status_code=204,
    response_model=None,
    dependencies=manage_scope,
    responses=ERRORS,
)
async def delete_document(
    ref: str, document_id: str, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Response:
    await _run(
        request, lambda: _libraries(request, tenant, True, lambda x: x.remove(ref, document_id))
    )
    return Response(status_code=204)


@router.post(
    "/{ref}/search",
    response_model=SearchResult,
    dependencies=chat_scope,
    responses=ERRORS,
    summary="The passages that best match a query, with citations (file, page, offsets)",
)
async def search_library(
    ref: str, body: SearchIn, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    return await _run(
        request,
        lambda: _libraries(request, tenant, False, lambda x: x.search(ref, body.query, body.k)),
    )
