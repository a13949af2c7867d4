"""`datapilot interpreter`: code is shown and runs only after `y`; questions get the data
workflow's answer; the sandbox is named at start."""

from __future__ import annotations

import io
import json
import sys
import time

import pytest
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint


def test_code_runs_only_after_yes_and_questions_are_answered(data) -> None:  # type: ignore[no-untyped-def]
    from skfolio.datasets import load_sp500_dataset

    prices = load_sp500_dataset()["AAPL"]
    expected = (prices.loc["2021"].iloc[-1] / prices.loc["2020"].iloc[-1] - 1) * 100
    typed = "\n".join(
        [
            "x = 6 * 7",
            "y",
            "print('declined', x)",
            "n",
            "print('approved', x + 1)",
            "y",
            "How much did Apple return in 2021?",
            "exit",
        ]
    )
    result = CliRunner().invoke(app, ["interpreter"], input=typed + "\n")
    assert result.exit_code == 0, result.output
    assert "Sandbox: namespace" in result.output
    assert "approved 43" in result.output
    assert "declined" not in result.output.replace("print('declined', x)", "")
    assert f"{expected:.2f}%" in result.output


@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
def test_with_a_model_a_question_is_answered_by_code_after_yes(  # type: ignore[no-untyped-def]
    data, monkeypatch
) -> None:
    """The model writes code; `n` declines it, `y` runs it and the model reads its output."""
    from datapilot.model_client.client import forget_endpoint_modes
    from datapilot.settings import get_settings

    def analyst(request: ChatRequest) -> Reply:
        last = request.messages[-1]
        if last.get("role") == "user":
            code = json.dumps({"code": "print('product', 6 * 7)"})
            call = {"id": f"c{len(request.messages)}", "name": "python", "arguments": code}
            return Reply(content="Computing.", tool_calls=[call])
        return Reply(content=f"The kernel printed {last['content']!r}.")

    with ScriptedEndpoint(analyst) as endpoint:
        monkeypatch.setenv("DATAPILOT_LLM_BASE_URL", endpoint.base_url)
        monkeypatch.setenv("DATAPILOT_LLM_MODEL", "scripted")
        monkeypatch.setenv("DATAPILOT_LLM_MAX_RETRIES", "0")
        get_settings.cache_clear()
        forget_endpoint_modes()
        try:
            typed = "What is six times seven?\nn\nAnd again?\ny\nexit\n"
            result = CliRunner().invoke(app, ["interpreter"], input=typed)
        finally:
            get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    declined, approved = result.output.split("Not run.", 1)
    assert "print('product', 6 * 7)" in declined and "product 42" not in declined
    assert "The kernel printed 'product 42'." in approved
    # The model heard the first code was not run, and read the second one's output once.
    said = [json.dumps(r.messages) for r in endpoint.requests]
    assert "did not run" in said[1] and sum("product 42" in text for text in said) == 1


class _Stamped(io.StringIO):
    """A terminal that notes when each piece of text reached it."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        self.pieces.append((time.monotonic(), text))
        return super().write(text)

    def when(self, line: str) -> float:
        """When `line` was written as a line of its own (not inside the code listing)."""
        return next(at for at, piece in self.pieces if line in piece.splitlines())


@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
def test_with_a_model_each_rounds_output_shows_as_it_comes(  # type: ignore[no-untyped-def]
    data, monkeypatch
) -> None:
    """The REPL itself (`interpreter --yes`, typed input): what the run prints reaches the
    terminal while the code still runs, not when the round ends."""
    from datapilot.commands.interpreter import interpreter
    from datapilot.model_client.client import forget_endpoint_modes
    from datapilot.settings import get_settings

    code = "import time\nprint('first', flush=True)\ntime.sleep(2)\nprint('second')"

    def analyst(request: ChatRequest) -> Reply:
        if request.messages[-1].get("role") == "user":
            call = {"id": "c1", "name": "python", "arguments": json.dumps({"code": code})}
            return Reply(content="Counting.", tool_calls=[call])
        return Reply(content="All printed.")

    terminal = _Stamped()
    with ScriptedEndpoint(analyst) as endpoint:
        monkeypatch.setenv("DATAPILOT_LLM_BASE_URL", endpoint.base_url)
        monkeypatch.setenv("DATAPILOT_LLM_MODEL", "scripted")
        monkeypatch.setenv("DATAPILOT_LLM_MAX_RETRIES", "0")
        monkeypatch.setattr(sys, "stdin", io.StringIO("Print two words slowly\nexit\n"))
        monkeypatch.setattr(sys, "stdout", terminal)
        get_settings.cache_clear()
        forget_endpoint_modes()
        try:
            interpreter(yes=True)
        finally:
            get_settings.cache_clear()
    shown = terminal.getvalue()
    assert shown.index("Counting.") < shown.index("first") < shown.index("second")
    assert shown.index("second") < shown.index("All printed.")
    # `first` was on the terminal while the code slept, before `second` was printed.
    assert terminal.when("second") - terminal.when("first") >= 1.5
