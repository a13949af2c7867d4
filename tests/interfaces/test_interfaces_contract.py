"""The library's names and parameters are a contract with the planners: keep them stable."""

from __future__ import annotations

import pytest

from datapilot.engine.executor import default_registry

registry = default_registry()

CONTRACT: dict[str, list[str]] = {
    # acquisition
    "get_prices": ["ids", "start", "end", "freq", "field"],
    "get_ohlcv": ["entity", "start", "end", "freq"],
    "get_index_levels": ["ids", "start", "end", "freq"],
    "get_series": ["ids", "start", "end", "freq"],
    "get_ma": ["entity", "start", "end", "windows"],
    "get_ema": ["entity", "start", "end", "windows"],
    "get_macd": ["entity", "start", "end", "fast", "slow", "signal"],
    "get_rsi": ["entity", "start", "end", "window"],
    "get_kdj": ["entity", "start", "end", "window"],
    "get_boll": ["entity", "start", "end", "window", "width"],
    "get_cci": ["entity", "start", "end", "window"],
    "get_fundamentals": ["entity", "fields"],
    "get_company_info": ["entity"],
    "list_entities": ["kind"],
    "get_constituents": ["index"],
    "get_news": ["entity", "limit"],
    "get_fund_nav": ["entity", "start", "end"],
    "get_client_table": ["name"],
    # processing
    "compute_returns": ["frame", "period", "log"],
    "cumulative_returns": ["frame"],
    "period_return": ["frame", "start", "end"],
    "cross_section_returns": ["ids", "start", "end"],
    "rank": ["frame", "by", "ascending", "top_k"],
    "summary_stats": ["frame"],
    "mean": ["frame"],
    "median": ["frame"],
    "pct_change": ["frame", "kind"],
    "correlation": ["frame", "method"],
    "rolling_volatility": ["frame", "window", "annualize"],
    "drawdown": ["frame"],
    "max_drawdown": ["frame"],
    "resample": ["frame", "freq", "how"],
    "merge_frames": ["frames", "how"],
    "select_columns": ["frame", "columns"],
    "filter_dates": ["frame", "start", "end"],
    "filter_rows": ["frame", "column", "op", "value"],
    "normalize": ["frame", "base"],
    "rolling_mean": ["frame", "window"],
    "spread": ["frame", "a", "b"],
    # prediction
    "forecast_arima": ["frame", "horizon", "order", "level"],
    "forecast_ets": ["frame", "horizon", "level"],
    "forecast_naive": ["frame", "horizon", "level"],
    "forecast_volatility": ["frame", "horizon"],
    # visualization
    "plot_line": ["frame", "title", "y_title"],
    "plot_bar": ["frame", "title", "column"],
    "plot_candlestick": ["ohlcv", "title", "indicators", "volume"],
    "plot_scatter": ["frame", "title", "x", "y", "fit"],
    "plot_area": ["frame", "title"],
    "plot_pie": ["frame", "title", "column"],
    "plot_forecast": ["history", "forecast", "title"],
    "show_table": ["frame", "title", "max_rows"],
}


def test_the_library_has_forty_or_more_interfaces() -> None:
    assert len(registry) >= 40


@pytest.mark.parametrize("name", list(CONTRACT))
def test_contract_names_and_parameters(name: str) -> None:
    spec = registry.get(name)
    assert list(spec.params)[: len(CONTRACT[name])] == CONTRACT[name]
    extra = list(spec.params)[len(CONTRACT[name]) :]
    assert all(not spec.params[p].required for p in extra)


def test_every_interface_is_documented_and_frames_are_references() -> None:
    for spec in registry:
        assert spec.description and len(spec.description) < 260, spec.name
        for param in spec.params.values():
            if param.name in {"frame", "history", "forecast", "ohlcv"}:
                assert param.frame == "one", (spec.name, param.name)
            if param.name in {"frames", "indicators"}:
                assert param.frame == "many", (spec.name, param.name)


def test_a_planner_style_call_validates() -> None:
    args, problems = registry.get("get_prices").validate(
        {"ids": ["AAPL"], "start": "2021-01-01", "end": "2021-12-31", "freq": "monthly"}
    )
    assert problems == [] and str(args["start"]) == "2021-01-01"
    _, problems = registry.get("plot_candlestick").validate(
        {"ohlcv": {"$ref": "k"}, "title": "K", "indicators": [{"$ref": "macd"}]},
        frame_outputs=["k", "macd"],
    )
    assert problems == []
    _, problems = registry.get("get_prices").validate({"ids": ["AAPL"], "freq": "hourly"})
    assert problems and "freq" in problems[0]
