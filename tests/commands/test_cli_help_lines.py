"""Every line of help is wrapped by the terminal, never at a docstring's line breaks."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from datapilot.cli import app

GROUPS = ["data", "db", "keys", "users", "assistants", "tools", "kb", "memories", "watch"]


def _listing_rows(output: str) -> list[str]:
    """The rows of the Commands panel, the border characters removed."""
    panel = output.split("Commands", 1)[1]
    return [line.strip("│ ") for line in panel.splitlines() if line.startswith("│")]


@pytest.mark.parametrize("group", [None, *GROUPS])
def test_each_command_of_a_listing_is_one_line_on_a_wide_terminal(group: str | None) -> None:
    args = [group, "--help"] if group else ["--help"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    rows = _listing_rows(result.output)
    assert rows
    # A row whose name column is empty continues the row above: on a 400-column terminal that
    # is only a line break of the source ('its chunks (a bar' / 'counts the pages of a PDF').
    continued = [row for row in rows if not re.match(r"\S+\s{2,}\S", row)]
    assert not continued, result.output


@pytest.mark.parametrize(
    ("command", "sentence"),
    [
        (["mcp"], "Serve the tools ask, search_entities, get_prices, get_series and"),
        (["chat"], "Chat in the terminal with an assistant; the chat is kept"),
        (["kb", "add"], "Add documents to a library; each is read, indexed and listed"),
    ],
)
def test_a_commands_own_help_opens_with_its_sentence_on_one_line(
    command: list[str], sentence: str
) -> None:
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.output.splitlines() if sentence in line]
    assert line.rstrip().endswith(".")
