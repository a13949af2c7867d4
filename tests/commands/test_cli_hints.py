"""Hints a user follows must work as printed: an extra's brackets survive the terminal's markup,
and the no-data advice names the extra a default install needs before `data fetch`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.settings import get_settings


@pytest.fixture()
def runner(monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_data_fetch_keeps_the_extra_in_its_install_hint(
    data: object, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # yfinance missing (as on a default install), whether or not this machine has it.
    monkeypatch.setitem(sys.modules, "yfinance", None)
    result = runner.invoke(app, ["data", "fetch", "TSLA", "--provider", "yahoo"])
    assert result.exit_code == 1
    assert "'datapilot[live]'" in result.output, result.output


def test_an_error_message_keeps_its_brackets(data: object, runner: CliRunner) -> None:
    result = runner.invoke(app, ["data", "import", "x.csv", "--kind", "close[live]"])
    assert result.exit_code == 1
    assert "'close[live]'" in result.output, result.output


@pytest.mark.parametrize(
    ("question", "fetch"),
    [
        ("How did Tesla do in 2021?", "datapilot data fetch TSLA"),
        ("特斯拉2021年表现如何？", "datapilot data fetch TSLA"),
    ],
)
def test_the_no_data_advice_names_the_extra_data_fetch_needs(
    data: object, runner: CliRunner, monkeypatch: pytest.MonkeyPatch, question: str, fetch: str
) -> None:
    monkeypatch.setenv("DATAPILOT_OFFLINE", "true")
    result = runner.invoke(app, ["ask", "--json", question])
    answer = json.loads(result.stdout)
    assert answer["status"] == "no_data"
    assert fetch in answer["message"]
    assert "pip install 'datapilot[live]'" in answer["message"]
