"""An imported OpenAPI operation as a `Tool`: arguments checked, request built, result framed.

Every call validates its arguments with jsonschema first (nothing is sent when they are wrong),
goes through the SSRF-safe client (`datapilot.net`) under a per-tool rate limit and a response
cap (a longer body is cut and marked truncated), and turns a tabular JSON answer (a list of
records, or an object holding one) into a table the user sees and a frame a plan can use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import jsonschema
import pandas as pd

from datapilot.core.outputs import Output, TableOutput
from datapilot.net import OutboundLimits, OutboundPolicy, RateLimiter, afetch, shown_address
from datapilot.settings import Settings
from datapilot.tools.base import ToolOutput
from datapilot.tools.errors import ArgumentsError
from datapilot.tools.openapi import OperationSpec
from datapilot.tools.secrets import AuthStored, auth_headers

ACCEPTED = frozenset(
    {
        "application/json",
        "application/problem+json",
        "text/*",
        "application/yaml",
        "application/xml",
    }
)
_LIMITERS: dict[int, RateLimiter] = {}


def check_arguments(name: str, schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    """Raise `ArgumentsError` naming the first wrong field (jsonschema decides)."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
    if not errors:
        return
    error = errors[0]
    field_path = ".".join(str(p) for p in error.path)
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [f for f in error.validator_value if f not in (error.instance or {})]
        field_path = ".".join([*(str(p) for p in error.path), *missing[:1]])
    allowed = ", ".join(schema.get("properties", {})) or "none"
    raise ArgumentsError(
        f"invalid arguments for {name}: field {field_path or '(arguments)'}: {error.message}; "
        f"the parameters are: {allowed}"
    )


def limiter(settings: Settings) -> RateLimiter:
    per_minute = settings.tool_calls_per_minute
    return _LIMITERS.setdefault(per_minute, RateLimiter(per_minute))


def tabular(value: Any) -> pd.DataFrame | None:
    """A frame when `value` is a list of records, or an object holding exactly one such list."""
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list) and v]
        if len(lists) != 1:
            return None
        value = lists[0]
    if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
        flat = [{k: v for k, v in row.items() if not isinstance(v, dict | list)} for row in value]
        frame = pd.DataFrame(flat)
        return frame if len(frame.columns) else None
    return None


def table_of(title: str, frame: pd.DataFrame) -> TableOutput:
    rows = frame.astype(object).where(frame.notna(), None).values.tolist()
    return TableOutput(title=title, columns=[str(c) for c in frame.columns], rows=rows)


@dataclass
class OpenAPITool:
    """One imported operation."""

    spec: OperationSpec
    settings: Settings
    auth: AuthStored = field(default_factory=AuthStored)
    trusted: bool = False
    user_token: str | None = None
    source: str = "openapi"
    policy: OutboundPolicy | None = None
    name: str = field(init=False)
    description: str = field(init=False)
    parameters: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.spec.name
        self.description = self.spec.description
        self.parameters = self.spec.parameters

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        """Why the user must confirm this call, or None when it runs without asking."""
        if not self.spec.consequential or self.trusted:
            return None
        try:
            check_arguments(self.spec.qualified, self.spec.parameters, arguments)
        except ArgumentsError:
            return None  # it fails before sending anything, and the model hears which field
        shown = json.dumps(arguments, ensure_ascii=False)[:300]
        # The address without what may be a key in it (user:password@, ?api_key=).
        address = f"{shown_address(self.spec.base_url)}{self.spec.path}"
        return f"{self.spec.qualified} will {self.spec.method} {address} with {shown}. Run it?"

    def request(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The request a call sends (checked arguments → URL, query, headers, body)."""
        check_arguments(self.spec.qualified, self.spec.parameters, arguments)
        path = self.spec.path
        query: dict[str, Any] = {}
        headers = auth_headers(self.auth, self.settings, self.user_token)
        cookies: list[str] = []
        body: dict[str, Any] = {}
        whole: Any = None
        for arg, value in arguments.items():
            param = self.spec.params.get(arg)
            if param is None:  # not declared: the schema allowed it, the body takes it
                body[arg] = value
            elif param.location == "path":
                path = path.replace("{" + param.name + "}", quote(str(value), safe=""))
            elif param.location == "query":
                query[param.name] = json.dumps(value) if isinstance(value, dict) else value
            elif param.location == "header":
                headers[param.name] = str(value)
            elif param.location == "cookie":
                cookies.append(f"{param.name}={quote(str(value), safe='')}")
            elif param.location == "body_whole":
                whole = value
            else:
                body[param.name] = value
        if cookies:
            headers["Cookie"] = "; ".join(cookies)
        content = None
        if whole is not None or body:
            content = json.dumps(whole if whole is not None else body, ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        headers.setdefault("Accept", "application/json")
        return {
            "url": f"{self.spec.base_url}{path}",
            "method": self.spec.method,
            "params": query or None,
            "headers": headers,
            "content": content,
        }

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        request = self.request(arguments)  # raises before anything is sent
        limiter(self.settings).check(self.spec.qualified)
        limits = OutboundLimits(
            max_bytes=int(self.settings.tool_max_kb * 1024),
            truncate=True,
            content_types=ACCEPTED,
            total_s=self.settings.call_timeout_s,
            read_s=self.settings.call_timeout_s,
        )
        policy = self.policy or OutboundPolicy.from_settings(self.settings)
        response = await afetch(**request, limits=limits, policy=policy)
        response.raise_for_status()
        return output_of(self.spec.qualified, response.text, response.truncated)


def output_of(title: str, text: str, truncated: bool = False) -> ToolOutput:
    """A response body as the model's text and the user's table (when it is tabular)."""
    note = "\n[truncated: the response was longer than the size cap]" if truncated else ""
    try:
        value = json.loads(text)
    except ValueError:
        return ToolOutput(text=text + note)
    frame = tabular(value)
    outputs: list[Output] = [table_of(title, frame)] if frame is not None else []
    return ToolOutput(text=json.dumps(value, ensure_ascii=False) + note, outputs=outputs)
