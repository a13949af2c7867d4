"""What the scripted model writes in the design-stage tests: specs, merges, code and tests."""

from __future__ import annotations

import json
from typing import Any

ROW = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "date": {"type": "string", "format": "date"},
        "dividends_12m": {"type": "number"},
        "close": {"type": "number"},
        "yield_pct": {"type": "number"},
    },
}


def _plan(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "tasks": [
            {"kind": "data", "instruction": "Dividends and closes of the tickers"},
            {"kind": "visualization", "instruction": "Show the yields as a table"},
        ],
        "steps": [
            {"calls": [{"interface": name, "args": args, "output": "yields"}]},
            {
                "calls": [
                    {
                        "interface": "show_table",
                        "args": {"frame": {"$ref": "yields"}, "title": "Dividend yield"},
                        "output": "table",
                    }
                ]
            },
        ],
    }


def spec(name: str, inputs: dict[str, Any], args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "category": "acquisition",
        "returns": "frame",
        "description": "Trailing twelve-month dividend yield of stocks from the dividends table.",
        "inputs": {"type": "object", **inputs},
        "outputs": ROW,
        "plan": _plan(name, args),
        "requests": ["What was Apple's dividend yield at the end of 2022?"],
        "sources": ["table:dividends"],
        **extra,
    }


IDS = {"ids": {"type": "array", "items": {"type": "string"}}}
LATEST = spec("dividend_yield_latest", {"properties": IDS, "required": ["ids"]}, {"ids": ["AAPL"]})
AT_DATE = spec(
    "dividend_yield_at",
    {"properties": {**IDS, "day": {"type": "string", "format": "date"}}, "required": ["ids"]},
    {"ids": ["MSFT"], "day": "2021-12-31"},
)
MALFORMED = {"name": "Dividend Growth!", "category": "guessing", "description": "short"}
BAD_PLAN = spec("payout_ratio", {"properties": IDS, "required": ["ids"]}, {"ids": ["AAPL"]}) | {
    "plan": _plan("get_earnings", {"ids": ["AAPL"]})
}

DEFINE_REPLY = json.dumps({"interfaces": [LATEST, AT_DATE, MALFORMED, BAD_PLAN]})

MERGED = spec(
    "dividend_yield",
    {
        "properties": {
            **IDS,
            "day": {"type": "string", "format": "date", "description": "None = latest close"},
        },
        "required": ["ids"],
    },
    {"ids": ["AAPL"], "day": "2022-12-28"},
)
MERGE_REPLY = json.dumps(
    {"merges": [{"members": ["dividend_yield_latest", "dividend_yield_at"], "interface": MERGED}]}
)

CODE = '''
from datetime import date
from typing import Annotated

import pandas as pd

from datapilot.data.tables import read_table
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import InterfaceError, interface


@interface("acquisition", "frame")
def dividend_yield(
    ctx: InterfaceContext,
    ids: Annotated[list[str], "Tickers in the dividends table, e.g. ['AAPL']."],
    day: Annotated[date | None, "The close the yield is measured on; None = latest."] = None,
) -> pd.DataFrame:
    """Trailing twelve-month dividend yield in %: dividends per share with an ex-date in the
    year up to the last close on or before `day`, over that close."""
    table = read_table(ctx.warehouse, "dividends")
    rows = []
    for entity in ids:
        own = table[table["ticker"] == entity]
        if own.empty:
            raise InterfaceError(f"The dividends table has no rows for {entity}.")
        prices = ctx.warehouse.prices([entity], None, day)
        if prices.empty:
            raise InterfaceError(f"No prices for {entity} on or before {day}.")
        last = prices.iloc[-1]
        close = last["close"] if pd.notna(last["close"]) else last["adj_close"]
        when = pd.Timestamp(last["date"])
        window = own[(own["date"] > when - pd.DateOffset(years=1)) & (own["date"] <= when)]
        paid = float(window["dividend"].sum())
        rows.append(
            {"id": entity, "date": when.date().isoformat(), "dividends_12m": paid,
             "close": float(close), "yield_pct": round(paid / float(close) * 100, 4)}
        )
    frame = pd.DataFrame(rows).set_index("id")
    frame.attrs["sources"] = ["import:dividends.csv"]
    return frame
'''

TESTS = """
import pandas as pd

import interface
from datapilot.data.tables import read_table


def test_apple_at_the_end_of_2022(ctx):
    frame = interface.dividend_yield(ctx, ids=["AAPL"], day=pd.Timestamp("2022-12-28").date())
    table = read_table(ctx.warehouse, "dividends")
    paid = table[(table["ticker"] == "AAPL") & (table["date"] > "2021-12-28")]["dividend"].sum()
    prices = ctx.warehouse.prices(["AAPL"], None, pd.Timestamp("2022-12-28").date())
    close = prices["close"].fillna(prices["adj_close"]).iloc[-1]
    assert abs(frame.loc["AAPL", "yield_pct"] - paid / close * 100) < 1e-3


def test_unknown_ticker_is_refused(ctx):
    try:
        interface.dividend_yield(ctx, ids=["XOM"])
    except Exception as error:
        assert "no rows for XOM" in str(error)
    else:
        raise AssertionError("XOM has no dividends in the table")
"""

FAILING_TESTS = TESTS.replace("< 1e-3", "< 0 and False")
NETWORK_CODE = CODE.replace(
    '    table = read_table(ctx.warehouse, "dividends")',
    "    import urllib.request\n"
    "    urllib.request.urlopen('http://example.com/dividends.csv', timeout=5)\n"
    '    table = read_table(ctx.warehouse, "dividends")',
)
FOREVER_CODE = CODE.replace(
    '    table = read_table(ctx.warehouse, "dividends")',
    "    while True:\n        pass",
)


def code_reply(code: str = CODE, tests: str = TESTS) -> str:
    return json.dumps({"code": code, "tests": tests})


def ask_plan(day: str) -> str:
    """The LLM brain's plan for the dividend-yield question, through the new interface."""
    return json.dumps(
        {
            "status": "ok",
            "intent": {
                "rewritten": f"Apple's trailing dividend yield on {day}",
                "entities": [{"name": "Apple", "id": "AAPL"}],
                "start": None,
                "end": day,
                "metrics": ["dividend_yield"],
                "trace": ["dividend yield -> the designed dividend_yield interface"],
            },
            "plan": _plan("dividend_yield", {"ids": ["AAPL"], "day": day}),
        }
    )
