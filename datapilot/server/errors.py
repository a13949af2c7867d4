"""Request errors as 422 answers that name the field and say what to do."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from datapilot.assistants.normalise import NormalisationError
from datapilot.assistants.repo import Forbidden, NotFound, PlatformError
from datapilot.store import AccountError

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
    detail: list[FieldProblem]


VALIDATION_RESPONSES: dict[int | str, dict[str, Any]] = {
    422: {"model": ValidationProblem, "description": "The request is malformed."}
}


def validation_problem(error: RequestValidationError) -> ValidationProblem:
    """A validation error as one line and its first `MAX_PROBLEMS` problems, dotted paths."""
    errors = error.errors()
    problems = [_problem(item) for item in errors[:MAX_PROBLEMS]]
    summary = "; ".join(f"{p.field}: {p.msg[:500]}" for p in problems)
    if len(errors) > MAX_PROBLEMS:
        summary += f" (and {len(errors) - MAX_PROBLEMS:,} more problems)"
    return ValidationProblem(message=f"Invalid request — {summary}", detail=problems)


async def validation_error_handler(request: Request, error: Exception) -> JSONResponse:
    """Turn a validation error into a 422 with dotted field paths."""
    assert isinstance(error, RequestValidationError)
    body = validation_problem(error)
    return JSONResponse(status_code=422, content=body.model_dump())


async def unreadable_body_handler(request: Request, error: Exception) -> Response:
    """A body that cannot even be decoded (not UTF-8) is malformed too: a 422 like the others,
    instead of FastAPI's bare 400. Every other HTTP error keeps FastAPI's answer."""
    assert isinstance(error, HTTPException)
    if error.status_code == 413:  # the body limit, passed while the body was read
        return JSONResponse(
            status_code=413, content={"message": error.detail, "setting": "max_body_mb"}
        )
    body = unreadable_body_problem(error)
    if body is None:
        return await http_exception_handler(request, error)
    return JSONResponse(status_code=422, content=body.model_dump())


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


# What a platform call raises for a request that cannot be done as asked.
CLIENT_ERRORS = (NotFound, Forbidden, PlatformError, AccountError, NormalisationError)


def http_error(error: Exception) -> HTTPException:
    """The HTTP answer to one of `CLIENT_ERRORS`: 404, 403, or 400 saying why."""
    status = 404 if isinstance(error, NotFound) else 403 if isinstance(error, Forbidden) else 400
    return HTTPException(status, str(error))
