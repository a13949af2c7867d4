"""Designed interfaces as plugin packages in `<data dir>/plugins/<name>/`.

A package holds the code (`interface.py`), its tests (`test_interface.py`), a `plugin.py` that
registers the code through the `register_interfaces` hook like any plugin, and `plugin.json`:
the spec and its provenance (the requests that motivated it, the model, the date, the test
results, a hash of the code). Only packages whose tests passed are written; the plugin loader
registers one only once it is accepted (`datapilot design accept`), and only while its files
still match the hash that was accepted.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from datapilot.design.sandbox import SandboxResult
from datapilot.design.specs import InterfaceDesign
from datapilot.plugins import PLUGIN_FILE, package_hash

PLUGIN_PY = '''"""Registers the designed interface in interface.py (by `datapilot design`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from datapilot.hookspecs import hookimpl


@hookimpl
def register_interfaces(registry):
    path = Path(__file__).with_name("interface.py")
    name = "datapilot_designed_{name}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    registry.collect(module)
'''


class Provenance(BaseModel):
    requests: list[str]
    model: str
    created: str = Field(description="When the package was written (UTC, ISO).")
    tests: list[dict[str, Any]]
    isolation: str
    accepted: bool = False
    accepted_at: str | None = None
    sha256: str = ""


class Package(BaseModel):
    """A plugin package as `design list` shows it."""

    name: str
    path: str
    spec: InterfaceDesign
    provenance: Provenance


def plugins_dir(data_dir: Path) -> Path:
    return data_dir / "plugins"


def write_package(
    data_dir: Path,
    spec: InterfaceDesign,
    code: str,
    tests: str,
    result: SandboxResult,
    model: str,
) -> Package:
    """Write the package of a spec whose tests passed (replacing an earlier one, unaccepted)."""
    if not result.ok:
        raise ValueError(f"{spec.name}: only code whose tests pass becomes a package")
    folder = plugins_dir(data_dir) / spec.name
    partial = folder.with_name(f".{spec.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    (partial / "interface.py").write_text(code, encoding="utf-8")
    (partial / "test_interface.py").write_text(tests, encoding="utf-8")
    (partial / "plugin.py").write_text(PLUGIN_PY.replace("{name}", spec.name), encoding="utf-8")
    provenance = Provenance(
        requests=spec.requests,
        model=model,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        tests=[t.model_dump() for t in result.tests],
        isolation=result.isolation,
    )
    _write_meta(partial, spec, provenance)
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)  # the package appears whole or not at all
    return Package(name=spec.name, path=str(folder), spec=spec, provenance=provenance)


def _write_meta(folder: Path, spec: InterfaceDesign, provenance: Provenance) -> None:
    body = {"name": spec.name, "spec": spec.model_dump(mode="json"), **provenance.model_dump()}
    text = json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    partial = folder / f".{PLUGIN_FILE}.partial"
    partial.write_text(text, encoding="utf-8")
    partial.replace(folder / PLUGIN_FILE)


def packages(data_dir: Path) -> list[Package]:
    """Every designed package, accepted or not, by name."""
    found: list[Package] = []
    root = plugins_dir(data_dir)
    for meta in sorted(root.glob(f"*/{PLUGIN_FILE}")) if root.exists() else []:
        try:
            body = json.loads(meta.read_text(encoding="utf-8"))
            spec = InterfaceDesign.model_validate(body.pop("spec"))
            body.pop("name", None)
            found.append(
                Package(
                    name=meta.parent.name,
                    path=str(meta.parent),
                    spec=spec,
                    provenance=Provenance.model_validate(body),
                )
            )
        except (ValueError, KeyError):
            continue  # not a designed package (another plugin's folder)
    return found


def accept(data_dir: Path, names: list[str], everything: bool = False) -> list[Package]:
    """Mark packages accepted and record the hash of their files; the interface library takes
    them in when it is next asked for. An unknown name raises LookupError naming the known ones."""
    known = {p.name: p for p in packages(data_dir)}
    chosen = list(known) if everything else names
    for name in chosen:
        if name not in known:
            raise LookupError(
                f"No designed interface {name!r}; `datapilot design list` shows "
                + (", ".join(known) or "none yet")
            )
    done: list[Package] = []
    for name in chosen:
        package = known[name]
        folder = Path(package.path)
        provenance = package.provenance.model_copy(
            update={
                "accepted": True,
                "accepted_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "sha256": package_hash(folder),
            }
        )
        spec = package.spec.model_copy(update={"status": "accepted"})
        _write_meta(folder, spec, provenance)
        done.append(package.model_copy(update={"provenance": provenance, "spec": spec}))
    return done


def reject(data_dir: Path, names: list[str]) -> list[str]:
    """Remove packages (accepted or not); returns the names removed."""
    known = {p.name: p for p in packages(data_dir)}
    for name in names:
        if name not in known:
            raise LookupError(
                f"No designed interface {name!r}; `datapilot design list` shows "
                + (", ".join(known) or "none yet")
            )
    for name in names:
        shutil.rmtree(known[name].path)
    return names
