"""Charts are drawn once per content: a chart asked for again comes from the render cache,
identical, and the cache stays within its byte budget."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator
from datetime import date

import numpy as np
import pytest

from datapilot.core.answer import Answer
from datapilot.core.events import Done, Event, OutputEvent
from datapilot.core.outputs import ChartOutput, ChartSpec, Panel
from datapilot.render import charts
from datapilot.render.cache import RenderCache, render_cache
from datapilot.render.lmc import LmcChunk, lmc_chunks


def _chart(last_close: float) -> ChartOutput:
    return ChartOutput(
        chart_type="line",
        title="Close",
        spec=ChartSpec(
            x="date",
            columns=["date", "close"],
            rows=[["2019-01-02", 157.9], ["2019-01-03", 142.2], ["2019-01-04", last_close]],
            panels=[Panel(mark="line", y=["close"])],
        ),
    )


def _values(array: dict[str, str] | list[float]) -> list[float]:
    """Plotly 6 writes numeric arrays as base64 typed arrays."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return array


ANSWER = Answer(query="q", today=date(2019, 12, 31), status="ok", summary="It fell, then rose.")


@pytest.fixture()
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The titles of the PNGs and Plotly figures actually drawn, in order."""
    render_cache().clear()
    calls: list[str] = []
    to_png, to_plotly = charts.to_png, charts.to_plotly

    def counting_png(chart: ChartOutput, *args: object, **kwargs: object) -> object:
        calls.append(f"png {chart.spec.rows[-1][1]}")
        return to_png(chart, *args, **kwargs)  # type: ignore[arg-type]

    def counting_plotly(chart: ChartOutput) -> object:
        calls.append(f"plotly {chart.spec.rows[-1][1]}")
        return to_plotly(chart)

    monkeypatch.setattr(charts, "to_png", counting_png)
    monkeypatch.setattr(charts, "to_plotly", counting_plotly)
    yield calls
    render_cache().clear()


async def _chunks(chart: ChartOutput) -> list[LmcChunk]:
    async def events() -> AsyncIterator[Event]:
        yield OutputEvent(output=chart)
        yield Done(answer=ANSWER)

    return [chunk async for chunk in lmc_chunks(events(), images=True)]


def _chart_chunks(chunks: list[LmcChunk]) -> tuple[str, dict[str, object]]:
    (image,) = [c for c in chunks if c.type == "image"]
    (figure,) = [c for c in chunks if c.format == "plotly.json"]
    return image.content, figure.content


async def test_the_same_chart_is_drawn_once_and_served_identically(drawn: list[str]) -> None:
    first = _chart_chunks(await _chunks(_chart(148.3)))
    again = _chart_chunks(await _chunks(_chart(148.3)))
    assert drawn == ["png 148.3", "plotly 148.3"]
    assert again == first
    assert base64.b64decode(again[0]).startswith(b"\x89PNG\r\n\x1a\n")

    # A chart that differs in one value is another chart: drawn, and with its own numbers.
    other = _chart_chunks(await _chunks(_chart(150.0)))
    assert drawn == ["png 148.3", "plotly 148.3", "png 150.0", "plotly 150.0"]
    assert other[0] != first[0]
    (trace,) = other[1]["data"]  # type: ignore[misc]
    assert _values(trace["y"]) == [157.9, 142.2, 150.0]


async def test_a_figure_handed_out_cannot_change_the_cached_one(drawn: list[str]) -> None:
    _, figure = _chart_chunks(await _chunks(_chart(148.3)))
    figure["layout"] = "changed by a client"
    _, again = _chart_chunks(await _chunks(_chart(148.3)))
    assert again["layout"] != "changed by a client"


def test_the_cache_keeps_the_most_recently_used_within_its_budget() -> None:
    cache = RenderCache(budget_bytes=10)
    cache.put("a", "1234")
    cache.put("b", "5678")
    assert cache.get("a") == "1234"  # now the most recently used
    cache.put("c", "90ab")  # 12 bytes > 10: the least recently used ("b") goes
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == ("1234", "90ab")
    assert cache.size == 8
    cache.put("huge", "x" * 11)  # larger than the whole budget: never kept
    assert cache.get("huge") is None and cache.size == 8
