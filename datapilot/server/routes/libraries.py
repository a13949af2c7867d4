"""Knowledge libraries over HTTP, under `/api/v1/libraries`: a caller's libraries, their
documents (uploaded as base64 JSON) and search with citations. Another tenant's libraries
answer 404 like libraries that do not exist."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, ConfigDict, Field

from datapilot.assistants.files import FileIn
from datapilot.knowledge import DocumentInfo, Libraries, LibraryInfo, SearchResult, read_upload
from datapilot.server.deps import CHAT, MANAGE, InStoreDep, SettingsDep, TenantDep
from datapilot.server.errors import VALIDATION_RESPONSES, Refused
from datapilot.server.store_calls import OwnedCalls, off_loop

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


class LibraryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=2000)


class SearchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(default=5, ge=1, le=50)


LibraryCalls = OwnedCalls[Libraries]


async def library_calls_of(
    tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> LibraryCalls:
    """The caller's libraries (a user's: a guest has none)."""
    if tenant.user_id is None:
        raise Refused("guests have no knowledge libraries")
    return LibraryCalls(Libraries, tenant.user_id, settings, in_store)


LibrariesDep = Annotated[LibraryCalls, Depends(library_calls_of)]


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
    ref: str, body: FileIn, libraries: LibrariesDep, settings: SettingsDep
) -> Any:
    await libraries(lambda x: x.get(ref), write=False)  # it exists, before reading
    # Read (and embed) outside the write transaction; then one transaction writes it all.
    upload = await off_loop(lambda: read_upload(settings, body.name, body.data(), body.mime))
    return await libraries(lambda x: x.add(ref, upload))


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
