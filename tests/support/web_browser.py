"""Helpers of the browser tests: the system Chromium (never a download), a live server on
loopback with the bundled data, screenshots into docs/screenshots/."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest
from pydantic import SecretStr

from datapilot.settings import Settings
from support import paths

# Written where the run says (DATAPILOT_SCREENSHOTS=docs/screenshots refreshes the README's
# images), else under build/ so that a test run leaves the working tree clean.
SCREENSHOTS = Path(os.environ.get("DATAPILOT_SCREENSHOTS", paths.ROOT / "build" / "screenshots"))
TODAY = date(2022, 12, 28)


def chromium_path() -> str:
    """The distribution's Chromium; skips (fails under CI=true) where there is none."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = (
        "no Chromium on this machine: the browser tests drive the system one "
        "(`apt-get install chromium`, or `chromium-browser` on Ubuntu)"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def web_settings(database: Path) -> Settings:
    """Offline, the bundled data, a fixed today; its own SQLite store."""
    return Settings(
        brain="offline",
        offline=True,
        today=TODAY,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{database}"),
    )


@contextmanager
def browser() -> Iterator[object]:
    """One headless Chromium for the whole module."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


def screenshot(page: object, name: str) -> None:
    """Save the page as NAME.png in the screenshots folder (docs/screenshots holds the README's)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))  # type: ignore[attr-defined]
