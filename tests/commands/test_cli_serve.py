"""`datapilot serve` says where the chat page is before the server's own log starts."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from datapilot.cli import app


@pytest.mark.parametrize(
    ("options", "url"),
    [([], "http://127.0.0.1:7777/"), (["--port", "7999"], "http://127.0.0.1:7999/")],
)
def test_serve_names_the_chat_page(
    options: list[str], url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr("datapilot.commands.serve._run", lambda config: started.append(config.app))
    result = CliRunner().invoke(app, ["serve", *options])
    assert result.exit_code == 0, result.output
    assert started  # the server would start after the line
    (line,) = [line for line in result.output.splitlines() if line.startswith("Chat page:")]
    assert url in line and f"{url}docs" in line


def test_serve_help_wraps_its_paragraphs_at_the_terminals_width() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    # The second paragraph of the docstring is one line on a wide terminal: its line breaks in
    # the source are not breaks on screen (they cut sentences on a narrow one).
    (line,) = [line for line in result.output.splitlines() if "One worker suits" in line]
    assert "one core busy." in line
