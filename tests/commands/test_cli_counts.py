"""Counts said to a person agree with their number: "1 chunk", "1 row", never "1 chunks"."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.tools.published.text import markdown_table


def test_kb_add_says_one_chunk(tmp_path: Path, data: object) -> None:
    note = tmp_path / "note.txt"
    note.write_text("The hedge ratio is 0.42.")
    added = CliRunner().invoke(app, ["kb", "add", f"notes-{uuid.uuid4().hex[:8]}", str(note)])
    assert added.exit_code == 0, added.output
    assert re.search(r"note\.txt\s+\(1 chunk\)", added.output), added.output
    assert "chunks" not in added.output


def test_a_one_row_table_says_one_row() -> None:
    text = markdown_table("Close", ["date", "AAPL"], [["2021-12-31", 177.57]], max_rows=40)
    assert text.splitlines()[0] == "**Close** (1 row)"
    many = markdown_table("Close", ["date", "AAPL"], [["2021-12-31", 1.0]] * 50, max_rows=10)
    assert many.splitlines()[0] == "**Close** (50 rows)"
    assert "40 rows left out here" in many
