"""`datapilot ask` and its charts outside a browser: drawn in the terminal when stdout is one,
opened in the browser with `--open`, and written by `--out` with one shared plotly.min.js and
the user's file mode."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import webbrowser
from pathlib import Path

import pandas as pd
import pytest
from support import paths
from typer.testing import CliRunner

from datapilot.cli import app

runner = CliRunner()
KLINE = "Show the K-line of AAPL with volume and MACD in 2012"
TODAY = "2022-12-28"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


def _aapl_2012() -> pd.DataFrame:
    from bokeh_sampledata.stocks import AAPL

    frame = pd.DataFrame(AAPL)
    frame["date"] = pd.to_datetime(frame["date"])
    return frame[frame["date"].dt.year == 2012]


@pytest.fixture()
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user cache (where the shared plotly.min.js lives) inside the test's folder."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def test_a_terminal_gets_the_chart_drawn(data) -> None:  # type: ignore[no-untyped-def]
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT), "COLUMNS": "110", "LINES": "50"}
    leader, follower = pty.openpty()
    command = [sys.executable, "-c", "from datapilot.cli import app; app()", "ask", KLINE]
    process = subprocess.Popen(
        [*command, "--today", TODAY], stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed: the command ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert process.wait(timeout=120) == 0
    os.close(leader)
    screen = _ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
    highest = _aapl_2012()["high"].max()
    # The candlestick's price axis tops at the year's highest high; the volume panel follows.
    assert "┌" in screen and f"{highest:.1f}┤" in screen, screen[-4000:]
    assert "Volume" in screen and "2012-12-31" in screen


def test_a_pipe_gets_the_chart_title_only(data) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["ask", KLINE, "--today", TODAY])
    assert result.exit_code == 0, result.output
    assert "K-line" in result.output and "┌" not in result.output


def test_open_shows_each_chart_in_the_browser(
    data, own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    result = runner.invoke(app, ["ask", KLINE, "--today", TODAY, "--open"])
    assert result.exit_code == 0, result.output
    assert len(opened) == 1 and opened[0].startswith("file://")
    page = Path(opened[0].removeprefix("file://"))
    assert "K-line" in page.read_text(encoding="utf-8")
    assert (page.parent / "plotly.min.js").stat().st_size > 1_000_000


def test_out_links_one_plotly_and_keeps_the_users_mode(
    data, own_cache: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    before = os.umask(0o027)
    try:
        for folder in ("first", "second"):
            result = runner.invoke(
                app, ["ask", KLINE, "--today", TODAY, "--out", str(tmp_path / folder)]
            )
            assert result.exit_code == 0, result.output
    finally:
        os.umask(before)
    bundles = [(tmp_path / folder / "plotly.min.js").stat() for folder in ("first", "second")]
    # One file on disk, whatever the number of folders: the same inode, linked.
    assert bundles[0].st_ino == bundles[1].st_ino and bundles[0].st_nlink >= 3
    written = [path for path in (tmp_path / "first").iterdir() if path.suffix != ".js"]
    assert {path.suffix for path in written} >= {".png", ".html", ".json"}
    modes = {path.suffix: path.stat().st_mode & 0o777 for path in written}
    assert set(modes.values()) == {0o640}, modes
