"""Loopback services for the offline reader's tool tests: an FX-rate API (one GET, an enum
`currency`) and a weather-like API (a city and a date), each recording the queries it received."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request

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

    @app.get("/api/weather")
    def weather(request: Request, city: str, date: str, units: str = "metric") -> list[Any]:
        app.state.seen.append(("/weather", dict(request.query_params)))
        return [row for row in WEATHER if row["city"] == city and row["date"] == date]

    return app
