"""`/api/v1/watches` and `datapilot watch`: a watch made from a sentence shows what was
understood (the webhook secret once), unread words are a 422 naming them (a non-zero exit in
the terminal), another user's watches are 404, a user keeps at most DATAPILOT_MAX_WATCHES, and
the backtest answers the same JSON in both."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from skfolio.datasets import load_sp500_index
from support.platform_app import app_for, client_of, key_for, platform_settings
from typer.testing import CliRunner

from datapilot.cli import app as cli
from datapilot.settings import get_settings
from datapilot.store.watches import WatchRuns

APPLE = "tell me when Apple closes below 150"
FALLS = "alert me if the S&P 500 falls more than 2% in a day"


@pytest.fixture()
def app(tmp_path: Path, data) -> FastAPI:  # type: ignore[no-untyped-def]
    settings = platform_settings(f"sqlite:///{tmp_path / 'store.db'}")
    return app_for(settings.model_copy(update={"max_watches": 3}))


def _sp500_falls_in_2022() -> list[str]:
    move = load_sp500_index()["SP500"].pct_change().loc["2022"]
    return [str(day.date()) for day in move[move < -0.02].index]


async def test_a_watch_is_made_listed_paused_and_deleted_by_its_owner_only(app: FastAPI) -> None:
    store = app.state.store
    ann, bob = key_for(store, "ann"), key_for(store, "bob")
    async with client_of(app, ann) as client:
        made = await client.post(
            "/api/v1/watches",
            json={"text": APPLE, "channels": {"webhook": "https://hooks.example.com/x"}},
        )
        assert made.status_code == 201, made.text
        watch = made.json()
        assert watch["kind"] == "alert" and watch["entities"][0]["id"] == "AAPL"
        assert watch["condition"]["measure"] == "close_level"
        assert watch["condition"]["threshold"] == 150 and "close below 150" in watch["understood"]
        secret = watch["secret"]
        with store.session() as session:  # the secret can still sign, though never shown again
            assert WatchRuns(session).signing_secret(watch["id"]) == secret
        shown = await client.get(f"/api/v1/watches/{watch['id']}")
        assert shown.status_code == 200 and secret not in shown.text
        assert "secret" not in (await client.get("/api/v1/watches")).json()[0]
        paused = await client.patch(f"/api/v1/watches/{watch['id']}", json={"status": "paused"})
        assert paused.json()["status"] == "paused"
        assert (await client.get(f"/api/v1/watches/{watch['id']}/events")).json() == []
    async with client_of(app, bob) as other:
        assert (await other.get("/api/v1/watches")).json() == []
        for method, path, body in (
            ("GET", "", None), ("PATCH", "", {"status": "active"}), ("GET", "/events", None),
            ("DELETE", "", None),
        ):  # fmt: skip
            url = f"/api/v1/watches/{watch['id']}{path}"
            response = await other.request(method, url, json=body)
            assert response.status_code == 404, (method, path, response.text)
    async with client_of(app, ann) as client:
        assert (await client.delete(f"/api/v1/watches/{watch['id']}")).status_code == 204
        assert (await client.get(f"/api/v1/watches/{watch['id']}")).status_code == 404


async def test_unread_words_are_a_422_naming_them(app: FastAPI) -> None:
    async with client_of(app, key_for(app.state.store, "ann")) as client:
        refused = await client.post(
            "/api/v1/watches", json={"text": "alert me when Apple's volatility exceeds 30%"}
        )
    assert refused.status_code == 422
    body = refused.json()
    assert body["code"] == "unread_words" and "volatility" in body["words"]
    assert "volatility" in body["message"]


async def test_a_ticker_not_in_the_data_waits_for_it(app: FastAPI) -> None:
    async with client_of(app, key_for(app.state.store, "ann")) as client:
        text = "alert me when ZZZQ closes below 10"
        made = await client.post("/api/v1/watches", json={"text": text})
    assert made.status_code == 201 and made.json()["waiting_for_data"] == ["ZZZQ"]
    assert "secret" not in made.json()


async def test_watches_count_against_the_users_limit(app: FastAPI) -> None:
    async with client_of(app, key_for(app.state.store, "ann")) as client:
        for _ in range(3):
            assert (await client.post("/api/v1/watches", json={"text": APPLE})).status_code == 201
        over = await client.post("/api/v1/watches", json={"text": APPLE})
    assert over.status_code == 403 and "DATAPILOT_MAX_WATCHES" in over.text


async def test_a_key_bound_to_an_assistant_cannot_have_watches(app: FastAPI) -> None:
    owner = key_for(app.state.store, "ann")
    async with client_of(app, owner) as client:
        desk = (await client.post("/api/v1/assistants", json={"name": "Desk"})).json()["id"]
        bound = (
            await client.post(
                "/api/v1/keys", json={"name": "bot", "scopes": ["chat"], "assistant_id": desk}
            )
        ).json()["key"]
    async with client_of(app, bound) as client:
        refused = await client.post("/api/v1/watches", json={"text": APPLE})
    assert refused.status_code == 403 and refused.json()["code"] == "bound_key"


async def test_the_backtest_lists_every_firing_day(app: FastAPI) -> None:
    async with client_of(app, key_for(app.state.store, "ann")) as client:
        answer = await client.post(
            "/api/v1/watches/backtest",
            json={"text": FALLS, "start": "2022-01-01", "end": "2022-12-31"},
        )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["watch"]["condition"]["measure"] == "daily_move"
    assert [f["date"] for f in body["fired"]] == _sp500_falls_in_2022()


@pytest.fixture()
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data) -> Iterator[CliRunner]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_the_terminal_adds_lists_pauses_and_backtests(runner: CliRunner) -> None:
    added = runner.invoke(cli, ["watch", "add", APPLE, "--webhook", "https://h.example.com"])
    assert added.exit_code == 0, added.output
    assert "close below 150" in added.output and "secret" in added.output
    watch_id = added.output.split()[1]
    listed = runner.invoke(cli, ["watch", "list"])
    assert watch_id in listed.output and "active" in listed.output
    assert runner.invoke(cli, ["watch", "pause", watch_id]).exit_code == 0
    assert "paused" in runner.invoke(cli, ["watch", "list"]).output
    assert "No runs yet" in runner.invoke(cli, ["watch", "history", watch_id]).output
    assert runner.invoke(cli, ["watch", "delete", watch_id]).exit_code == 0
    assert runner.invoke(cli, ["watch", "history", watch_id]).exit_code == 1

    refused = runner.invoke(cli, ["watch", "add", "alert me when Apple's volatility exceeds 30%"])
    assert refused.exit_code != 0 and "volatility" in refused.output

    tested = runner.invoke(
        cli, ["watch", "backtest", FALLS, "--from", "2022-01-01", "--to", "2022-12-31", "--json"]
    )
    assert tested.exit_code == 0, tested.output
    body = json.loads(tested.output)
    assert set(body) >= {"watch", "fired"}
    assert [f["date"] for f in body["fired"]] == _sp500_falls_in_2022()
    assert all(isinstance(f["value"], float) for f in body["fired"])


def test_the_terminal_backtest_speaks_the_sentences_language_and_writes_figures_as_answers(
    runner: CliRunner,
) -> None:
    """A Chinese sentence is shown in Chinese; each firing's value is written with two
    decimals (a move with its %), as every answer writes figures."""
    from skfolio.datasets import load_sp500_dataset

    closes = load_sp500_dataset()["AAPL"].loc["2022"]
    below = closes[closes < 150]
    # A state fires when it becomes true: the first day of each run below 150.
    starts = below[~(closes.shift(1) < 150).loc[below.index]]
    shown = runner.invoke(
        cli, ["watch", "backtest", "苹果收盘价跌破150美元时提醒我", "--from", "2022-01-01",
              "--to", "2022-12-31"],
    )  # fmt: skip
    assert shown.exit_code == 0, shown.output
    assert "收盘价低于 150（成立时提醒一次" in shown.output
    assert f"触发 {len(starts)} 次" in shown.output
    for day, close in starts.items():
        assert f"{day.date()}  AAPL  {close:,.2f}  （阈值 150）" in shown.output

    move = load_sp500_index()["SP500"].pct_change().loc["2022-01":"2022-03"] * 100
    english = runner.invoke(
        cli, ["watch", "backtest", FALLS, "--from", "2022-01-01", "--to", "2022-03-31"]
    )
    assert (move < -2).any()
    for day, value in move[move < -2].items():
        assert f"{day.date()}  ^GSPC  {value:.2f}%  (threshold -2.00%)" in english.output


async def test_a_dry_run_shows_what_was_understood_and_saves_nothing(app: FastAPI) -> None:
    ann = key_for(app.state.store, "ann")
    async with client_of(app, ann) as client:
        seen = await client.post(
            "/api/v1/watches", json={"text": "苹果收盘价跌破150时提醒我", "dry_run": True}
        )
        assert seen.status_code == 200, seen.text
        body = seen.json()
        assert body["kind"] == "alert" and body["entities"][0]["id"] == "AAPL"
        assert "条件：收盘价低于 150（成立时提醒一次，恢复后再提醒）" in body["described"]
        refused = await client.post(
            "/api/v1/watches",
            json={"text": "alert me when Apple's volatility exceeds 30%", "dry_run": True},
        )
        assert refused.status_code == 422 and "volatility" in refused.json()["words"]
        assert (await client.get("/api/v1/watches")).json() == []
