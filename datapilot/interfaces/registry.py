"""The interface registry: typed, documented functions a plan may call.

An interface is a plain function decorated with `@interface`. Its first parameter is the
`InterfaceContext` (warehouse, catalog, client tables, today); the rest are its arguments, typed
with hints. Frame arguments (`Frame`, `list[Frame]`) must be `{"$ref": …}` references to earlier
results; every other argument is validated (and coerced, e.g. ISO strings to dates) by pydantic.
The registry renders itself as JSON schema and as a compact catalog for an LLM prompt.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Annotated, Any, Literal, get_args, get_origin

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput

Category = Literal["acquisition", "processing", "prediction", "visualization", "frame"]
Returns = Literal["frame", "chart", "table", "text"]
CATEGORIES: tuple[Category, ...] = typing.get_args(Category)


class _FrameMarker:
    """Marks a parameter that takes a DataFrame produced by an earlier call."""


Frame = Annotated[pd.DataFrame, _FrameMarker()]


class InterfaceError(Exception):
    """An interface could not do its job; the message is shown to the user as is."""


@dataclass(frozen=True)
class Param:
    name: str
    annotation: Any
    required: bool
    default: Any
    description: str
    frame: Literal["one", "many", None]


@dataclass
class InterfaceSpec:
    name: str
    category: Category
    returns: Returns
    description: str
    func: Callable[..., Any]
    params: Mapping[str, Param]
    # The arguments' model, or what builds it on first use (`model`): a process that answers
    # one question validates the few interfaces its plan calls, not all of them.
    _model: type[BaseModel] | None = field(default=None, repr=False)
    # Only reads data (the library's own interfaces all do): what sandboxed code may call
    # through the interpreter's data channel. An interface that writes or sends says False.
    read_only: bool = True
    _build_model: Callable[[], type[BaseModel]] | None = field(default=None, repr=False)

    @property
    def model(self) -> type[BaseModel]:
        """The pydantic model of the arguments (frames excluded), built on first use."""
        if self._model is None:
            if self._build_model is None:
                raise TypeError(f"{self.name} has no argument model")
            self._model = self._build_model()
        return self._model

    def validate(
        self, args: dict[str, Any], frame_outputs: Iterable[str] | None = None
    ) -> tuple[dict[str, Any], list[str]]:
        """Check `args` against the signature.

        Returns the coerced arguments (references left in place) and a list of problems.
        `frame_outputs` names the earlier outputs that are frames; when given, a frame argument
        must reference one of them.
        """
        from datapilot.core.plan import is_ref

        problems: list[str] = []
        known_frames = set(frame_outputs) if frame_outputs is not None else None
        for unknown in sorted(set(args) - set(self.params)):
            problems.append(f"unknown argument {unknown!r} (takes {', '.join(self.params)})")
        plain: dict[str, Any] = {}
        for name, param in self.params.items():
            if name not in args:
                if param.required:
                    problems.append(f"missing argument {name!r}")
                continue
            value = args[name]
            if param.frame is not None:
                refs = value if param.frame == "many" and isinstance(value, list) else [value]
                for item in refs:
                    if not is_ref(item):
                        problems.append(
                            f"argument {name!r} takes a reference to an earlier result, "
                            f'like {{"$ref": "result1"}}, not {_short(item)}'
                        )
                    elif known_frames is not None and item["$ref"] not in known_frames:
                        problems.append(
                            f"argument {name!r} refers to {item['$ref']!r}, "
                            "which is not an earlier result holding data"
                        )
            elif is_ref(value):
                problems.append(f"argument {name!r} cannot be a reference; give a value")
            else:
                plain[name] = value
        try:
            coerced = self.model.model_validate(plain).model_dump(exclude_unset=True)
        except ValidationError as error:
            for item in error.errors():
                if item["type"] == "missing":  # already reported above, by name
                    continue
                where = ".".join(str(part) for part in item["loc"])
                problems.append(f"argument {where!r}: {item['msg']}")
            coerced = plain
        merged = {**{k: v for k, v in args.items() if k in self.params}, **coerced}
        return merged, problems

    def invoke(self, ctx: Any, args: dict[str, Any]) -> Any:
        """Call the interface with checked arguments (frames as frames) and check its result:
        a frame interface returns a DataFrame (a Series becomes one), the others an output."""
        value = self.func(ctx, **args)
        if self.returns == "frame":
            if isinstance(value, pd.Series):
                value = value.to_frame()
            if not isinstance(value, pd.DataFrame):
                raise InterfaceError(
                    f"{self.name} returned {type(value).__name__}, not a table of data"
                )
        elif not isinstance(value, ChartOutput | TableOutput | TextOutput):
            raise InterfaceError(
                f"{self.name} returned {type(value).__name__}, not a {self.returns}"
            )
        return value

    def json_schema(self) -> dict[str, Any]:
        """JSON schema of the arguments; frame arguments appear as `$ref` objects."""
        schema = self.model.model_json_schema()
        properties = schema.setdefault("properties", {})
        required = set(schema.get("required", []))
        ref_schema = {
            "type": "object",
            "properties": {"$ref": {"type": "string"}},
            "required": ["$ref"],
        }
        for param in self.params.values():
            if param.frame is None:
                continue
            properties[param.name] = (
                ref_schema if param.frame == "one" else {"type": "array", "items": ref_schema}
            )
            properties[param.name]["description"] = param.description
            if param.required:
                required.add(param.name)
        schema["required"] = sorted(required)
        schema["description"] = self.description
        return schema

    def signature(self) -> str:
        """One compact line: `name(arg: type, opt?: type=default) -> returns — description`."""
        parts = []
        for param in self.params.values():
            mark = "" if param.required else "?"
            default = "" if param.required or param.default is None else f"={param.default!r}"
            parts.append(f"{param.name}{mark}: {_type_name(param)}{default}")
        return f"{self.name}({', '.join(parts)}) -> {self.returns} — {self.description}"


class Registry:
    """All interfaces by name."""

    def __init__(self) -> None:
        self._specs: dict[str, InterfaceSpec] = {}

    def register(self, spec: InterfaceSpec) -> None:
        if spec.name in self._specs:
            raise ValueError(f"interface {spec.name!r} is registered twice")
        self._specs[spec.name] = spec

    def add(self, func: Callable[..., Any]) -> None:
        """Register a function declared with `@interface`."""
        spec = getattr(func, SPEC_ATTRIBUTE, None)
        if not isinstance(spec, InterfaceSpec):
            raise TypeError(f"{func!r} is not declared with @interface")
        self.register(spec)

    def collect(self, module: ModuleType) -> None:
        """Register every `@interface` function defined in `module`, in definition order."""
        for value in vars(module).values():
            spec = getattr(value, SPEC_ATTRIBUTE, None)
            if isinstance(spec, InterfaceSpec) and value.__module__ == module.__name__:
                self.register(spec)

    def get(self, name: str) -> InterfaceSpec:
        try:
            return self._specs[name]
        except KeyError:
            raise KeyError(f"unknown interface {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self):
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def names(self) -> list[str]:
        return list(self._specs)

    def catalog(self, categories: Iterable[Category] | None = None) -> str:
        """The interfaces as compact text for a model prompt, grouped by category."""
        wanted = set(categories or CATEGORIES)
        lines: list[str] = []
        for category in CATEGORIES:
            specs = [s for s in self._specs.values() if s.category == category]
            if category not in wanted or not specs:
                continue
            lines.append(f"# {category}")
            lines.extend(spec.signature() for spec in specs)
        return "\n".join(lines)


SPEC_ATTRIBUTE = "__datapilot_interface__"


def interface(
    category: Category,
    returns: Returns,
    *,
    name: str | None = None,
    target: Registry | None = None,
    read_only: bool = True,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a function an interface; a plugin adds it to a registry (`Registry.add`,
    `Registry.collect`), or `target` registers it at once.

    The description is the first paragraph of the docstring. A parameter is documented with
    `Annotated[type, "description"]` or a pydantic `Field(description=…)` default.
    `read_only=False` marks one that changes or sends something (sandboxed code cannot call it).
    """

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        spec = build_spec(func, category, returns, name=name, read_only=read_only)
        setattr(func, SPEC_ATTRIBUTE, spec)
        if target is not None:
            target.register(spec)
        return func

    return decorate


def build_spec(
    func: Callable[..., Any],
    category: Category,
    returns: Returns,
    *,
    name: str | None = None,
    read_only: bool = True,
) -> InterfaceSpec:
    signature = inspect.signature(func)
    names = list(signature.parameters)
    if not names:
        raise TypeError(f"{func.__name__} must take the interface context first")
    params = _Params(func, signature)

    def model() -> type[BaseModel]:
        definitions: dict[str, Any] = {
            pname: (base, Field(default, description=description))
            for pname, (base, default, description) in params.fields().items()
        }
        return create_model(
            f"{func.__name__}_args",
            __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=True, defer_build=True),
            **definitions,
        )

    doc = inspect.getdoc(func) or ""
    description = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    return InterfaceSpec(
        name=name or func.__name__,
        category=category,
        returns=returns,
        description=description,
        func=func,
        params=params,
        read_only=read_only,
        _build_model=model,
    )


class _Params(Mapping[str, Param]):
    """An interface's parameters (the context excluded), in signature order. Their names come
    from the signature; their types, defaults and descriptions from its type hints, evaluated
    when first needed: a process answering one question reads the hints of the few interfaces
    its plan calls, not the whole library's (~0.25 ms each, most of building the library)."""

    def __init__(self, func: Callable[..., Any], signature: inspect.Signature) -> None:
        self._func = func
        self._signature = signature
        self._names = list(signature.parameters)[1:]
        self._read: tuple[dict[str, Param], dict[str, Any]] | None = None

    def _params(self) -> tuple[dict[str, Param], dict[str, Any]]:
        if self._read is None:
            self._read = _read_params(self._func, self._signature)
        return self._read

    def fields(self) -> dict[str, Any]:
        """`(type, default, description)` of each argument the model validates (no frames)."""
        return self._params()[1]

    def __getitem__(self, key: str) -> Param:
        return self._params()[0][key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, key: object) -> bool:
        return key in self._names

    def __repr__(self) -> str:
        return repr(self._params()[0])


def _read_params(
    func: Callable[..., Any], signature: inspect.Signature
) -> tuple[dict[str, Param], dict[str, Any]]:
    hints = typing.get_type_hints(func, include_extras=True)
    params: dict[str, Param] = {}
    fields: dict[str, Any] = {}
    for pname in list(signature.parameters)[1:]:
        parameter = signature.parameters[pname]
        annotation = hints.get(pname, Any)
        base, description = _unwrap(annotation)
        default = parameter.default
        if isinstance(default, FieldInfo):
            description = description or (default.description or "")
            default = default.default
        required = default is inspect.Parameter.empty
        frame = _frame_kind(annotation)
        params[pname] = Param(
            name=pname,
            annotation=base,
            required=required,
            default=None if required else default,
            description=description,
            frame=frame,
        )
        if frame is None:
            fields[pname] = (base, ... if required else default, description or None)
    return params, fields


def _unwrap(annotation: Any) -> tuple[Any, str]:
    """Strip `Annotated`, returning the base type and a string description if present."""
    if get_origin(annotation) is Annotated:
        base, *extras = get_args(annotation)
        description = next((e for e in extras if isinstance(e, str)), "")
        return base, description
    return annotation, ""


def _frame_kind(annotation: Any) -> Literal["one", "many", None]:
    if _is_frame(annotation):
        return "one"
    base, _ = _unwrap(annotation)
    if get_origin(base) is list and any(_is_frame(a) for a in get_args(base)):
        return "many"
    return None


def _is_frame(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        return any(isinstance(e, _FrameMarker) for e in get_args(annotation)[1:])
    return False


def _type_name(param: Param) -> str:
    if param.frame == "one":
        return "frame"
    if param.frame == "many":
        return "list[frame]"
    annotation = param.annotation
    text = annotation.__name__ if isinstance(annotation, type) else repr(annotation)
    return (
        text.replace("typing.", "")
        .replace("datetime.date", "date")
        .replace("Literal", "one of ")
        .replace("NoneType", "None")
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
