"""pydantic's question about a builtin default factory is answered once per process, and models
build and validate as they always did."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel, Field

from datapilot.core.default_factories import remember_builtin_factories


def test_models_keep_their_defaults_and_factories_of_validated_data() -> None:
    remember_builtin_factories()  # pydantic is loaded here: its machinery is wrapped at once

    class Row(BaseModel):
        tags: list[str] = Field(default_factory=list)
        names: dict[str, str] = Field(default_factory=dict)
        size: int = 2
        double: int = Field(default_factory=lambda data: data["size"] * 2)

    first, second = Row(), Row(size=5)
    first.tags.append("a")
    assert second.tags == [] and second.names == {}  # a new list per model, as always
    assert (first.double, second.double) == (4, 10)  # a factory taking the validated data


@pytest.mark.parametrize("pydantic_first", [False, True])
def test_a_builtin_factorys_signature_is_read_once(pydantic_first: bool) -> None:
    # Whether pydantic's machinery loads after Datapilot (the command line) or before it (a
    # program that built models first): models built from then on ask about `list` once.
    probe = (
        "import inspect, sys\n"
        "calls, original = [0], inspect.signature\n"
        "def counting(obj, *args, **kwargs):\n"
        "    calls[0] += obj is list\n"
        "    return original(obj, *args, **kwargs)\n"
        "inspect.signature = counting  # before pydantic takes it by name\n"
        + ("import pydantic.main\n" if pydantic_first else "")
        + "import datapilot\n"
        "from pydantic import BaseModel, Field\n"
        "before = calls[0]\n"
        "models = [type(f'M{i}', (BaseModel,), {'__annotations__': {'x': list[int]},"
        " 'x': Field(default_factory=list)}) for i in range(5)]\n"
        "assert all(m().x == [] for m in models)\n"
        "print('LIST', calls[0] - before)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    marker, calls = out.split()
    assert marker == "LIST" and int(calls) <= 1  # at most once, whichever model asks first


def test_the_wrapped_machinery_keeps_its_own_loader() -> None:
    # Tracebacks through pydantic's field machinery show its source lines, as usual.
    probe = (
        "import datapilot, sys\n"
        "import pydantic.main\n"
        "module = sys.modules['pydantic._internal._fields']\n"
        "print('LOADER', type(module.__loader__).__name__, type(module.__spec__.loader).__name__,"
        " any(type(f).__name__ == '_WhenImported' for f in sys.meta_path))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["LOADER", "SourceFileLoader", "SourceFileLoader", "False"]
