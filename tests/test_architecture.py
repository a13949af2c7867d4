"""The layout is checked, not just described: dependencies point down (import-linter's layers
contract in pyproject.toml), a planted back-import breaks it, and mypy passes on the package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` on the `datapilot` package found in `project`, with its pyproject."""
    env = {**os.environ, "PYTHONPATH": str(project)}
    return subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_dependencies_point_down() -> None:
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_a_back_import_breaks_the_layers_contract(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "datapilot", tmp_path / "datapilot", ignore=shutil.ignore_patterns("*.pyc")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    catalog = tmp_path / "datapilot" / "data" / "catalog.py"
    catalog.write_text(catalog.read_text() + "\nfrom datapilot.engine import facts  # upward\n")
    result = _lint_imports(tmp_path)
    assert result.returncode == 1
    assert "datapilot.data is not allowed to import datapilot.engine" in result.stdout
    assert "datapilot.data.catalog -> datapilot.engine.facts" in result.stdout


def test_a_package_left_out_of_the_layers_breaks_the_contract(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "datapilot", tmp_path / "datapilot", ignore=shutil.ignore_patterns("*.pyc")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "datapilot" / "unplaced.py").write_text('"""Not in any layer."""\n')
    result = _lint_imports(tmp_path)
    assert result.returncode == 1
    assert "datapilot.unplaced" in result.stdout


@pytest.mark.slow
def test_mypy_passes_on_the_package(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert "Success: no issues found" in result.stdout
