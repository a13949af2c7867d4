"""Long commands show a progress bar on a terminal (here a pseudo-terminal) and nothing of it
when their output is piped: `datapilot kb add` counts the pages of a PDF."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from support.pdf_maker import make_pdf

PAGES = [
    [f"Section {n}: the {word} desk grew its book by {n} percent."]
    for n, word in enumerate(
        ["equity", "credit", "rates", "currency", "commodity", "funding", "treasury", "clearing"], 1
    )
]
CLI = [sys.executable, "-c", "from datapilot.cli import app; app()"]


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DATAPILOT_DATA_DIR": str(tmp_path / "data"),
        "DATAPILOT_OFFLINE": "1",
        "TERM": "xterm-256color",
        "COLUMNS": "120",
    }


def _in_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run `args` with a pseudo-terminal as its standard output and error: its exit code and
    everything it wrote there."""
    main, child = pty.openpty()
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=child, stderr=child, env=env)
    os.close(child)
    written = b""
    while True:
        ready, _, _ = select.select([main], [], [], 120)
        if not ready:
            process.kill()
            raise AssertionError(f"no output for 120 s: {written!r}")
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        written += chunk
    os.close(main)
    return process.wait(timeout=60), written.decode(errors="replace")


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "desks.pdf"
    path.write_bytes(make_pdf(PAGES))
    return path


def test_kb_add_shows_a_page_bar_on_a_terminal(tmp_path: Path, report: Path) -> None:
    code, written = _in_terminal([*CLI, "kb", "add", "desks", str(report)], _env(tmp_path))
    assert code == 0, written
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", written)  # the terminal's colours and moves
    assert "Reading desks.pdf" in shown and f"{len(PAGES)}/{len(PAGES)} pages" in shown, shown
    assert f"desks.pdf  ({len(PAGES)} pages, {len(PAGES)} chunks)" in written


def test_kb_add_piped_prints_only_its_result(tmp_path: Path, report: Path) -> None:
    done = subprocess.run(
        [*CLI, "kb", "add", "desks", str(report)],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"desks.pdf  ({len(PAGES)} pages, {len(PAGES)} chunks)")
    assert len(done.stdout.strip().splitlines()) == 1
    assert "Reading" not in done.stderr and "pages" not in done.stderr and "\x1b" not in done.stderr
