"""The docs site: the settings page is the one `docs/gen_settings.py` writes from the `Settings`
model, every setting says what it does, and every page is in the site's navigation."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

from datapilot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_settings", DOCS / "gen_settings.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_setting_has_a_description() -> None:
    missing = [name for name, field in Settings.model_fields.items() if not field.description]
    assert not missing, f"give these Settings fields a description=: {', '.join(missing)}"


def test_settings_page_is_generated_from_the_model() -> None:
    committed = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert committed == _generator().render(), (
        "docs/settings.md is out of date: run `python docs/gen_settings.py` and commit it"
    )


def test_settings_page_names_every_variable_in_full() -> None:
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    for name in Settings.model_fields:
        assert f"`DATAPILOT_{name.upper()}`" in page, name


def _nav_pages(items: list) -> list[str]:
    pages: list[str] = []
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages.extend(_nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_every_page_is_in_the_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = _nav_pages(config["nav"])
    pages = sorted(str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md"))
    assert sorted(nav) == pages
