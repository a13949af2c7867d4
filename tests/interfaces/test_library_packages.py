"""The interface library follows the design packages accepted in a data dir while the process
runs: the same library while nothing changes, a new one with the interface once it is accepted,
none of it once its code is edited or the package rejected; a package clashing with the library
is skipped with a warning instead of breaking every question."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from support import design as scripted

from datapilot.design import library
from datapilot.design.sandbox import SandboxResult
from datapilot.design.specs import InterfaceDesign
from datapilot.interfaces.library import default_registry

NAME = "dividend_yield"


def _write(data_dir: Path) -> Path:
    spec = InterfaceDesign.model_validate(scripted.MERGED)
    package = library.write_package(
        data_dir, spec, scripted.CODE, scripted.TESTS, SandboxResult(ok=True), "scripted"
    )
    return Path(package.path)


def test_the_library_follows_accept_edit_and_reject(tmp_path: Path) -> None:
    plain = default_registry(tmp_path)  # no plugins folder yet
    assert NAME not in plain and "get_prices" in plain
    assert default_registry(tmp_path) is plain  # reused while nothing changes

    folder = _write(tmp_path)
    assert NAME not in default_registry(tmp_path)  # written, not accepted

    library.accept(tmp_path, [NAME])
    accepted = default_registry(tmp_path)
    assert NAME in accepted and "get_prices" in accepted
    assert default_registry(tmp_path) is accepted

    with (folder / "interface.py").open("a", encoding="utf-8") as code:
        code.write("\n# edited after acceptance\n")
    assert NAME not in default_registry(tmp_path)

    library.accept(tmp_path, [NAME])  # reviewed again
    assert NAME in default_registry(tmp_path)

    library.reject(tmp_path, [NAME])
    assert NAME not in default_registry(tmp_path)


def test_a_package_naming_an_interface_the_library_has_is_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = _write(tmp_path)
    shutil.copytree(folder, folder.with_name("yield_again"))  # declares dividend_yield too
    library.accept(tmp_path, [], everything=True)
    with caplog.at_level(logging.WARNING, logger="datapilot.plugins"):
        built = default_registry(tmp_path)
    assert NAME in built  # the first package (by folder name) keeps it
    assert any(
        "yield_again was not loaded" in r.message and "already has dividend_yield" in r.message
        for r in caplog.records
    ), caplog.text
