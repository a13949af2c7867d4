"""OpenAPI pieces shared by routes: how a server-sent event stream is documented."""

from __future__ import annotations

from typing import Any


def sse_event_schema(data_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema of one server-sent event (`event`, `data`, `id`, `retry`), as OpenAPI 3.1 reads
    `schema` under `text/event-stream`; `data_schema` describes the JSON text in `data`."""
    data: dict[str, Any] = {"type": "string"}
    if data_schema is not None:
        data |= {"contentMediaType": "application/json", "contentSchema": data_schema}
    return {
        "type": "object",
        "properties": {
            "event": {"type": "string"},
            "data": data,
            "id": {"type": "string"},
            "retry": {"type": "integer"},
        },
        "required": ["data"],
    }
