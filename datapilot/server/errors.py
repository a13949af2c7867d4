"""Request errors, said once: the `ApiError` hierarchy routes raise, the domain errors of the
repositories mapped onto it (`DOMAIN_ERRORS`), the 422 answer of a malformed request, and the
native family's one exception handler.

Each API family answers these in its own shape: the native `/api/v1` routes and the OpenBB
agent's as `{message, code, detail}` (`native_error_handler`, registered by `app`); the
OpenAI-compatible routes as OpenAI's `{"error": {...}}` (`routes.openai`, and `openai_body`
for the door's refusals and unknown paths under `/v1`, see `openai_face`). Refusals at the door
(`auth`) answer `{message, code, detail}` on every other route, the native shape."""

from __future__ import annotations

from typing import Any, ClassVar

from fastapi import Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

# The domain errors come from modules of their own: mapping them imports none of the machinery
# that raises them (repositories, libraries, tools), which a request loads when it needs it.
from datapilot.assistants import errors as repo
from datapilot.assistants.errors import NormalisationError
from datapilot.knowledge.errors import (
    EmbeddingsError,
    KnowledgeError,
    LibraryNotFound,
    UploadRefused,
)
from datapilot.net.errors import OutboundError
from datapilot.store.accounts import AccountError
from datapilot.store.watches import WatchError, WatchLimitReached, WatchNotFound
from datapilot.tools.errors import (
    ArgumentsError,
    MCPError,
    SecretsError,
    SourceError,
    SourceNotFound,
)

# --- the OpenAI-compatible family's shape -----------------------------------------------------

# OpenBB's agent routes live under /v1 too; every other path there is the OpenAI-compatible face.
_OPENBB_PATHS = frozenset({"/v1/query", "/v1/feedback"})
# OpenAI's `type` for each status (its SDKs pick the exception class by status alone).
_OPENAI_TYPES = {
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


class OpenAIError(BaseModel):
    message: str
    type: str = "invalid_request_error"
    param: str | None = Field(default=None, description="The field at fault, as a dotted path.")
    code: str | None = None


class OpenAIErrorBody(BaseModel):
    """The body of the OpenAI-compatible face's errors, in OpenAI's shape (its SDKs read it)."""

    error: OpenAIError


def openai_face(path: str) -> bool:
    """Whether `path` belongs to the OpenAI-compatible face (its errors in OpenAI's shape)."""
    return path.startswith("/v1/") and path not in _OPENBB_PATHS


def openai_body(status: int, message: str, code: str | None, param: str | None = None) -> Any:
    """An error body in OpenAI's shape, its `type` the one OpenAI gives the status."""
    kind = _OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    error = OpenAIError(message=message, type=kind, param=param, code=code)
    return OpenAIErrorBody(error=error).model_dump()


# --- the hierarchy --------------------------------------------------------------------------


class ApiError(Exception):
    """A request the API answers with an error: `status` says which, the message why (and
    what to do); `code` names the kind for machines (OpenAI's `code` on that face)."""

    status: ClassVar[int] = 400
    default_code: ClassVar[str] = "invalid_request"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code


class BadRequest(ApiError):
    """400: the request cannot be done as asked."""


class InvalidMessages(BadRequest):
    """400: the conversation cannot be sent to a model."""

    default_code = "invalid_messages"


class Refused(ApiError):
    """403: the caller may not do this."""

    status = 403
    default_code = "forbidden"


class NotFound(ApiError):
    """404: no such row for this caller (another tenant's rows are not found either)."""

    status = 404
    default_code = "not_found"


class Conflict(ApiError):
    """409: the request clashes with what is already there (the message names it)."""

    status = 409
    default_code = "conflict"


class TooLarge(ApiError):
    """413: over a limit; `setting` names the setting that raises it."""

    status = 413
    default_code = "too_large"

    def __init__(self, message: str, *, setting: str, code: str | None = None) -> None:
        super().__init__(message, code=code)
        self.setting = setting


class TooManyRequests(ApiError):
    """429: over a rate limit; wait a little."""

    status = 429
    default_code = "rate_limited"


class UpstreamFailed(ApiError):
    """502: a server this one calls (a tool's, the embeddings endpoint) failed."""

    status = 502
    default_code = "upstream_failed"


class Unavailable(ApiError):
    """503: the work could not be done now (e.g. a timeout before anything was stored)."""

    status = 503
    default_code = "unavailable"


# The domain errors of the repositories, tools and libraries, and the answer each one is; the
# first class an error is an instance of decides. Nothing else maps them: a route lets them
# pass and its family's handler answers.
DOMAIN_ERRORS: tuple[tuple[type[Exception], type[ApiError]], ...] = (
    (repo.NotFound, NotFound),
    (SourceNotFound, NotFound),
    (LibraryNotFound, NotFound),
    (WatchNotFound, NotFound),
    (WatchLimitReached, Refused),
    (WatchError, BadRequest),
    (repo.Forbidden, Refused),
    (repo.PlatformError, BadRequest),
    (AccountError, BadRequest),
    (NormalisationError, InvalidMessages),
    (SourceError, BadRequest),
    (SecretsError, BadRequest),
    (ArgumentsError, BadRequest),
    (KnowledgeError, BadRequest),  # an upload over a limit is a 413 (see `api_error`)
    (EmbeddingsError, UpstreamFailed),
    (OutboundError, UpstreamFailed),
    (MCPError, UpstreamFailed),
)


def api_error(error: Exception) -> ApiError | None:
    """The API's answer to `error`: itself when it is an `ApiError`, the mapped answer of a
    domain error, or None for an error no request caused (a 500)."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, UploadRefused) and error.setting is not None:
        return TooLarge(str(error), setting=error.setting)
    for kind, answer in DOMAIN_ERRORS:
        if isinstance(error, kind):
            return answer(str(error))
    return None


# --- malformed requests ---------------------------------------------------------------------

_PREFIXES = ("body", "query", "path", "header", "cookie")
# A 422 lists this many problems at most: enough to fix a request, never a huge error body.
MAX_PROBLEMS = 10


class FieldProblem(BaseModel):
    loc: list[str | int] = Field(description="Where the problem is, as FastAPI reports it.")
    field: str = Field(description="The same place as a dotted path, e.g. `messages.0.content`.")
    msg: str
    type: str


class ValidationProblem(BaseModel):
    """The body of every 422 answer."""

    message: str = Field(description="One line for people: every problem with its field.")
    code: str = Field(default="invalid_request", description="The kind, for machines.")
    detail: list[FieldProblem]


VALIDATION_RESPONSES: dict[int | str, dict[str, Any]] = {
    422: {"model": ValidationProblem, "description": "The request is malformed."}
}
# The documented errors of a route acting on the caller's rows.
ROW_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "The request cannot be done as asked; `detail` says why."},
    404: {"description": "No such row for this caller."},
}


def validation_problem(error: RequestValidationError) -> ValidationProblem:
    """A validation error as one line and its first `MAX_PROBLEMS` problems, dotted paths."""
    errors = error.errors()
    problems = [_problem(item) for item in errors[:MAX_PROBLEMS]]
    summary = "; ".join(f"{p.field}: {p.msg[:500]}" for p in problems)
    if len(errors) > MAX_PROBLEMS:
        summary += f" (and {len(errors) - MAX_PROBLEMS:,} more problems)"
    return ValidationProblem(message=f"Invalid request — {summary}", detail=problems)


def unreadable_body_problem(error: HTTPException) -> ValidationProblem | None:
    """The problem of a body FastAPI could not decode (not UTF-8), or None for other errors."""
    cause = error.__cause__
    if error.status_code != 400 or not isinstance(cause, UnicodeDecodeError):
        return None
    message = (
        f"The body is not valid JSON: byte {cause.start} is not UTF-8; "
        "send the request as UTF-8 encoded JSON"
    )
    problem = FieldProblem(loc=["body"], field="body", msg=message, type="json_invalid")
    return ValidationProblem(message=f"Invalid request — body: {message}", detail=[problem])


def _problem(item: dict[str, Any]) -> FieldProblem:
    loc = [part if isinstance(part, int) else str(part) for part in item.get("loc", ())]
    kind = str(item.get("type", "value_error"))
    message = str(item.get("msg", "invalid value"))
    path = loc[1:] if loc and loc[0] in _PREFIXES else loc
    if kind == "json_invalid":
        reason = (item.get("ctx") or {}).get("error", "")
        where = f" at character {loc[1]}" if len(loc) > 1 else ""
        message = f"The body is not valid JSON{where}: {reason}".rstrip(": ")
        path = []
    field = ".".join(str(part) for part in path) or "body"
    return FieldProblem(loc=loc, field=field, msg=message, type=kind)


# --- the native family's handler ------------------------------------------------------------

# What `native_error_handler` answers (registered for each by `app`).
NATIVE_ERRORS: tuple[type[Exception], ...] = (
    RequestValidationError,
    HTTPException,
    ApiError,
    *(kind for kind, _ in DOMAIN_ERRORS),
)


async def native_error_handler(request: Request, error: Exception) -> Response:
    """Every request error of the native API (and the OpenBB agent's routes): a malformed
    request (a body that is not even UTF-8 included) is a 422 `ValidationProblem`; the body
    limit a 413 naming its setting; an `ApiError` or a domain error `{"detail": message}` with
    its status; any other HTTP error FastAPI's answer."""
    if isinstance(error, RequestValidationError):
        return JSONResponse(status_code=422, content=validation_problem(error).model_dump())
    if isinstance(error, HTTPException):
        return await _http_error(request, error)
    problem = api_error(error)
    if problem is None:  # registered for `ApiError` and `DOMAIN_ERRORS` only
        raise error
    return JSONResponse(status_code=problem.status, content=detail_body(problem))


def detail_body(problem: ApiError) -> dict[str, Any]:
    """`{"message", "code", "detail"}` (detail = message): the native family's one shape, which
    the door's refusals share, so a client reads `message` and `code` whatever refused it; a 413
    also names the `setting`."""
    body = native_body(problem.message, problem.code)
    if isinstance(problem, TooLarge):
        body["setting"] = problem.setting
    return body


def native_body(message: str, code: str) -> dict[str, Any]:
    """An error of the native family: `message` for people, `code` for machines, and `detail`
    (the same words) for clients written against FastAPI's `{"detail"}`."""
    return {"message": message, "code": code, "detail": message}


async def _http_error(request: Request, error: HTTPException) -> Response:
    if openai_face(request.url.path) and error.status_code in (404, 405):
        # A path or method the OpenAI-compatible face does not have, in its shape.
        message = f"{request.method} {request.url.path} is not a route of this server's OpenAI API"
        message += ": it serves GET /v1/models, POST /v1/chat/completions and POST /v1/embeddings"
        code = "not_found" if error.status_code == 404 else "method_not_allowed"
        body = openai_body(error.status_code, message, code)
        return JSONResponse(status_code=error.status_code, content=body)
    if openai_face(request.url.path) and error.status_code == 413:  # the body limit, read late
        body = openai_body(413, str(error.detail), "max_body_mb")
        return JSONResponse(status_code=413, content=body)
    if error.status_code == 413:  # the body limit, passed while the body was read
        body = native_body(str(error.detail), TooLarge.default_code) | {"setting": "max_body_mb"}
        return JSONResponse(status_code=413, content=body)
    body = unreadable_body_problem(error)
    if body is None:
        if not isinstance(error.detail, str) or error.status_code < 400:
            return await http_exception_handler(request, error)
        code = _HTTP_CODES.get(error.status_code, "http_error")
        content = native_body(error.detail, code)
        return JSONResponse(status_code=error.status_code, content=content, headers=error.headers)
    return JSONResponse(status_code=422, content=body.model_dump())


# FastAPI's own refusals (an unknown path, a method a route lacks), named like the API's.
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}
