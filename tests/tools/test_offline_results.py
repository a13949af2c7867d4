"""An added interface's frame answered without a model: monthly figures are drawn as a line chart
of exactly the interface's rows with their change in the summary, a table without dates is shown
as a table; a frame with no rows says so instead of drawing nothing."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import pandas as pd

from datapilot.core.context import QuestionContext
from datapilot.engine.context import RequestContext
from datapilot.engine.executor import default_registry
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import Registry, interface
from datapilot.settings import get_settings
from datapilot.tools.offline import added_interface_tools, answer_with_tools

TODAY = date(2026, 11, 27)
MONTHS = ["2026-06-30", "2026-07-31", "2026-08-31", "2026-09-30", "2026-10-31"]
SALES = {"north": [120.0, 131.5, 128.0, 140.25, 152.0], "south": [98.0, 97.5, 101.0, 99.0, 0.0]}
PRODUCTS = {"tea": 41, "coffee": 73, "cocoa": 12}


@interface("acquisition", "frame")
def shop_sales(
    ctx: InterfaceContext,
    region: Annotated[Literal["north", "south"], "Sales region"],
    start: Annotated[str, "First month (date)"] = "2026-01-01",
) -> pd.DataFrame:
    """Monthly sales of the shop in a region, in thousands (门店月销售额)."""
    frame = pd.DataFrame({"sales": SALES[region]}, index=pd.DatetimeIndex(MONTHS, name="date"))
    return frame[frame.index >= pd.Timestamp(start)]


@interface("acquisition", "frame")
def product_stock(
    ctx: InterfaceContext, shelf: Annotated[Literal["front", "back"], "Shelf"]
) -> pd.DataFrame:
    """Units in stock of each product on a shelf (库存)."""
    return pd.DataFrame({"product": list(PRODUCTS), "units": list(PRODUCTS.values())})


def tools() -> dict[str, object]:
    registry = Registry()
    for spec in default_registry():
        registry.register(spec)
    registry.add(shop_sales)
    registry.add(product_stock)
    context = QuestionContext(today=TODAY, brain="offline", offline=True)
    request = RequestContext.for_request(context, get_settings(), registry=registry)
    return dict(added_interface_tools(request))


async def test_an_interface_series_is_charted_with_its_change() -> None:
    question = "Show the shop sales of the north region since 2026-07-01"
    reply = await answer_with_tools(question, tools(), TODAY, can_ask=True)  # type: ignore[arg-type]
    assert reply is not None and reply.answer.status == "ok", reply
    (chart,) = reply.answer.outputs
    assert chart.kind == "chart" and chart.chart_type == "line"
    sales = pd.Series(SALES["north"], index=pd.to_datetime(MONTHS))
    sales = sales[sales.index >= "2026-07-01"]
    drawn = pd.DataFrame(chart.spec.rows, columns=chart.spec.columns)
    assert drawn["sales"].tolist() == sales.tolist()
    assert drawn[chart.spec.x].tolist() == [d.date().isoformat() for d in sales.index]
    change = (sales.iloc[-1] / sales.iloc[0] - 1) * 100
    assert f"up {change:.2f}%" in (reply.answer.summary or ""), reply.answer.summary
    assert any("region = question: north" in note for note in reply.answer.notes)


async def test_a_table_without_dates_is_shown_as_a_table() -> None:
    reply = await answer_with_tools(
        "units in stock on the front shelf",
        tools(),
        TODAY,
        can_ask=True,  # type: ignore[arg-type]
    )
    assert reply is not None and reply.answer.status == "ok", reply
    (table,) = reply.answer.outputs
    assert table.kind == "table"
    shown = {
        row[table.columns.index("product")]: row[table.columns.index("units")] for row in table.rows
    }
    assert shown == PRODUCTS
    # The summary names each row by its label, with its number.
    summary = reply.answer.summary or ""
    assert all(f"{name} {units}" in summary for name, units in PRODUCTS.items()), summary


async def test_a_frame_without_rows_says_so() -> None:
    question = "Show the shop sales of the south region since 2026-11-01"
    reply = await answer_with_tools(question, tools(), TODAY, can_ask=True)  # type: ignore[arg-type]
    assert reply is not None and reply.answer.status == "no_data"
    assert reply.answer.outputs == []
    assert "returned no records" in (reply.answer.message or "")
