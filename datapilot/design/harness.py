"""Runs a designed interface's tests inside the sandbox process (`python -m` this module).

The folder given holds `interface.py` (the code), `test_interface.py` (its tests: functions
`test_*(ctx)` taking an interface context over a snapshot of the user's warehouse), and
`run.json` (the spec's name, category, result kind and today). Network use is refused by an audit
hook before any of that code is imported. One JSON line on stdout reports every test.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

_NETWORK_REFUSED = "network access is not allowed here"
_NETWORK_EVENTS = ("socket.connect", "socket.bind", "socket.getaddrinfo", "socket.sendto")


def deny_network(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook: any socket use raises, so code under test cannot reach the network."""
    if event in _NETWORK_EVENTS or (event == "socket.__new__" and args and _inet(args)):
        raise PermissionError(f"{_NETWORK_REFUSED} ({event})")


def _inet(args: tuple[Any, ...]) -> bool:
    import socket

    family = args[1] if len(args) > 1 else None
    return family in (socket.AF_INET, socket.AF_INET6)


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path.name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run(folder: Path) -> dict[str, Any]:
    from datapilot.data.catalog import Catalog
    from datapilot.data.warehouse import Warehouse
    from datapilot.interfaces.context import InterfaceContext
    from datapilot.interfaces.registry import Registry

    job = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    sys.addaudithook(deny_network)
    try:
        module = _load(folder / "interface.py", "interface")
        registry = Registry()
        registry.collect(module)
    except Exception as error:
        return {"ok": False, "reason": f"the code does not load: {_error(error)}", "tests": []}
    if job["name"] not in registry:
        found = ", ".join(registry.names()) or "none"
        return {
            "ok": False,
            "reason": f"the code declares no @interface named {job['name']} (found: {found})",
            "tests": [],
        }
    declared = registry.get(job["name"])
    if (declared.category, declared.returns) != (job["category"], job["returns"]):
        return {
            "ok": False,
            "reason": f"the code declares {declared.category}/{declared.returns}, the spec "
            f"{job['category']}/{job['returns']}",
            "tests": [],
        }
    try:
        tests = _load(folder / "test_interface.py", "test_interface")
    except Exception as error:
        return {"ok": False, "reason": f"the tests do not load: {_error(error)}", "tests": []}
    warehouse = Warehouse(folder / "warehouse.duckdb")
    results: list[dict[str, Any]] = []
    for name, test in vars(tests).items():
        if not (name.startswith("test_") and callable(test)):
            continue
        ctx = InterfaceContext(
            warehouse=warehouse,
            catalog=Catalog.load(warehouse),
            today=date.fromisoformat(job["today"]),
            offline=True,
        )
        try:
            test(ctx)
        except Exception as error:
            results.append({"name": name, "passed": False, "error": _error(error)})
        else:
            results.append({"name": name, "passed": True, "error": None})
    if not results:
        return {"ok": False, "reason": "the tests define no test_* function", "tests": []}
    failed = [r["name"] for r in results if not r["passed"]]
    reason = f"tests failed: {', '.join(failed)}" if failed else None
    network = [r["error"] for r in results if _NETWORK_REFUSED in (r["error"] or "")]
    if network:
        reason = f"the code tried to reach the network, which is refused here: {network[0]}"
    return {"ok": not failed, "reason": reason, "tests": results}


def _error(error: BaseException) -> str:
    where = traceback.extract_tb(error.__traceback__)
    line = f" (line {where[-1].lineno} of {Path(where[-1].filename).name})" if where else ""
    return f"{type(error).__name__}: {error}{line}"[:500]


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1])), default=str))
