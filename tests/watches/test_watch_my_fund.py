""" "My fund" / 我的基金 in a watch: the one fund its owner imported. With no import the watch
is refused saying how to import one; with several, refused listing them to choose from; another
user's import is never theirs. The drawdown days the backtest finds are computed here with
pandas from the closes imported."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from support.platform_app import client_of, key_for, lmc_events, platform_settings
from support.serve_process import replica_dir

from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import open_store

CLOSES = pd.Series(
    [100.0, 105.0, 110.0, 100.0, 98.0, 97.0, 99.5, 105.0, 112.0, 100.0],
    index=pd.bdate_range("2023-01-02", periods=10),
)
MINE = "我的基金回撤超过10%时提醒我"


def _upload(entity_id: str, name: str) -> dict[str, Any]:
    frame = CLOSES.rename("close").rename_axis("date").to_frame()
    content = base64.b64encode(frame.to_csv().encode()).decode()
    return {
        "name": f"{entity_id.lower()}.csv",
        "content_base64": content,
        "kind": "prices",
        "entity_id": entity_id,
        "display_name": name,
        "entity_kind": "fund",
    }


@pytest.fixture
async def clients(data: object, tmp_path: Path) -> AsyncIterator[dict[str, httpx.AsyncClient]]:
    folder = replica_dir(tmp_path / "data", Settings().warehouse_path)
    settings = platform_settings(f"sqlite:///{tmp_path / 'store.db'}")
    settings = settings.model_copy(update={"data_dir": folder})
    store = open_store(settings)
    app = create_app(settings, warm_up=False)
    opened = {
        name: await client_of(app, key_for(store, name)).__aenter__() for name in ("ann", "bob")
    }
    try:
        yield opened
    finally:
        for client in opened.values():
            await client.aclose()


async def test_my_fund_is_the_owners_one_import(clients: dict[str, httpx.AsyncClient]) -> None:
    ann, bob = clients["ann"], clients["bob"]
    none = await ann.post("/api/v1/watches", json={"text": MINE})
    assert none.status_code == 422 and none.json()["words"] == ["我的基金"]
    assert (
        "还没有导入" in none.json()["message"] and "/api/v1/data/imports" in none.json()["message"]
    )

    imported = await ann.post("/api/v1/data/imports", json=_upload("ZZGROWTH", "Growth Fund"))
    assert imported.status_code == 201, imported.text
    made = await ann.post("/api/v1/watches", json={"text": MINE})
    assert made.status_code == 201, made.text
    watch = made.json()
    assert [e["id"] for e in watch["entities"]] == ["ZZGROWTH"]
    assert watch["text"] == MINE and watch["condition"]["measure"] == "drawdown"
    assert watch["condition"]["threshold"] == -10

    # The days the drawdown from the running peak first goes beyond 10 % (a state: once per dip).
    drawdown = CLOSES / CLOSES.cummax() - 1
    beyond = drawdown < -0.10
    expected = [str(day.date()) for day in beyond[beyond & ~beyond.shift(fill_value=False)].index]
    tested = await ann.post(
        "/api/v1/watches/backtest",
        json={
            "text": "alert me when my fund draws down more than 10%",
            "start": "2023-01-02",
            "end": "2023-01-31",
        },
    )
    assert tested.status_code == 200, tested.text
    assert [f["date"] for f in tested.json()["fired"]] == expected == ["2023-01-06", "2023-01-13"]

    # Bob has imported nothing: Ann's fund is not his.
    refused = await bob.post(
        "/api/v1/watches", json={"text": "tell me when my fund falls 20% from its peak"}
    )
    assert refused.status_code == 422 and "no imported fund" in refused.json()["message"]

    # With two imports Ann must say which.
    await ann.post("/api/v1/data/imports", json=_upload("ZZINCOME", "Income Fund"))
    several = await ann.post(
        "/api/v1/watches", json={"text": "alert me if my portfolio drops more than 3% in a day"}
    )
    assert several.status_code == 422, several.text
    message = several.json()["message"]
    assert "Growth Fund (ZZGROWTH)" in message and "Income Fund (ZZINCOME)" in message


async def test_my_fund_in_a_chat(clients: dict[str, httpx.AsyncClient]) -> None:
    ann = clients["ann"]
    await ann.post("/api/v1/data/imports", json=_upload("ZZGROWTH", "Growth Fund"))
    chat = (await ann.post("/api/v1/chats", json={})).json()["id"]
    sent = await ann.post(f"/api/v1/chats/{chat}/messages", json={"content": MINE})
    (asked,) = [c["content"] for c in lmc_events(sent.text) if c.get("type") == "confirmation"]
    assert "Growth Fund (ZZGROWTH)" in asked["message"] and "回撤" in asked["message"]
    await ann.post(f"/api/v1/chats/{chat}/messages", json={"command": "run", "stream": False})
    (watch,) = (await ann.get("/api/v1/watches")).json()
    assert watch["entities"][0]["id"] == "ZZGROWTH"
