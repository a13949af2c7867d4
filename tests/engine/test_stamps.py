"""A stamp a chat client puts before a question (`[Sent at 2026-11-27 07:43 UTC]`) is metadata:
the question is read without it, so its window is the one the question names and the stamp's
words are never asked about."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.engine.stamps import strip_stamps
from datapilot.settings import get_settings


@pytest.mark.parametrize(
    ("sent", "read"),
    [
        ("[Sent at 2026-11-27 07:43 UTC] How did AAPL do?", "How did AAPL do?"),
        ("[Fri 2026-11-27 07:43 UTC] How did AAPL do?", "How did AAPL do?"),
        ("[2026-11-27T07:43:00Z]\n[Sent at 2026-11-27 07:43 UTC]\nAAPL?", "AAPL?"),
        ("[11/27/2026, 7:43:12 AM] How did AAPL do?", "How did AAPL do?"),
        ("[07:43] 苹果今年表现如何？", "苹果今年表现如何？"),
        ("【发送于 2026年11月27日 07:43】苹果今年表现如何？", "苹果今年表现如何？"),
    ],
)
def test_stamps_are_taken_off(sent: str, read: str) -> None:
    assert strip_stamps(sent)[0] == read


@pytest.mark.parametrize(
    "question",
    ["[2021] How did AAPL do?", "[AAPL] closing prices", "AAPL on 2021-03-08?", "[1990s]"],
)
def test_brackets_that_are_not_stamps_stay(question: str) -> None:
    assert strip_stamps(question) == (question, [])


def test_a_stamped_question_is_answered_for_the_window_it_names(
    data: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skfolio.datasets import load_sp500_dataset

    monkeypatch.setenv("DATAPILOT_OFFLINE", "true")
    monkeypatch.setenv("DATAPILOT_TODAY", "2026-11-27")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(
            app, ["ask", "--json", "[Sent at 2026-11-27 07:43 UTC] How did AAPL do in 2021?"]
        )
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["status"] == "ok"
    assert (answer["intent"]["start"], answer["intent"]["end"]) == ("2021-01-01", "2021-12-31")
    assert "UTC" not in answer["summary"] and "UTC" not in json.dumps(answer["intent"])
    prices = load_sp500_dataset()["AAPL"]
    change = (prices.loc["2021"].iloc[-1] / prices.loc["2020"].iloc[-1] - 1) * 100
    assert f"{change:.2f}%" in answer["summary"]
