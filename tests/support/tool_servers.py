"""Loopback services for the offline reader's tool tests: an FX-rate API (one GET, an enum
`currency`), a weather-like API (a city and a date) and, in a document of its own, an FX history
(a currency and a start date → dated rates), each recording the queries it received."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse

RATES = {"EUR": 0.9213, "JPY": 149.82, "GBP": 0.7871}
WEATHER = [
    {"city": "Paris", "date": "2026-11-20", "high_c": 9.5, "low_c": 3.0},
    {"city": "Lyon", "date": "2026-11-26", "high_c": 11.0, "low_c": 4.5},
]

SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Markets and weather", "version": "1"},
    "servers": [{"url": "/api"}],
    "paths": {
        "/fx": {
            "get": {
                "operationId": "getFxRate",
                "summary": "Exchange rate of a currency per US dollar (汇率: 每美元兑换的外币)",
                "parameters": [
                    {
                        "name": "currency",
                        "in": "query",
                        "required": True,
                        "description": "Currency code (币种)",
                        "schema": {"type": "string", "enum": sorted(RATES)},
                    }
                ],
                "responses": {"200": {"description": "the rate"}},
            }
        },
        "/weather": {
            "get": {
                "operationId": "dailyWeather",
                "summary": "Daily weather of a city: high and low temperature (天气 气温)",
                "parameters": [
                    {
                        "name": "city",
                        "in": "query",
                        "required": True,
                        "description": "City name",
                        "schema": {"type": "string"},
                    },
                    {
                        "name": "date",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "format": "date"},
                    },
                    {
                        "name": "units",
                        "in": "query",
                        "schema": {
                            "type": "string",
                            "enum": ["metric", "imperial"],
                            "default": "metric",
                        },
                    },
                ],
                "responses": {"200": {"description": "rows"}},
            }
        },
    },
}


# Daily rates per US dollar on weekdays in November 2026 (made up, shaped like a central bank's
# reference rates): the history operation answers the rows from `start` on.
HISTORY = {
    "EUR": [0.9203, 0.9188, 0.9215, 0.9242, 0.9230, 0.9261, 0.9279, 0.9254, 0.9290, 0.9312],
    "JPY": [149.10, 149.45, 150.02, 149.88, 150.31, 150.77, 151.02, 150.64, 151.20, 151.48],
}
HISTORY_DATES = [
    "2026-10-29", "2026-10-30", "2026-11-02", "2026-11-03", "2026-11-04",
    "2026-11-05", "2026-11-06", "2026-11-09", "2026-11-10", "2026-11-11",
]  # fmt: skip
HISTORY_SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "FX history", "version": "1"},
    "servers": [{"url": "/api"}],
    "paths": {
        "/fx/history": {
            "get": {
                "operationId": "fxHistory",
                "summary": "Daily exchange rates of a currency per US dollar over a period "
                "(历史汇率: 每美元兑换的外币, 每日)",
                "parameters": [
                    {
                        "name": "currency",
                        "in": "query",
                        "required": True,
                        "description": "Currency code (币种)",
                        "schema": {"type": "string", "enum": sorted(HISTORY)},
                    },
                    {
                        "name": "start",
                        "in": "query",
                        "required": True,
                        "description": "First date (开始日期)",
                        "schema": {"type": "string", "format": "date"},
                    },
                ],
                "responses": {"200": {"description": "dated rates"}},
            }
        },
        "/fx/note": {
            "get": {
                "operationId": "fxNote",
                "summary": "The desk's note on a currency: a short text (外汇点评)",
                "parameters": [
                    {
                        "name": "currency",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "enum": sorted(HISTORY)},
                    }
                ],
                "responses": {"200": {"description": "text"}},
            }
        },
    },
}
NOTES = {
    "EUR": "The euro eased against the dollar through November.",
    "JPY": "日元兑美元本月走弱。",
}


def tool_app() -> FastAPI:
    """The FX and weather services; `app.state.seen` lists (path, query) of every request."""
    app = FastAPI()
    app.state.seen = []

    @app.get("/spec.json")
    def spec() -> dict[str, Any]:
        return SPEC

    @app.get("/api/fx")
    def fx(request: Request, currency: str) -> dict[str, Any]:
        app.state.seen.append(("/fx", dict(request.query_params)))
        return {"currency": currency, "per": "USD", "rate": RATES[currency]}

    @app.get("/history/spec.json")
    def history_spec() -> dict[str, Any]:
        return HISTORY_SPEC

    @app.get("/api/fx/history")
    def fx_history(request: Request, currency: str, start: str) -> dict[str, Any]:
        app.state.seen.append(("/fx/history", dict(request.query_params)))
        rows = [
            {"date": day, "rate": rate}
            for day, rate in zip(HISTORY_DATES, HISTORY[currency], strict=True)
            if day >= start
        ]
        return {"currency": currency, "per": "USD", "rates": rows}

    @app.get("/api/fx/note", response_class=PlainTextResponse)
    def fx_note(request: Request, currency: str) -> str:
        app.state.seen.append(("/fx/note", dict(request.query_params)))
        return NOTES[currency]

    @app.get("/api/weather")
    def weather(request: Request, city: str, date: str, units: str = "metric") -> list[Any]:
        app.state.seen.append(("/weather", dict(request.query_params)))
        return [row for row in WEATHER if row["city"] == city and row["date"] == date]

    return app


@contextmanager
def todo_and_fx() -> Iterator[tuple[str, FastAPI, str, FastAPI]]:
    """The Qianfan to-do plugin and this module's FX and weather service, on loopback:
    (to-do base URL, its app, FX base URL, its app); the apps hold what they received."""
    from support.live_server import live_server
    from support.plugin_servers import plugin_app

    todo, rates = plugin_app(), tool_app()
    with live_server(todo) as todo_base, live_server(rates) as rates_base:
        yield todo_base, todo, rates_base, rates
