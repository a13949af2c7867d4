"""Workspace conversations written for Datapilot (tests/fixtures/openbb/own/), replayed against
the app: each must ask for the right widgets and answer with the right figure, computed here
with pandas from the data the conversation carries."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from support import paths
from support.openbb import make_client, of, query, text_of, with_widget_data

OWN = paths.FIXTURES / "openbb" / "own"
CONVERSATIONS = sorted(OWN.glob("*.json"))


@pytest.fixture()
async def client(data) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client() as client:
        yield client


def number(text: Any) -> float:
    """A number as people write it in a table: $1.2B, (3.4), 12%, 25,274.40."""
    if not isinstance(text, str):
        return float(text)
    raw = text.strip().replace("$", "").replace(",", "").rstrip("%")
    negative = raw.startswith("(") and raw.endswith(")")
    raw = raw.strip("()")
    scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}.get(raw[-1:].upper(), 1.0)
    value = float(raw[:-1] if scale != 1.0 else raw) * scale
    return -value if negative else value


def _frame(conversation: dict[str, Any], which: int) -> pd.DataFrame:
    if "widget_data" in conversation:
        return pd.DataFrame(conversation["widget_data"][which])
    content = conversation["request"]["context"][which]["data"]["content"]
    return pd.read_csv(io.StringIO(content), dtype=str)


def expected_figure(conversation: dict[str, Any], spec: dict[str, Any]) -> str:
    """The figure the answer must quote, computed from the conversation's own data."""
    if spec["op"] == "sp500_return":
        from skfolio.datasets import load_sp500_dataset

        closes = load_sp500_dataset()[spec["ticker"]]
        year = spec["year"]
        base = closes.loc[: f"{year - 1}-12-31"].iloc[-1]  # the last close before the year
        value = (closes.loc[: f"{year}-12-31"].iloc[-1] / base - 1) * 100
        return format(value, spec["format"])
    frame = _frame(conversation, spec.get("data", 0))
    for column, wanted in (spec.get("where") or {}).items():
        frame = frame[frame[column] == wanted]
    values = frame[spec["column"]].map(number)
    if "key" in spec:
        values.index = frame[spec["key"]]
    match spec["op"]:
        case "last":
            value = values.iloc[-1]
        case "max" | "min":
            value = values.max() if spec["op"] == "max" else values.min()
        case "cell":
            value = values.loc[spec["row"]]
        case "change_pct":
            value = (values.loc[spec["to"]] / values.loc[spec["from"]] - 1) * 100
        case "sum":
            value = values.sum()
        case "mean":
            value = values.mean()
        case other:
            raise AssertionError(f"unknown op {other}")
    text = format(value, spec["format"])
    if spec.get("with_row"):
        row = values.idxmax() if spec["op"] == "max" else values.idxmin()
        return f"{text}, in {row}"  # the row's key as the table writes it
    return text


@pytest.mark.parametrize("path", CONVERSATIONS, ids=[p.stem for p in CONVERSATIONS])
async def test_an_own_workspace_conversation(client: httpx.AsyncClient, path: Path) -> None:
    conversation = json.loads(path.read_text())
    body, expect = conversation["request"], conversation["expect"]
    events = await query(client, body)
    if "call" in expect:
        (call,) = of(events, "copilotFunctionCall")
        assert call["function"] == expect["call"]["function"]
        asked = [s["id"] for s in call["input_arguments"]["data_sources"]]
        assert asked == expect["call"]["widgets"]
        if "widget_data" not in conversation:
            return
        with_widget_data(body, call, conversation["widget_data"])
        events = await query(client, body)
    assert not of(events, "copilotFunctionCall")
    text = text_of(events)
    for spec in [*([expect["figure"]] if "figure" in expect else []), *expect.get("figures", [])]:
        assert expected_figure(conversation, spec) in text, text
    if "chart" in expect:
        wanted = expect["chart"]
        (chart,) = [a for a in of(events, "copilotMessageArtifact") if a["type"] == "chart"]
        params = chart["chart_params"]
        assert params["chartType"] == wanted["type"] and params["xKey"] == wanted["x"]
        (y,) = params["yKey"]
        frame = _frame(conversation, 0)
        truth = dict(zip(frame[wanted["x"]], frame[wanted["column"]].map(number), strict=True))
        drawn = {row[wanted["x"]]: row[y] for row in chart["content"]}
        assert drawn == pytest.approx(truth)
    if "warning" in expect:
        warnings = [s["message"] for s in of(events, "copilotStatusUpdate")]
        assert any(expect["warning"] in w for w in warnings)
    if "text" in expect:
        assert expect["text"] in text
    if "artifact" in expect:
        kinds = [a["type"] for a in of(events, "copilotMessageArtifact")]
        assert expect["artifact"] in kinds
    if "quote" in expect:
        assert expect["quote"] in text
        (collection,) = of(events, "copilotCitationCollection")
        boxes = [c for c in collection["citations"] if c.get("quote_bounding_boxes")]
        assert boxes and boxes[0]["quote_bounding_boxes"][0][0]["page"] == expect["page"]


def test_the_pdf_conversation_carries_a_real_pdf() -> None:
    conversation = json.loads((OWN / "pdf_base64_chinese.json").read_text())
    item = conversation["request"]["context"][0]["data"]["items"][0]
    assert base64.b64decode(item["content"]).startswith(b"%PDF")
