"""Alerts evaluated when an import brings rows, on a live server whose lifespan runs the
watches: a close-below alert fires on the day the imported closes cross the threshold, stays
quiet while they stay below, and fires again only after they crossed back. The days expected are
computed here with pandas from the closes imported. Another user's alert on the same ticker
never sees the import, and their inbox never shows the firings."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pandas as pd
import pytest
from pydantic import SecretStr
from support.live_server import live_server
from support.platform_app import key_for
from support.serve_process import replica_dir
from support.watch_receivers import LOOPBACK, wait_for

from datapilot.core.watches import Condition, WatchSpec
from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import open_store
from datapilot.store.watches import Watches

pytestmark = LOOPBACK
TICKER = "ZZWATCH"
THRESHOLD = 150.0
CLOSES = pd.Series(
    [160.0, 155.0, 149.0, 148.0, 147.0, 151.0, 149.5, 152.0],
    index=pd.bdate_range("2023-01-02", periods=8),
)
# The imports, each a longer file under one name (an import replaces its own earlier rows).
IMPORTS = [2, 3, 5, 7, 8]


def alert_spec() -> WatchSpec:
    return WatchSpec(
        kind="alert",
        text=f"tell me when {TICKER} closes below {THRESHOLD:g}",
        waiting_for_data=[TICKER],
        condition=Condition(measure="close_level", comparator="below", threshold=THRESHOLD),
    )


@dataclass
class Server:
    base: str
    store: object
    settings: Settings

    def call(self, method: str, path: str, key: str, **kwargs: object) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"}
        return httpx.request(method, self.base + path, headers=headers, timeout=60, **kwargs)  # type: ignore[arg-type]


@pytest.fixture()
def server(data: object, tmp_path: Path) -> Iterator[Server]:
    # Imports write into the warehouse: a copy of its own, so no other test sees them.
    folder = replica_dir(tmp_path / "data", Settings().warehouse_path)
    settings = Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        data_dir=folder,
        database_url=SecretStr(f"sqlite:///{tmp_path / 'store.db'}"),
    )
    app = create_app(settings, warm_up=False, watches=True)
    with live_server(app, lifespan="on") as base:
        yield Server(base, open_store(settings), settings)


def upload(rows: int) -> dict[str, object]:
    frame = CLOSES.iloc[:rows].rename("close").rename_axis("date").to_frame()
    content = base64.b64encode(frame.to_csv().encode()).decode()
    return {"name": "zz.csv", "content_base64": content, "kind": "prices", "entity_id": TICKER}


def test_an_import_that_crosses_fires_once_until_it_crosses_back(server: Server) -> None:
    ann, bob = key_for(server.store, "ann"), key_for(server.store, "bob")  # type: ignore[arg-type]
    with server.store.session(write=True) as session:  # type: ignore[attr-defined]
        from datapilot.store import Users

        users = Users(session)
        ann_id, bob_id = users.by_name("ann").id, users.by_name("bob").id
        mine = Watches(session, ann_id, server.settings).create(alert_spec()).watch
        theirs = Watches(session, bob_id, server.settings).create(alert_spec()).watch

    # What a user would expect: the days the close goes below after being at or above.
    below = CLOSES < THRESHOLD
    expected = list(CLOSES[below & ~below.shift(1, fill_value=False)].index.date)
    assert len(expected) == 2  # the fixture crosses twice

    seen: list[object] = []
    for rows in IMPORTS:
        made = server.call("POST", "/api/v1/data/imports", ann, json=upload(rows))
        assert made.status_code == 201, made.text
        due = [d for d in expected if d <= CLOSES.index[rows - 1].date()]

        def arrived(count: int = len(due)) -> list[dict[str, object]] | None:
            events = server.call("GET", "/api/v1/watches/inbox", ann).json()["events"]
            return events if len(events) >= count else None

        if due:
            wait_for(arrived, what=f"{len(due)} firings after {rows} rows")
        time.sleep(0.3)  # and nothing more comes
        seen = server.call("GET", "/api/v1/watches/inbox", ann).json()["events"]
        assert len(seen) == len(due), seen

    days = sorted(event["date"] for event in seen)
    assert days == [d.isoformat() for d in expected]
    fired = {event["date"]: event for event in seen}
    for day in expected:
        event = fired[day.isoformat()]
        assert event["watch_id"] == mine.id and event["entity"] == TICKER
        assert event["value"] == CLOSES[pd.Timestamp(day)]
        assert event["threshold"] == THRESHOLD
        assert TICKER in event["summary"]

    inbox = server.call("GET", "/api/v1/watches/inbox", ann).json()
    assert inbox["unread"] == 2
    read = server.call("POST", "/api/v1/watches/inbox/read", ann, json={"ids": [seen[0]["id"]]})
    assert read.json() == {"marked": 1, "unread": 1}

    # Bob's alert on the same ticker never saw Ann's import; his inbox shows nothing of hers,
    # and her watch is not found for him.
    assert server.call("GET", "/api/v1/watches/inbox", bob).json() == {"unread": 0, "events": []}
    stranger = server.call("POST", "/api/v1/watches/inbox/read", bob, json={"watch_id": mine.id})
    assert stranger.status_code == 404
    others = server.call("POST", "/api/v1/watches/inbox/read", bob, json={"ids": [seen[0]["id"]]})
    assert others.json()["marked"] == 0
    with server.store.session() as session:  # type: ignore[attr-defined]
        assert Watches(session, bob_id, server.settings).events(theirs.id) == []
