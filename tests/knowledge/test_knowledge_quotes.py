"""A library's answer quotes the passages that answer the question, never a passage that only
ranked next to them (a fused ranking scores every passage alike in a small library)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from support.pdf_maker import make_pdf
from typer.testing import CliRunner

NOTE = "# Dividend policy\n\nThe board pays a quarterly dividend of 0.25 USD per share.\n"
TRAVEL = "# Travel policy\n\nEmployees book economy class for flights under six hours.\n"
REPORT = [
    "Risk factors",
    "Our main risk is currency exposure: about 40 percent of revenue is earned in euros.",
    "Outlook",
    "Management expects revenue growth of 5 percent in 2025.",
]


@pytest.fixture
def library(tmp_path: Path, data) -> str:  # type: ignore[no-untyped-def]
    from datapilot.cli import app as cli

    (tmp_path / "dividends.md").write_text(NOTE)
    (tmp_path / "travel.md").write_text(TRAVEL)
    (tmp_path / "report.pdf").write_bytes(make_pdf([REPORT]))
    name = f"notes-{uuid.uuid4().hex[:8]}"
    files = [str(tmp_path / f) for f in ("dividends.md", "travel.md", "report.pdf")]
    added = CliRunner().invoke(cli, ["kb", "add", name, *files])
    assert added.exit_code == 0, added.output
    return name


@pytest.mark.parametrize(
    ("question", "answering", "source"),
    [
        ("What dividend does the board pay per share?", "0.25 USD per share", "dividends.md"),
        ("How much revenue growth does management expect?", "growth of 5 percent", "report.pdf"),
    ],
)
def test_only_the_passage_that_answers_is_quoted(
    library: str, question: str, answering: str, source: str
) -> None:
    from datapilot.cli import app as cli

    asked = CliRunner().invoke(cli, ["ask", question, "--library", library, "--json"])
    answer = json.loads(asked.output)
    assert answer["status"] == "ok", answer
    assert [q["source"] for q in answer["quotes"]] == [source], answer["quotes"]
    assert answering in answer["quotes"][0]["text"]
    quoted = [b for b in answer["summary"].split("\n\n") if b.startswith(">")]
    assert len(quoted) == 1 and answering in quoted[0], answer["summary"]


def test_a_pdf_heading_is_quoted_apart_from_its_paragraph(library: str) -> None:
    """The PDF's "Outlook" heading is the passage's heading, not the first word of its text."""
    from datapilot.cli import app as cli

    question = "How much revenue growth does management expect?"
    asked = CliRunner().invoke(cli, ["ask", question, "--library", library, "--json"])
    answer = json.loads(asked.output)
    assert answer["quotes"][0]["text"] == REPORT[3], answer["quotes"]
    lines = answer["summary"].splitlines()
    assert f"> **{REPORT[2]}**" in lines, answer["summary"]
    assert any(line.startswith(f"> {REPORT[3]}") for line in lines), answer["summary"]


HARD_BREAKS = (
    "# Hedging policy\n\nThe hedge ratio for the bond book is 0.42, set in March\n"
    "after the committee's review of duration risk.\nIt is reviewed every quarter.\n"
)


def test_a_passage_with_hard_line_breaks_stays_in_its_quote_in_the_terminal(
    tmp_path: Path,
    data,  # type: ignore[no-untyped-def]
) -> None:
    """Each line of the source stays inside the quote (the terminal prints the Markdown as it
    is, where a lazy continuation line reads as text outside the quote)."""
    from datapilot.cli import app as cli

    (tmp_path / "hedging.md").write_text(HARD_BREAKS)
    name = f"desk-{uuid.uuid4().hex[:8]}"
    added = CliRunner().invoke(cli, ["kb", "add", name, str(tmp_path / "hedging.md")])
    assert added.exit_code == 0, added.output
    question = "What is the hedge ratio for the bond book?"
    asked = CliRunner().invoke(cli, ["ask", question, "--library", name], env={"COLUMNS": "200"})
    assert asked.exit_code == 0, asked.output
    shown = [line.strip("│ ") for line in asked.output.splitlines()]
    for source_line in HARD_BREAKS.splitlines()[2:]:
        quoted = [line for line in shown if source_line.rstrip(".") in line]
        assert quoted and all(line.startswith(">") for line in quoted), (source_line, shown)
