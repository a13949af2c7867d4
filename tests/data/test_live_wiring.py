"""Readers fetch through the live providers first when one is configured, and not otherwise."""

from __future__ import annotations

import functools
import threading
import time
from datetime import date
from pathlib import Path
from typing import ClassVar

import pandas as pd
import pytest

from datapilot.core.intent import EntityKind
from datapilot.core.outputs import ChartOutput
from datapilot.data.access import DataAccess
from datapilot.data.catalog import Catalog, Entity
from datapilot.data.providers import router
from datapilot.data.providers.http import ProviderError
from datapilot.data.providers.live import Dataset, Download, LiveProvider
from datapilot.data.warehouse import Warehouse
from datapilot.interfaces import InterfaceError
from datapilot.interfaces import checks as CK
from datapilot.interfaces import prices as PX
from datapilot.interfaces import processing as P
from datapilot.interfaces.context import InterfaceContext
from datapilot.settings import get_settings

DATES = pd.bdate_range("2024-01-02", "2024-05-31")


class FakeQuotes(LiveProvider):
    """Daily closes 200, 201, … for the ids it knows; a readable failure for the others."""

    name: ClassVar[str] = "fakequotes"
    title: ClassVar[str] = "Fake quotes"
    kinds: ClassVar[frozenset[EntityKind]] = frozenset({"stock", "macro"})
    datasets: ClassVar[frozenset[Dataset]] = frozenset({"prices", "series"})

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.calls: list[tuple[str, str]] = []

    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        return True

    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        self.calls.append((entity_id, dataset))
        if entity_id not in self.known:
            raise ProviderError(f"{self.name}: unknown symbol {entity_id}")
        closes = [200.0 + i for i in range(len(DATES))]
        entity = Entity(id=entity_id, kind="stock", name=f"{entity_id} Inc", source=self.name)
        frame = pd.DataFrame(
            {"id": entity_id, "date": DATES, "close": closes, "adj_close": closes, "volume": 1e6}
        )
        return Download(entity=entity, prices=frame)

    def search(self, text: str, limit: int = 10) -> list[Entity]:
        return []


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """An empty warehouse, a catalog that knows TSLA and NOPE without data, a fake provider
    configured as the live one."""
    warehouse = Warehouse(tmp_path / "live.duckdb")
    catalog = Catalog(
        [
            Entity(id="TSLA", kind="stock", name="Tesla", available=False),
            Entity(id="NOPE", kind="stock", name="Nope Corp", available=False),
        ]
    )
    provider = FakeQuotes({"TSLA"})
    monkeypatch.setattr(router, "live_providers", lambda settings=None, names=None: [provider])
    monkeypatch.setattr(get_settings(), "providers", ["bundled", "yahoo"])
    # The request's data: this warehouse and catalog, with the (patched) configured providers.
    access = DataAccess(get_settings(), warehouse=warehouse, catalog=catalog)
    ctx = InterfaceContext(
        warehouse=warehouse, catalog=catalog, today=date(2024, 6, 3), data=access
    )
    return ctx, provider


def test_a_reader_fetches_an_entity_without_local_data_first(live) -> None:
    ctx, provider = live
    frame = PX.get_prices(ctx, ["TSLA"], date(2024, 3, 1), date(2024, 5, 31))
    assert provider.calls == [("TSLA", "prices")]
    expected = pd.Series(200.0 + pd.RangeIndex(len(DATES)), index=DATES)["2024-03-01":]
    assert frame["TSLA"].to_numpy() == pytest.approx(expected.to_numpy())
    assert frame.index[0] == pd.Timestamp("2024-03-01")
    assert frame.attrs["sources"] == ["fakequotes"] and "fakequotes" in ctx.sources
    assert ctx.catalog.get("TSLA").available
    # Within its time to live the copy is served locally: no second download.
    P.cross_section_returns(ctx, ["TSLA"], date(2024, 3, 1), date(2024, 5, 31))
    assert provider.calls == [("TSLA", "prices")]


def test_a_failed_fetch_is_a_note_and_the_error_says_what_is_missing(live) -> None:
    ctx, provider = live
    missing = r"NOPE \(Nope Corp\) has no data in the local warehouse"
    with pytest.raises(InterfaceError, match=missing):
        PX.get_prices(ctx, ["TSLA", "NOPE"], date(2024, 3, 1), date(2024, 5, 31))
    assert sorted(provider.calls) == [("NOPE", "prices"), ("TSLA", "prices")]
    assert any("NOPE" in note and "unknown symbol NOPE" in note for note in ctx.notes)


def test_an_offline_request_never_fetches(live) -> None:
    ctx, provider = live
    ctx.offline = True
    with pytest.raises(InterfaceError, match="has no data in the local warehouse"):
        PX.get_prices(ctx, ["TSLA"], date(2024, 3, 1), date(2024, 5, 31))
    assert provider.calls == []


def test_offline_settings_never_fetch(live, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, provider = live
    monkeypatch.setattr(get_settings(), "offline", True)
    with pytest.raises(InterfaceError, match="has no data in the local warehouse"):
        PX.get_prices(ctx, ["TSLA"], date(2024, 3, 1), date(2024, 5, 31))
    assert provider.calls == []


@pytest.mark.perf
def test_without_a_live_provider_readers_never_reach_the_providers(
    data, monkeypatch: pytest.MonkeyPatch
) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("ensure was called without a live provider configured")

    monkeypatch.setattr(DataAccess, "router", forbidden)
    monkeypatch.setattr(get_settings(), "providers", ["bundled"])
    access = DataAccess(get_settings(), warehouse=data.warehouse, catalog=data.catalog)
    ctx = InterfaceContext(
        warehouse=data.warehouse, catalog=data.catalog, today=date(2022, 12, 30), data=access
    )
    frame = PX.get_prices(ctx, ["AAPL", "MSFT"], date(2021, 1, 1), date(2021, 12, 31))
    assert list(frame.columns) == ["AAPL", "MSFT"] and ctx.notes == []
    with pytest.raises(InterfaceError, match="no data in the local warehouse"):
        PX.get_prices(ctx, ["TSLA"], date(2021, 1, 1), date(2021, 12, 31))
    # The check costs next to nothing: about the settings lookup it makes (~1.2x on an idle
    # machine). This thread's CPU time, best of three turns each: a ratio, never a time.
    best = {"check": float("inf"), "lookup": float("inf")}
    for _ in range(3):
        for name, action in (
            ("lookup", lambda: access.live_fetching()),
            ("check", lambda: CK.fetch_live(ctx, ["AAPL"], None, None, "prices")),
        ):
            started = time.thread_time()
            for _ in range(10_000):
                action()
            best[name] = min(best[name], time.thread_time() - started)
    assert best["check"] < 3 * best["lookup"], best


async def test_a_question_about_an_entity_without_bundled_data_is_answered_live(live) -> None:
    from support.asking import ask as ask_with

    from datapilot.core.context import QuestionContext

    ctx, provider = live
    question = "Tesla stock price from March to May 2024"
    online = QuestionContext(today=date(2024, 6, 3), brain="offline")
    offline = online.model_copy(update={"offline": True})
    ask = functools.partial(ask_with, data=ctx.data)  # the request's data: the live fixture's

    refused = await ask(question, offline)
    assert refused.status == "no_data" and "TSLA" in refused.message and provider.calls == []

    answer = await ask(question, online)
    assert answer.status == "ok", answer.message
    assert provider.calls == [("TSLA", "prices")]
    assert "fakequotes" in answer.sources
    # The chart draws the window's closes as the provider served them.
    closes = pd.Series(200.0 + pd.RangeIndex(len(DATES)), index=DATES)["2024-03-01":"2024-05-31"]
    chart = next(o for o in answer.outputs if isinstance(o, ChartOutput))
    drawn = [row[chart.spec.columns.index("TSLA")] for row in chart.spec.rows]
    assert drawn == pytest.approx(closes.tolist())

    # Once fetched, the local copy answers offline too.
    again = await ask(question, offline)
    assert again.status == "ok" and provider.calls == [("TSLA", "prices")]


def test_reads_carry_on_while_live_data_are_written(tmp_path: Path) -> None:
    # Live fetches write while other requests read: reads never fail or see half a write.
    warehouse = Warehouse(tmp_path / "busy.duckdb")
    rows = pd.DataFrame({"id": "AAA", "date": DATES, "close": 1.0, "adj_close": 1.0})
    warehouse.write_prices(rows, "first")
    problems: list[str] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                frame = warehouse.prices(["AAA", "BBB"], date(2024, 1, 1), date(2024, 5, 31))
            except Exception as error:  # any failure is the finding
                problems.append(f"{type(error).__name__}: {error}")
                return
            if frame.duplicated(["id", "date"]).any():
                problems.append("a date came twice")
            if not frame[frame["id"] == "AAA"]["close"].isin([1.0, 2.0]).all():
                problems.append("AAA closes from no single source")

    readers = [threading.Thread(target=read) for _ in range(4)]
    for reader in readers:
        reader.start()
    try:
        for number in range(6):
            # A second source of AAA (chosen per date) and a new entity, written mid-reads.
            warehouse.write_prices(rows.assign(close=2.0, adj_close=2.0), f"live{number}")
            warehouse.write_prices(rows.assign(id="BBB"), f"live{number}")
    finally:
        stop.set()
        for reader in readers:
            reader.join(timeout=30)
    assert problems == []
    final = warehouse.prices(["AAA", "BBB"])
    assert sorted(final["id"].unique()) == ["AAA", "BBB"] and not final.duplicated().any()


def test_a_warehouse_that_cannot_be_written_leaves_the_local_copy_and_a_note(
    live, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datapilot.data.warehouse_file import WarehouseError

    ctx, _ = live
    PX.get_prices(ctx, ["TSLA"], date(2024, 3, 1), date(2024, 5, 31))  # fetched and stored

    def locked(*args: object, **kwargs: object) -> None:
        raise WarehouseError("Another Datapilot process has it open")

    monkeypatch.setattr(DataAccess, "router", locked)
    frame = PX.get_prices(ctx, ["TSLA"], date(2024, 5, 1), date(2024, 5, 31))
    assert frame["TSLA"].iloc[-1] == 200.0 + len(DATES) - 1  # the stored copy
    assert any("could not be stored" in n and "another datapilot" in n.lower() for n in ctx.notes)
