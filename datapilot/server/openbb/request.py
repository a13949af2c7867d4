"""OpenBB Workspace query payloads: accept every shape clients send, validate with the SDK model.

Current Workspace payloads validate as they are. Older and looser shapes are upgraded first:
- v1 `widgets` as a list of `{uuid, name, description}` → `widgets.primary`;
- a tool result as `content` text, `data: {content}`, `data: "text"` or `data: [{content}]`
  → `data: [{items: [{content}]}]`; the same for `context[].data`;
- `workspace_options` as a list of enabled option ids → `{id: true}`;
- widget parameters of a type the SDK does not know (or none) → `text`.
Unknown fields are ignored.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from openbb_ai.models import QueryRequest
from pydantic import ConfigDict, Field, PrivateAttr, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from datapilot.server.limits import payload_problems

_PARAM_TYPES = {
    "string",
    "text",
    "number",
    "integer",
    "boolean",
    "date",
    "ticker",
    "endpoint",
    "tabs",
}


def _documented_contract(schema: dict[str, Any]) -> None:
    """What the SDK's schema leaves out: the conversation holds a question, a human message
    with text (so generated examples, and fuzzing, reach past the first check)."""
    schema["properties"]["messages"].update(
        minItems=1,
        contains={
            "type": "object",
            "properties": {"role": {"const": "human"}, "content": {"type": "string"}},
            "required": ["role", "content"],
        },
    )


class WorkspaceQuery(QueryRequest):
    """The body of `POST /v1/query`: the SDK's `QueryRequest`, lenient about older shapes."""

    model_config = ConfigDict(json_schema_extra=_documented_contract)

    today: date | None = Field(
        default=None,
        description=(
            "Datapilot extension, not sent by the Workspace: resolve relative windows against "
            "this date instead of the current date (replays, tests, benchmarks)."
        ),
    )
    _legacy_widgets: bool = PrivateAttr(default=False)

    @model_validator(mode="wrap")
    @classmethod
    def _accept_every_shape(cls, data: Any, handler: Any) -> WorkspaceQuery:
        legacy = isinstance(data, dict) and isinstance(data.get("widgets"), list)
        # The SDK's own pre-validators assume widgets and their params are objects and crash
        # (AttributeError) on anything else, so those are reported here as field errors.
        problems = [
            InitErrorDetails(
                type=PydanticCustomError(
                    "model_type", "must be an object, not {kind}", {"kind": _kind(value)}
                ),
                loc=loc,
                input=value,
            )
            for loc, value in _non_objects(data)
        ]
        # The SDK's own uniqueness check raises a TypeError instead of a validation error.
        problems += [
            InitErrorDetails(
                type=PydanticCustomError(
                    "unique_params",
                    "parameter names must be unique; {name!r} is repeated",
                    {"name": name},
                ),
                loc=loc,
                input=name,
            )
            for loc, name in _repeated_params(data)
        ]
        problems += payload_problems(data)  # the server's limits, before the costly validation
        if problems:
            raise ValidationError.from_exception_data(cls.__name__, problems)
        try:
            query = handler(normalise_query_payload(data))
        except (AttributeError, KeyError, TypeError) as error:
            # The SDK's own validators read the shapes they expect (objects, lists of objects)
            # unchecked, and crash on others without naming the field: still a malformed request.
            shape = PydanticCustomError(
                "payload_shape",
                "a value has the wrong shape ({reason}); send objects where the protocol has "
                "objects (widgets, params, context, citations and their details)",
                {"reason": f"{type(error).__name__}: {error}"},
            )
            raise ValidationError.from_exception_data(
                cls.__name__, [InitErrorDetails(type=shape, loc=(), input=None)]
            ) from None
        query._legacy_widgets = legacy
        return query

    @property
    def legacy_widgets(self) -> bool:
        """True when the client spoke the v1 copilot protocol (widgets as a flat list)."""
        return self._legacy_widgets


def _widget_groups(raw: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    """The request's widget lists with where they are: one list (v1) or one per group."""
    widgets = raw.get("widgets") if isinstance(raw, dict) else None
    if isinstance(widgets, list):
        return [(("widgets",), widgets)]
    if isinstance(widgets, dict):
        return [(("widgets", str(name)), items) for name, items in widgets.items()]
    return []


def _non_objects(raw: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    """Where a widget or widget parameter is not an object, with the value found there."""
    found: list[tuple[tuple[str | int, ...], Any]] = []
    for where, items in _widget_groups(raw):
        for index, widget in enumerate(items if isinstance(items, list) else []):
            if not isinstance(widget, dict):
                found.append(((*where, index), widget))
                continue
            params = widget.get("params")
            if params is not None and not isinstance(params, list | dict):
                found.append(((*where, index, "params"), params))
            for number, param in enumerate(params if isinstance(params, list) else []):
                if not isinstance(param, dict):
                    found.append(((*where, index, "params", number), param))
    return found


def _repeated_params(raw: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    """Where a widget lists a parameter name twice, with the name."""
    found: list[tuple[tuple[str | int, ...], Any]] = []
    for where, items in _widget_groups(raw):
        for index, widget in enumerate(items if isinstance(items, list) else []):
            params = widget.get("params") if isinstance(widget, dict) else None
            seen: set[Any] = set()
            for number, param in enumerate(params if isinstance(params, list) else []):
                name = param.get("name") if isinstance(param, dict) else None
                if not isinstance(name, str):
                    continue
                if name in seen:
                    found.append(((*where, index, "params", number, "name"), name))
                seen.add(name)
    return found


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def normalise_query_payload(raw: Any) -> Any:
    """Upgrade older payload shapes to the current one; anything else is returned unchanged."""
    if not isinstance(raw, dict):
        return raw
    payload = dict(raw)
    if isinstance(payload.get("messages"), list):
        payload["messages"] = [_message(message) for message in payload["messages"]]
    if isinstance(payload.get("context"), list):
        payload["context"] = [_context(item) for item in payload["context"]]
    widgets = payload.get("widgets")
    if isinstance(widgets, list):
        payload["widgets"] = {"primary": [_widget(widget) for widget in widgets]}
    elif isinstance(widgets, dict):
        payload["widgets"] = {
            group: [_widget(widget) for widget in items] if isinstance(items, list) else items
            for group, items in widgets.items()
        }
    options = payload.get("workspace_options")
    if isinstance(options, list):
        payload["workspace_options"] = {str(option): True for option in options}
    elif options is None and "workspace_options" in payload:
        payload["workspace_options"] = {}
    return payload


def _message(message: Any) -> Any:
    if not isinstance(message, dict) or message.get("role") != "tool":
        return message
    message = dict(message)
    message.setdefault("function", "get_widget_data")
    if "data" not in message and "content" in message:
        message["data"] = message.pop("content")
    message["data"] = _data_list(message.get("data"))
    return message


def _context(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    item = dict(item)
    item.setdefault("description", "")
    data = item.get("data")
    if not (isinstance(data, dict) and "items" in data):
        item["data"] = _data_content(data)
    return item


def _data_list(data: Any) -> Any:
    if data is None:
        return []
    if not isinstance(data, list):
        data = [data]
    return [_data_entry(entry) for entry in data]


def _data_entry(entry: Any) -> Any:
    if isinstance(entry, dict) and ("items" in entry or "status" in entry):
        return entry
    if isinstance(entry, dict) and "error_type" in entry:
        return entry
    return _data_content(entry)


def _data_content(value: Any) -> dict[str, Any]:
    if isinstance(value, dict) and "content" in value:
        item = dict(value)
        item["content"] = _as_text(item["content"])
        return {"items": [item]}
    return {"items": [{"content": _as_text(value)}]}


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _widget(widget: Any) -> Any:
    if not isinstance(widget, dict):
        return widget
    widget = dict(widget)
    name = widget.get("name") or widget.get("widget_id") or str(widget.get("uuid", "widget"))
    widget.setdefault("name", name)
    widget.setdefault("widget_id", name)
    widget.setdefault("origin", "")
    widget.setdefault("description", "")
    params = widget.get("params")
    if isinstance(params, dict):
        params = [{"name": key, "current_value": value} for key, value in params.items()]
    widget["params"] = [_param(param) for param in params or []]
    return widget


def _param(param: Any) -> Any:
    if not isinstance(param, dict):
        return param
    param = dict(param)
    kind = param.get("type")
    # An unknown name is lenient (text); a type that is no name at all (an object, a number)
    # is left for validation to refuse.
    if kind is None or (isinstance(kind, str) and kind not in _PARAM_TYPES):
        param["type"] = "text"
    param.setdefault("description", "")
    return param
