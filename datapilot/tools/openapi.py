"""Import an ai-plugin.json manifest, an OpenAPI 3.0/3.1 or a Swagger 2 document as operations.

Reading is tolerant: JSON with a trailing comma, YAML with `key:value` missing its space, and
schema mistakes the validator finds are each named as a problem (where, what to fix) while
everything readable is imported. Each operation becomes an `OperationSpec`: a model-safe tool
name, the `PLUGIN.operation` name people type, and one flat JSON Schema of its path, query,
header, cookie and body parameters with no `$ref` left (`datapilot.tools.schema`).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal
from urllib.parse import urljoin

import yaml
from pydantic import BaseModel, Field

from datapilot.tools.schema import inline

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
Location = Literal["path", "query", "header", "cookie", "body", "body_whole"]
_MISSING_SPACE = re.compile(r"^(\s*-?\s*)([A-Za-z_$][\w$-]*):(?=[^\s/:])")
_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class SpecImportError(ValueError):
    """An OpenAPI spec or manifest cannot be imported at all (not JSON/YAML, no operations)."""


class Param(BaseModel):
    """Where one flat argument goes in the request."""

    location: Location
    name: str = Field(description="Its name in the request (the argument may be renamed).")


class OperationSpec(BaseModel):
    """One imported operation: enough to describe it to a model and to call it."""

    name: str = Field(description="Model-safe tool name: letters, digits, _ and -.")
    qualified: str = Field(description="PLUGIN.operation, as typed on the command line.")
    operation: str
    method: str
    path: str
    base_url: str
    description: str = ""
    parameters: dict[str, Any]
    params: dict[str, Param] = Field(default_factory=dict)
    consequential: bool = False


class ImportedDocument(BaseModel):
    """What a manifest or spec yields: the plugin's name, its operations and the problems."""

    name: str
    description: str = ""
    spec_url: str | None = None
    manifest: dict[str, Any] | None = None
    operations: list[OperationSpec] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


def load_text(text: str, label: str, problems: list[str]) -> Any:
    """Parse JSON or YAML, repairing (and naming) the common hand-editing slips."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            problems.append(
                f"{label} line {error.lineno}: not valid JSON ({error.msg}); "
                "read leniently (e.g. a trailing comma ignored) — fix the file"
            )
    lines = text.splitlines()
    for _ in range(20):  # one repair per pass; a real document has few
        try:
            return yaml.safe_load("\n".join(lines))
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark
            fixed = _repair(lines, mark.line if mark else 0)
            if fixed is None:
                line = (mark.line + 1) if mark else "?"
                raise SpecImportError(
                    f"{label} line {line}: {error.problem}; it is neither JSON nor YAML "
                    "that can be read — fix the file"
                ) from None
            number, before = fixed
            problems.append(
                f"{label} line {number + 1}: `{before.strip()}` needs a space after the colon; "
                f"read as `{lines[number].strip()}` — fix the file"
            )
        except yaml.YAMLError as error:
            raise SpecImportError(f"{label}: cannot be read as YAML ({error})") from None
    raise SpecImportError(f"{label}: too many syntax errors to read; fix the file")


def _repair(lines: list[str], near: int) -> tuple[int, str] | None:
    """Insert the missing space of a `key:value` line at or before line `near`."""
    for number in range(min(near, len(lines) - 1), max(near - 3, -1), -1):
        match = _MISSING_SPACE.match(lines[number])
        if match and "://" not in lines[number]:
            before = lines[number]
            lines[number] = f"{match.group(0)} {before[match.end() :]}"
            return number, before
    return None


def tool_name(plugin: str, operation: str) -> str:
    """A function name every provider accepts (^[A-Za-z0-9_-]{1,64}$)."""
    name = _NAME.sub("_", f"{plugin}_{operation}").strip("_")
    return name[:64] or "operation"


def is_manifest(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("api"), dict) and "openapi" not in data


def manifest_spec_url(manifest: dict[str, Any], problems: list[str]) -> str:
    api = manifest.get("api") or {}
    if api.get("type", "openapi") != "openapi":
        problems.append(f"manifest: api.type is {api.get('type')!r}; read as openapi")
    url = api.get("url")
    if not isinstance(url, str) or not url:
        raise SpecImportError("the manifest has no api.url; give the OpenAPI document's address")
    return url


def plugin_name(manifest: dict[str, Any] | None, spec: dict[str, Any], fallback: str) -> str:
    if manifest and isinstance(manifest.get("name_for_model"), str):
        return _NAME.sub("_", manifest["name_for_model"]).strip("_") or fallback
    title = (spec.get("info") or {}).get("title")
    if isinstance(title, str) and _NAME.sub("", title):
        return _NAME.sub("_", title).strip("_")[:40]
    return fallback


def validate_spec(spec: dict[str, Any], problems: list[str]) -> None:
    """Name what the OpenAPI/Swagger validator finds wrong (importing goes on regardless)."""
    from openapi_spec_validator import (
        OpenAPIV2SpecValidator,
        OpenAPIV30SpecValidator,
        OpenAPIV31SpecValidator,
    )

    version = str(spec.get("openapi") or spec.get("swagger") or "")
    validator: Any
    if version.startswith("2"):
        validator = OpenAPIV2SpecValidator
    elif version.startswith("3.1"):
        validator = OpenAPIV31SpecValidator
    elif version.startswith("3"):
        validator = OpenAPIV30SpecValidator
    else:
        problems.append("document: no `openapi: 3.x` or `swagger: 2.0` field; read as OpenAPI 3")
        return
    try:
        for error in list(validator(spec).iter_errors())[:20]:
            path = "/".join(str(p) for p in getattr(error, "path", []) or [])
            message = getattr(error, "message", str(error)).splitlines()[0][:200]
            problems.append(f"spec {path or '(root)'}: {message}")
    except Exception as error:  # the validator is advisory: never let it stop an import
        problems.append(f"spec: could not be fully validated ({type(error).__name__})")


def base_url(spec: dict[str, Any], spec_url: str | None) -> str:
    """Where the operations are served: servers[0] (or Swagger 2 host/basePath), made absolute."""
    if str(spec.get("swagger", "")).startswith("2"):
        scheme = (spec.get("schemes") or ["https"])[0]
        host = spec.get("host")
        path = spec.get("basePath") or ""
        if host:
            return f"{scheme}://{host}{path}".rstrip("/")
        return urljoin(spec_url or "", path or "/").rstrip("/")
    servers = spec.get("servers") or []
    url = servers[0].get("url", "") if servers and isinstance(servers[0], dict) else ""
    for name, var in ((servers[0].get("variables") or {}) if url else {}).items():
        url = url.replace("{" + name + "}", str((var or {}).get("default", "")))
    return urljoin(spec_url or "", url or "/").rstrip("/")


def operations(
    spec: dict[str, Any], plugin: str, base: str, problems: list[str]
) -> list[OperationSpec]:
    """Every operation of `spec` as an `OperationSpec` (unreadable ones named in problems)."""
    found: list[OperationSpec] = []
    paths = spec.get("paths")
    if not isinstance(paths, dict):
        problems.append("spec: no `paths`; nothing to import")
        return found
    seen: set[str] = set()
    for path, item in paths.items():
        if not isinstance(item, dict):
            continue
        shared = item.get("parameters") or []
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            operation_id = op.get("operationId") or re.sub(
                "_+", "_", _NAME.sub("_", f"{method}_{path}")
            ).strip("_")
            name = tool_name(plugin, str(operation_id))
            if name in seen:
                problems.append(f"{method.upper()} {path}: the name {name} is taken; skipped")
                continue
            seen.add(name)
            where = f"{method.upper()} {path}"
            schema, params = _parameters(
                spec, [*shared, *(op.get("parameters") or [])], op, where, problems
            )
            consequential = op.get("x-openai-isConsequential")
            found.append(
                OperationSpec(
                    name=name,
                    qualified=f"{plugin}.{operation_id}",
                    operation=str(operation_id),
                    method=method.upper(),
                    path=path,
                    base_url=base,
                    description=str(op.get("summary") or op.get("description") or where)[:1000],
                    parameters=schema,
                    params=params,
                    consequential=bool(consequential)
                    if consequential is not None
                    else method != "get",
                )
            )
    return found


def _parameters(
    spec: dict[str, Any],
    declared: list[Any],
    op: dict[str, Any],
    where: str,
    problems: list[str],
) -> tuple[dict[str, Any], dict[str, Param]]:
    """One flat object schema for every parameter of an operation, and where each one goes."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    params: dict[str, Param] = {}

    def add(arg: str, schema: Any, location: Location, original: str, needed: bool) -> None:
        if arg in properties:  # e.g. a query `id` and a body `id`: the later one is prefixed
            arg = f"{location}_{arg}"
        properties[arg] = schema if isinstance(schema, dict) else {}
        params[arg] = Param(location=location, name=original)
        if needed:
            required.append(arg)

    body_schema: Any = None
    for raw in declared:
        param = inline(raw, spec, problems, where=where)
        if not isinstance(param, dict) or "name" not in param:
            continue
        location = param.get("in", "query")
        if location == "body":  # Swagger 2
            body_schema = param.get("schema") or {}
            continue
        if location == "formData":
            location = "body"
        if location not in ("path", "query", "header", "cookie", "body"):
            problems.append(f"{where}: parameter {param['name']} is `in: {location}`; skipped")
            continue
        schema = param.get("schema") or {
            k: v for k, v in param.items() if k in ("type", "items", "enum", "format", "default")
        }
        if param.get("description") and isinstance(schema, dict):
            schema = {**schema, "description": param["description"]}
        add(
            param["name"],
            schema,
            location,
            param["name"],
            location == "path" or bool(param.get("required")),
        )
    body = op.get("requestBody")
    if isinstance(body, dict):
        body = inline(body, spec, problems, where=where)
        content = body.get("content") or {}
        media = next((m for m in content if "json" in m), next(iter(content), None))
        body_schema = (content.get(media) or {}).get("schema") if media else None
        if media and "json" not in media and "form" not in media:
            problems.append(f"{where}: request body is {media}; sent as JSON")
    if body_schema is not None:
        body_schema = inline(body_schema, spec, problems, where=f"{where} body")
        if isinstance(body_schema, dict) and isinstance(body_schema.get("properties"), dict):
            needed = set(body_schema.get("required") or [])
            for name, sub in body_schema["properties"].items():
                add(name, sub, "body", name, name in needed)
        else:
            add("body", body_schema or {}, "body_whole", "body", True)
    # Closed: a misspelt argument is refused naming it, instead of being sent in a body.
    flat: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        flat["required"] = list(dict.fromkeys(required))
    return flat, params


def import_document(
    spec: dict[str, Any],
    *,
    fallback_name: str,
    spec_url: str | None = None,
    manifest: dict[str, Any] | None = None,
    problems: list[str] | None = None,
) -> ImportedDocument:
    """The operations of an already-parsed spec (with its manifest, when there is one)."""
    problems = problems if problems is not None else []
    if not isinstance(spec, dict):
        raise SpecImportError(
            "the document is not an OpenAPI/Swagger object; give a spec or manifest"
        )
    validate_spec(spec, problems)
    name = plugin_name(manifest, spec, fallback_name)
    ops = operations(spec, name, base_url(spec, spec_url), problems)
    if not ops:
        raise SpecImportError(
            "no operations could be read from the document: " + ("; ".join(problems) or "no paths")
        )
    description = (manifest or {}).get("description") or (spec.get("info") or {}).get(
        "description", ""
    )
    return ImportedDocument(
        name=name,
        description=str(description)[:2000],
        spec_url=spec_url,
        manifest=manifest,
        operations=ops,
        problems=problems,
    )
