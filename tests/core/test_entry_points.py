"""Installed entry points are read once per change of the installed packages, not once per
process, and a change is seen at once."""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path

import pytest

from datapilot.core import entry_points as kept


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A folder of installed packages first on `sys.path`, a cache folder of this test's own,
    and a process that has not read any entry point yet."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(kept, "_found", None)
    # Only the path's finders list packages, as in a fresh process: another finder an earlier
    # test's imports installed would make every reading scan, which is right for it.
    paths_only = [
        finder
        for finder in sys.meta_path
        if getattr(finder, "find_distributions", None) is None
        or getattr(finder, "__name__", type(finder).__name__) in kept.PATH_FINDERS
    ]
    monkeypatch.setattr(sys, "meta_path", paths_only)
    return folder


def _install(site: Path, name: str, points: str) -> Path:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(points)
    return info


def _as_listed(group: str) -> list[tuple[str, str, str]]:
    return sorted((p.name, p.value, p.group) for p in importlib.metadata.entry_points(group=group))


def _read(group: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, str, str]], int]:
    """`group`'s entry points as a new process reads them, and how many times it scanned the
    installed packages for them."""
    scans = [0]
    original = kept.scanned_entry_points

    def counting(**kwargs: str) -> object:
        scans[0] += 1
        return original(**kwargs)

    monkeypatch.setattr(kept, "_found", None)
    monkeypatch.setattr(kept, "scanned_entry_points", counting)
    found = sorted((p.name, p.value, p.group) for p in kept.entry_points(group))
    monkeypatch.setattr(kept, "scanned_entry_points", original)
    return found, scans[0]


def test_a_later_process_reads_the_kept_entry_points(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _install(site, "fake_plugin", "[datapilot]\nfake = fake_plugin.hooks\n")
    first, scanned = _read("datapilot", monkeypatch)
    assert first == _as_listed("datapilot")
    assert ("fake", "fake_plugin.hooks", "datapilot") in first
    assert scanned > 0
    again, scanned_again = _read("datapilot", monkeypatch)
    assert (again, scanned_again) == (first, 0)
    point = next(p for p in kept.entry_points("datapilot") if p.name == "fake")
    assert point.module == "fake_plugin.hooks"


def test_installing_changing_or_removing_a_package_is_seen(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _read("datapilot", monkeypatch)
    info = _install(site, "fake_plugin", "[datapilot]\nfake = fake_plugin.hooks\n")
    assert ("fake", "fake_plugin.hooks", "datapilot") in _read("datapilot", monkeypatch)[0]
    (info / "entry_points.txt").write_text(
        "[datapilot]\nfake = fake_plugin.hooks\nmore = fake_plugin.more_hooks\n"
    )
    found, _ = _read("datapilot", monkeypatch)
    assert found == _as_listed("datapilot")
    assert ("more", "fake_plugin.more_hooks", "datapilot") in found
    for file in info.iterdir():
        file.unlink()
    info.rmdir()
    found, _ = _read("datapilot", monkeypatch)
    assert found == _as_listed("datapilot")
    assert not any(name in ("fake", "more") for name, _, _ in found)


def test_pydantic_looks_for_its_plugins_when_a_package_installs_one(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pydantic.plugin import _loader

    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    monkeypatch.setattr(_loader, "_plugins", None)
    kept.skip_pydantic_plugin_scan()
    assert list(_loader.get_plugins()) == [] and _loader._plugins is None  # nothing scanned

    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS")
    _install(site, "fake_pydantic_plugin", "[pydantic]\nfake = fake_pydantic_plugin:plugin\n")
    monkeypatch.setattr(kept, "_found", None)
    kept.skip_pydantic_plugin_scan()
    assert "PYDANTIC_DISABLE_PLUGINS" not in os.environ  # pydantic loads it as it always does


def test_a_users_own_pydantic_plugin_setting_is_kept(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "logfire")
    kept.skip_pydantic_plugin_scan()
    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == "logfire"


def test_processes_with_other_search_paths_keep_their_own(
    site: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A test runner's process and the installed command's alternate: neither reads the packages
    # again because the other ran in between.
    _read("datapilot", monkeypatch)
    other = tmp_path / "other"
    other.mkdir()
    with monkeypatch.context() as elsewhere:
        elsewhere.syspath_prepend(str(other))
        _read("datapilot", elsewhere)
    assert _read("datapilot", monkeypatch)[1] == 0
