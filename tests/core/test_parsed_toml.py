"""TOML files are parsed once per change of the file, not once per process."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from datapilot.core import parsed_toml
from datapilot.core.parsed_toml import read_toml

TEXT = """
title = "vocabulary"
words = ["收盘价", "close", "adj. close"]
[period]
start = 2020-03-01
at = 1979-05-27T07:32:00-08:00
local = 1979-05-27T07:32:00.5
alarm = 07:32:00
[[rows]]
n = 1
x = 2.5
"""


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The texts `tomllib` is asked to parse, with the cache in a folder of this test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    seen: list[str] = []
    original = tomllib.loads

    def counting(text: str) -> dict[str, object]:
        seen.append(text)
        return original(text)

    monkeypatch.setattr(parsed_toml.tomllib, "loads", counting)
    return seen


def test_a_file_is_parsed_once_and_read_back_the_same(parses: list[str], tmp_path: Path) -> None:
    path = tmp_path / "words.toml"
    path.write_text(TEXT, encoding="utf-8")
    expected = tomllib.loads(TEXT)
    parses.clear()
    assert read_toml(path) == expected
    assert read_toml(path) == expected  # dates, times and offsets as tomllib gives them
    assert len(parses) == 1


def test_a_changed_file_is_parsed_again(parses: list[str], tmp_path: Path) -> None:
    path = tmp_path / "words.toml"
    path.write_text('word = "close"\n', encoding="utf-8")
    assert read_toml(path) == {"word": "close"}
    path.write_text('word = "adjusted close"\n', encoding="utf-8")
    assert read_toml(path) == {"word": "adjusted close"}
    assert len(parses) == 2


def test_a_damaged_cache_means_parsing_again(parses: list[str], tmp_path: Path) -> None:
    path = tmp_path / "words.toml"
    path.write_text('word = "close"\n', encoding="utf-8")
    read_toml(path)
    for entry in (tmp_path / "cache").rglob("*.json"):
        entry.write_text('{"format": 1, "toml": ', encoding="utf-8")
    assert read_toml(path) == {"word": "close"}
    assert len(parses) == 2


def test_errors_are_tomllibs(parses: list[str], tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_toml(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("word = \n", encoding="utf-8")
    with pytest.raises(tomllib.TOMLDecodeError):
        read_toml(bad)
