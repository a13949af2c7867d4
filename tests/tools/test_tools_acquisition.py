"""An imported API operation as an acquisition step of a Plan: the engine fetches the records
through the tool, makes them a time series and charts them like any other data."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.live_server import LOOPBACK, live_server
from support.plugin_servers import PRICES, TOKEN, plugin_app

from datapilot.core.outputs import ChartOutput
from datapilot.core.plan import Call, Plan, PlanError, Step
from datapilot.engine.executor import default_registry, execute
from datapilot.interfaces.context import InterfaceContext
from datapilot.net import OutboundPolicy
from datapilot.settings import Settings
from datapilot.store.models import ToolSource
from datapilot.tools.acquisition import with_imported
from datapilot.tools.sources import SourceIn, make_tools, read_source

pytestmark = LOOPBACK


@pytest.fixture()
def interface_ctx() -> InterfaceContext:
    return InterfaceContext(warehouse=None, catalog=None, today=date(2022, 12, 30))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with live_server(plugin_app()) as base:
        yield base


def research_tools(base: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    allow = base.removeprefix("http://")
    policy = OutboundPolicy.from_entries([allow])
    name, _, spec, _ = read_source(SourceIn(url=f"{base}/research/ai-plugin.json"), policy)
    monkeypatch.setenv("RESEARCH_TOKEN", TOKEN)
    row = ToolSource(
        name=name,
        kind="openapi",
        spec=spec,
        # Named by the operator (a source added in the terminal may name any variable).
        auth={
            "type": "service_http",
            "secret_env": "RESEARCH_TOKEN",
            "env_named_by_operator": True,
        },
        trusted=[],
    )
    return make_tools(row, Settings(outbound_allow=[allow]), None)


def test_an_imported_operation_feeds_a_chart_through_the_engine(
    server: str, monkeypatch: pytest.MonkeyPatch, interface_ctx: Any
) -> None:
    registry = with_imported(default_registry(), research_tools(server, monkeypatch))
    assert registry.get("Research_getPrices").category == "acquisition"
    assert "Research_getPrices" not in default_registry()  # the shared library is untouched
    plan = Plan(
        steps=[
            Step(calls=[Call(interface="Research_getPrices", args={"symbol": "ACME"}, output="p")]),
            Step(
                calls=[
                    Call(
                        interface="plot_line",
                        args={"frame": {"$ref": "p"}, "title": "ACME close"},
                        output="c",
                    )
                ]
            ),
        ]
    )
    result = asyncio.run(execute(plan, interface_ctx, registry=registry))
    assert [record.status for record in result.calls] == ["ok", "ok"], result.calls
    frame = result.values["p"]
    expected = pd.DataFrame(PRICES).set_index(pd.to_datetime(pd.DataFrame(PRICES)["date"]))
    assert list(frame.index) == list(expected.index)
    assert frame["close"].tolist() == expected["close"].tolist()
    chart = next(o for o in result.outputs if isinstance(o, ChartOutput))
    drawn = chart.spec.columns.index("close")
    assert [row[drawn] for row in chart.spec.rows] == expected["close"].tolist()


def test_wrong_arguments_in_a_plan_fail_that_call_with_the_field_named(
    server: str, monkeypatch: pytest.MonkeyPatch, interface_ctx: Any
) -> None:
    registry = with_imported(default_registry(), research_tools(server, monkeypatch))
    plan = Plan(
        steps=[Step(calls=[Call(interface="Research_getPrices", args={"limit": 2}, output="p")])]
    )
    with pytest.raises(PlanError) as refused:  # checked before anything is sent
        asyncio.run(execute(plan, interface_ctx, registry=registry))
    assert "symbol" in str(refused.value)
