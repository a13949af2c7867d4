"""Data and documents together: a question the library does not answer but the market data does
is answered from the data, noting that the library had nothing (from `ask --library` and in a
chat bound to the library); a question about the documents they do not answer says "not
mentioned" first, in the question's language, then the closest passages labelled as such."""

from __future__ import annotations

import base64
import json
import uuid
from pathlib import Path

import pytest
from support.platform_app import app_for, client_of, key_for, platform_settings
from typer.testing import CliRunner

REPORT = """# Northwind Bank annual report 2022

Northwind Bank grew net interest income by 14% to $8.3 billion in 2022, as higher policy rates
lifted loan yields faster than deposit costs.

## Capital

The common equity tier 1 ratio ended the year at 12.7%, above the 10.5% regulatory minimum.

## 风险

信用成本上升：不良贷款率从1.1%升至1.4%，主要来自商业地产贷款。
"""


def _apple_2021() -> str:
    """Apple's 2021 return, as the bundled data (skfolio's S&P 500 prices) gives it."""
    from skfolio.datasets import load_sp500_dataset

    close = load_sp500_dataset()["AAPL"]
    return f"{(close.loc['2021-12-31'] / close.loc['2020-12-31'] - 1) * 100:.2f}%"


@pytest.fixture
def library(tmp_path: Path, data) -> str:  # type: ignore[no-untyped-def]
    from datapilot.cli import app as cli

    report = tmp_path / "report.md"
    report.write_text(REPORT)
    name = f"bank-{uuid.uuid4().hex[:8]}"
    added = CliRunner().invoke(cli, ["kb", "add", name, str(report)])
    assert added.exit_code == 0, added.output
    return name


def _ask(question: str, library: str) -> dict:  # type: ignore[type-arg]
    from datapilot.cli import app as cli

    asked = CliRunner().invoke(cli, ["ask", question, "--library", library, "--json"])
    return dict(json.loads(asked.output))


def test_a_data_question_is_answered_from_the_data_with_a_note(library: str) -> None:
    answer = _ask("How did Apple do in 2021?", library)
    assert answer["status"] == "ok", answer
    assert answer["notes"][0] == (
        f"The library {library!r} has nothing on this; the answer comes from the market data."
    )
    assert _apple_2021() in answer["summary"]
    assert any(o["kind"] == "chart" for o in answer["outputs"]) and not answer["citations"]


@pytest.mark.parametrize(
    "question, first, label",
    [
        (
            "What does the report say about share buybacks?",
            "The documents in the library {library!r} do not mention this.",
            "The closest passages in it (they do not answer the question):",
        ),
        (
            "年报中关于商业地产的股票回购计划说了什么？",
            "知识库“{library}”的文档中没有提到这一点。",
            "以下是库中最接近的段落（它们并未回答这个问题）：",
        ),
    ],
)
def test_what_the_documents_do_not_say_is_said_first_then_the_closest_passages(
    library: str, question: str, first: str, label: str
) -> None:
    answer = _ask(question, library)
    message = first.format(library=library)
    assert answer["status"] == "no_data" and answer["message"] == message, answer
    parts = answer["summary"].split("\n\n")
    assert parts[0] == message and parts[1] == label
    assert any(figure in parts[2] for figure in ("8.3 billion", "12.7%", "1.4%"))
    assert not answer["citations"]  # the closest passages are not cited as an answer


async def test_a_chat_bound_to_a_library_answers_data_questions_from_the_data(
    store_url: str, data, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    app = app_for(platform_settings(store_url).model_copy(update={"data_dir": tmp_path / "d"}))
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        await client.post("/api/v1/libraries", json={"name": "research"})
        document = {
            "name": "report.md",
            "content_base64": base64.b64encode(REPORT.encode()).decode(),
        }
        await client.post("/api/v1/libraries/research/documents", json=document)
        assistant = (
            await client.post("/api/v1/assistants", json={"name": "a", "library_id": "research"})
        ).json()["id"]
        chat = (await client.post("/api/v1/chats", json={"assistant_id": assistant})).json()["id"]
        reply = await client.post(
            f"/api/v1/chats/{chat}/messages",
            json={"content": "How did Apple do in 2021?", "stream": False},
        )
    answer = reply.json()["answer"]
    assert answer["status"] == "ok", answer
    assert answer["notes"][0].startswith("The library 'research' has nothing on this")
    assert _apple_2021() in answer["summary"]
