"""A ruled table in a PDF is read as a table (its rows as rows, not as running text), quoted by
a question about it, and charted with every numeric column against the table's row heading."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pandas as pd
from support.pdf_maker import make_table_pdf
from typer.testing import CliRunner

from datapilot.knowledge.chunking import parse

INTRO = "Segment results for the year, in millions of dollars. Retail led the growth."
ROWS = [
    ["Segment", "Q1", "Q2", "Q3", "Q4"],
    ["Retail", "120", "130", "125", "140"],
    ["Wealth", "80", "85", "90", "95"],
    ["Markets", "60", "55", "70", "65"],
]


def test_a_pdf_table_is_one_table_chunk_and_not_running_text() -> None:
    parsed = parse("segments.pdf", make_table_pdf(INTRO, ROWS))
    tables = [c for c in parsed.chunks if c.table]
    assert len(tables) == 1
    assert tables[0].table is not None
    assert tables[0].table["columns"] == ROWS[0] and tables[0].table["rows"] == ROWS[1:]
    texts = [c.text for c in parsed.chunks if not c.table]
    assert texts == [INTRO]  # the cells are not read a second time as a paragraph


def test_plot_the_segment_table_charts_every_numeric_column(tmp_path: Path, data) -> None:  # type: ignore[no-untyped-def]
    from datapilot.cli import app as cli

    pdf = tmp_path / "segments.pdf"
    pdf.write_bytes(make_table_pdf(INTRO, ROWS))
    library = f"desk-{uuid.uuid4().hex[:8]}"
    runner = CliRunner()
    added = runner.invoke(cli, ["kb", "add", library, str(pdf)])
    assert added.exit_code == 0, added.output
    asked = runner.invoke(cli, ["ask", "Plot the segment table", "--library", library, "--json"])
    answer = json.loads(asked.output)
    assert answer["status"] == "ok", answer
    chart = next(o for o in answer["outputs"] if o["kind"] == "chart")
    frame = pd.DataFrame(ROWS[1:], columns=ROWS[0]).set_index("Segment").astype(float)
    assert chart["spec"]["x_title"] == "Segment"
    assert [y for panel in chart["spec"]["panels"] for y in panel["y"]] == list(frame.columns)
    drawn = pd.DataFrame(chart["spec"]["rows"], columns=chart["spec"]["columns"])
    pd.testing.assert_frame_equal(drawn.set_index("Segment"), frame)
    assert answer["citations"][0]["source"] == "segments.pdf"

    quoted = runner.invoke(
        cli, ["ask", "What was Q3 revenue of Retail?", "--library", library, "--json"]
    )
    cell = json.loads(quoted.output)
    assert cell["status"] == "ok"
    assert "Retail | 120 | 130 | 125 | 140" in cell["citations"][0]["text"]
    q3 = frame.loc["Retail", "Q3"]  # the cell the question names, quoted before its table
    assert f"> Retail, Q3: {q3:g}\n" in cell["summary"]
