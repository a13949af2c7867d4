"""JSON Schemas from API documents, made self-contained for a model's function parameters.

Providers reject `$ref`, so `inline` replaces every local `$ref` with its target (a cycle or a
chain deeper than `MAX_DEPTH` becomes a plain `{"type": "object"}` with a note in `problems`),
merges `allOf` into one schema and keeps `oneOf`/`anyOf`. A property-level `required: true`
(Swagger 2 habit, invalid in JSON Schema) moves into its parent's `required` list, and the move
is named as a problem, never done silently.
"""

from __future__ import annotations

import copy
from typing import Any

MAX_DEPTH = 24
# OpenAPI keywords that are not JSON Schema and that jsonschema or a provider may reject.
_DROP = frozenset({"xml", "externalDocs", "discriminator", "example", "deprecated", "nullable"})


class SchemaProblems(list[str]):
    """Problems found while inlining (a list of human-readable sentences)."""


def pointer(root: dict[str, Any], ref: str) -> Any:
    """The target of a local `#/a/b` reference in `root`; KeyError when it does not exist."""
    if not ref.startswith("#"):
        raise KeyError(f"{ref} is not a local reference (only #/… references are read)")
    node: Any = root
    for part in ref[1:].lstrip("/").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and part.isdigit():
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(f"{ref} points to nothing in the document")
    return node


def inline(
    schema: Any,
    root: dict[str, Any],
    problems: list[str],
    *,
    where: str = "",
    _stack: tuple[str, ...] = (),
) -> Any:
    """`schema` with every local `$ref` resolved and `allOf` merged; no `$ref` remains."""
    if isinstance(schema, list):
        return [inline(item, root, problems, where=where, _stack=_stack) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema and isinstance(schema["$ref"], str):
        ref = schema["$ref"]
        if ref in _stack or len(_stack) >= MAX_DEPTH:
            why = "refers to itself" if ref in _stack else f"nests deeper than {MAX_DEPTH}"
            problems.append(f"{where or 'a schema'}: {ref} {why}; read as a plain object there")
            return {"type": "object"}
        try:
            target = pointer(root, ref)
        except (KeyError, IndexError, ValueError) as error:
            problems.append(f"{where or 'a schema'}: {error}; read as any value")
            return {}
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        resolved = inline(target, root, problems, where=where, _stack=(*_stack, ref))
        if siblings and isinstance(resolved, dict):
            resolved = {**resolved, **inline(siblings, root, problems, where=where, _stack=_stack)}
        return resolved
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROP or key.startswith("x-"):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {
                name: inline(sub, root, problems, where=f"{where}.{name}", _stack=_stack)
                for name, sub in value.items()
            }
        else:
            out[key] = inline(value, root, problems, where=where, _stack=_stack)
    _lift_required(out, problems, where)
    if isinstance(out.get("allOf"), list):
        parts = out.pop("allOf")
        for part in parts:
            if isinstance(part, dict):
                out = merge(out, part)
    return out


def _lift_required(schema: dict[str, Any], problems: list[str], where: str) -> None:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    required = schema.get("required")
    names = list(required) if isinstance(required, list) else []
    for name, sub in properties.items():
        if isinstance(sub, dict) and isinstance(sub.get("required"), bool):
            flag = sub.pop("required")
            problems.append(
                f"{where}.{name}: `required: {str(flag).lower()}` on a property is not OpenAPI 3; "
                f"list required properties in the object's `required` array instead (read as "
                f"{'required' if flag else 'optional'})"
            )
            if flag and name not in names:
                names.append(name)
    if names:
        schema["required"] = names
    elif "required" in schema and not isinstance(required, list):
        schema.pop("required")


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`allOf` parts merged: properties joined, required lists united, other keys kept."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if key == "properties" and isinstance(value, dict):
            out["properties"] = {**out.get("properties", {}), **value}
        elif key == "required" and isinstance(value, list):
            out["required"] = list(dict.fromkeys([*out.get("required", []), *value]))
        elif key not in out:
            out[key] = copy.deepcopy(value)
    return out


def has_ref(schema: Any) -> bool:
    """Whether any `$ref` is left anywhere in `schema`."""
    if isinstance(schema, dict):
        return "$ref" in schema or any(has_ref(v) for v in schema.values())
    if isinstance(schema, list):
        return any(has_ref(v) for v in schema)
    return False
