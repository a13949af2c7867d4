"""`datapilot interpreter`: code is shown and runs only after `y`; questions get the data
workflow's answer; the sandbox is named at start."""

from __future__ import annotations

from typer.testing import CliRunner

from datapilot.cli import app


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
