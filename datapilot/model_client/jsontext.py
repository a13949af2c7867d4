"""Find the JSON object in a model's text reply (code fences, prose around it, think blocks)."""

from __future__ import annotations

import json
import re
from typing import Any

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
# Scanning from every "{" is quadratic; a reply whose object does not start early is garbage anyway.
_MAX_STARTS = 64


class NoJSONError(ValueError):
    """The reply holds no JSON object; the message says what was found instead."""


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text`.

    Accepts a bare object, one inside a ```json fence, or one surrounded by prose; reasoning
    models' `<think>` blocks are skipped. Raises `NoJSONError` describing the problem.
    """
    cleaned = _THINK.sub("", text).strip()
    if not cleaned:
        raise NoJSONError("the reply was empty")
    candidates = [match.group(1) for match in _FENCE.finditer(cleaned)] + [cleaned]
    decoder = json.JSONDecoder()
    last_error: json.JSONDecodeError | None = None
    for candidate in candidates:
        starts = [m.start() for m in re.finditer(r"\{", candidate)][:_MAX_STARTS]
        for start in starts:
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError as error:
                last_error = last_error or error
                continue
            if isinstance(value, dict):
                return value
    if last_error is not None:
        where = f"{last_error.msg} at char {last_error.pos}"
        raise NoJSONError(f"the reply is not valid JSON ({where})")
    raise NoJSONError(f"the reply holds no JSON object: {_preview(cleaned)}")


def _preview(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
