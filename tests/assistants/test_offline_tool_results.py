"""A tool's result in a chat without a model: dated rates an imported API returns are drawn as a
line chart of exactly the server's rows with a summary of their change, in English and Chinese;
a text the API returns is quoted with the call and the document it came from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr
from support.live_server import LOOPBACK, live_server
from support.platform_app import app_for, client_of, platform_settings
from support.tool_servers import HISTORY, HISTORY_DATES, NOTES, tool_app

pytestmark = LOOPBACK


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[str, Any]]:
    app = tool_app()
    with live_server(app) as base:
        yield base, app


def expected(currency: str, start: str) -> pd.Series:
    """The server's rates from `start` on, as the chart must show them."""
    rates = pd.Series(HISTORY[currency], index=pd.to_datetime(HISTORY_DATES))
    return rates[rates.index >= pd.Timestamp(start)]


def points(answer: dict[str, Any]) -> pd.Series:
    charts = [o for o in answer["outputs"] if o["kind"] == "chart"]
    assert len(charts) == 1, answer["outputs"]
    spec = charts[0]["spec"]
    assert charts[0]["chart_type"] == "line"
    frame = pd.DataFrame(spec["rows"], columns=spec["columns"])
    return pd.Series(frame["rate"].to_numpy(), index=pd.to_datetime(frame[spec["x"]]))


async def test_dated_rates_are_charted_and_summarised(
    store_url: str, service: tuple[str, Any]
) -> None:
    base, app = service
    settings = platform_settings(store_url).model_copy(
        update={
            "outbound_allow": [base.removeprefix("http://")],
            "secret_key": SecretStr(Fernet.generate_key().decode()),
        }
    )
    async with client_of(app_for(settings)) as client:
        source = {"url": f"{base}/history/spec.json"}
        added = await client.post("/api/v1/tools/sources", json=source)
        assert added.status_code == 201, added.text
        names = [t["name"] for t in added.json()["tools"]]
        assistant = await client.post("/api/v1/assistants", json={"name": "FX", "tools": names})
        assert assistant.status_code == 201, assistant.text
        chat = (
            await client.post("/api/v1/chats", json={"assistant_id": assistant.json()["id"]})
        ).json()["id"]

        async def ask(text: str) -> dict[str, Any]:
            sent = await client.post(
                f"/api/v1/chats/{chat}/messages", json={"content": text, "stream": False}
            )
            assert sent.status_code == 200, sent.text
            return dict(sent.json()["answer"])

        answer = await ask("Show the EUR rate per USD since 2026-11-01")
        assert app.state.seen[-1] == ("/fx/history", {"currency": "EUR", "start": "2026-11-01"})
        assert answer["status"] == "ok", answer
        rates = expected("EUR", "2026-11-01")
        pd.testing.assert_series_equal(points(answer), rates, check_names=False, check_freq=False)
        change = (rates.iloc[-1] / rates.iloc[0] - 1) * 100
        first, last = rates.index[0].date().isoformat(), rates.index[-1].date().isoformat()
        summary = answer["summary"]
        assert f"up {change:.2f}%" in summary, summary
        assert first in summary and last in summary
        assert any("start = date: since 2026-11-01" in note for note in answer["notes"])

        chinese = await ask("显示2026年11月1日以来日元兑美元的汇率")
        assert app.state.seen[-1] == ("/fx/history", {"currency": "JPY", "start": "2026-11-01"})
        assert chinese["status"] == "ok", chinese
        yen = expected("JPY", "2026-11-01")
        pd.testing.assert_series_equal(points(chinese), yen, check_names=False, check_freq=False)
        change = (yen.iloc[-1] / yen.iloc[0] - 1) * 100
        assert f"上涨{change:.2f}%" in chinese["summary"], chinese["summary"]
        # The trace says where each argument came from in the question's language.
        assert any("currency = 别名：日元" in note for note in chinese["notes"]), chinese["notes"]

        note = await ask("What is the desk's note on the euro?")
        assert app.state.seen[-1] == ("/fx/note", {"currency": "EUR"})
        assert note["status"] == "ok" and note["outputs"] == []
        assert NOTES["EUR"] in note["summary"]
        # Quoted with its source: the imported document and where it lives.
        assert "FX_history" in note["summary"] and base in note["summary"], note["summary"]

        note_zh = await ask("日元的外汇点评")
        assert NOTES["JPY"] in note_zh["summary"] and "来源" in note_zh["summary"]
