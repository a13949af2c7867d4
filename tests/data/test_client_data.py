"""Client data (widget payloads, explicit context) becomes tables a brain can compute with."""

from __future__ import annotations

import csv
import io
import json
import statistics

import pytest
from support import paths

from datapilot.data.client_data import parse_client_data, tables_to_text

FIXTURES = paths.FIXTURES / "openbb"

CLOSES = [("2020-01-02", 300.35), ("2020-01-03", 297.43), ("2020-01-06", 299.8)]


def test_json_records_keep_types_and_values() -> None:
    text = json.dumps([{"date": d, "close": c} for d, c in CLOSES])
    (table,) = parse_client_data(text, name="prices", description="AAPL close")
    assert table.name == "prices" and table.description == "AAPL close"
    assert table.columns == ["date", "close"]
    frame = table.to_frame()
    assert frame["close"].mean() == pytest.approx(statistics.mean(c for _, c in CLOSES))
    assert frame["date"].tolist() == [d for d, _ in CLOSES]


def test_widget_payload_from_the_workspace_fixture() -> None:
    path = FIXTURES / "current" / "retrieve_widget_from_dashboard_with_result.json"
    payload = json.loads(path.read_text())
    content = payload["messages"][-1]["data"][0]["items"][0]["content"]
    expected = json.loads(content)
    (table,) = parse_client_data(content)
    frame = table.to_frame()
    assert len(frame) == len(expected)
    assert set(frame.columns) == {"date", "maturity", "rate"}
    assert frame["rate"].max() == max(row["rate"] for row in expected)
    ten_year = frame.loc[frame["maturity"] == "year_10", "rate"].item()
    assert ten_year == next(r["rate"] for r in expected if r["maturity"] == "year_10")


def test_csv_and_tsv_become_numeric_columns() -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["date", "close", "volume"])
    writer.writerows([(d, c, 1000 + i) for i, (d, c) in enumerate(CLOSES)])
    (table,) = parse_client_data(buffer.getvalue())
    frame = table.to_frame()
    assert frame["close"].sum() == pytest.approx(sum(c for _, c in CLOSES))
    assert frame["volume"].tolist() == [1000, 1001, 1002]

    tsv = "symbol\tweight\nAAPL\t0.6\nMSFT\t0.4\n"
    (weights,) = parse_client_data(tsv)
    assert weights.to_frame()["weight"].sum() == pytest.approx(1.0)


def test_split_orient_and_column_dicts() -> None:
    split = {"columns": ["a", "b"], "data": [[1, 2], [3, None]]}
    (table,) = parse_client_data(json.dumps(split))
    assert table.rows == [[1, 2], [3, None]]

    columns = {"x": [1, 2, 3], "y": [2.0, 4.0, 6.0]}
    (table,) = parse_client_data(json.dumps(columns))
    frame = table.to_frame()
    assert (frame["y"] / frame["x"]).tolist() == [2.0, 2.0, 2.0]


def test_wrapped_and_double_encoded_records() -> None:
    wrapped = {"results": [{"ticker": "AAPL", "pe": 28.1}, {"ticker": "MSFT", "pe": 33.4}]}
    (table,) = parse_client_data(json.dumps(json.dumps(wrapped)))
    assert table.to_frame().set_index("ticker")["pe"].to_dict() == {"AAPL": 28.1, "MSFT": 33.4}


def test_nested_records_are_flattened() -> None:
    (table,) = parse_client_data(json.dumps([{"id": 1, "quote": {"bid": 9.5, "ask": 10.5}}]))
    assert table.columns == ["id", "quote.bid", "quote.ask"]
    assert table.rows == [[1, 9.5, 10.5]]


def test_several_tables_in_one_payload() -> None:
    text = json.dumps([[{"a": 1}], [{"b": 2}, {"b": 3}]])
    tables = parse_client_data(text, name="w")
    assert [t.name for t in tables] == ["w", "w_2"]
    assert tables[1].to_frame()["b"].sum() == 5


def test_markdown_table() -> None:
    text = "Prices:\n\n| Ticker | Close |\n|:---|---:|\n| AAPL | 1,234.5 |\n| MSFT | 250 |\n"
    (table,) = parse_client_data(text)
    assert table.columns == ["Ticker", "Close"]
    assert table.to_frame()["Close"].sum() == pytest.approx(1484.5)


def test_prose_becomes_one_row_per_line() -> None:
    headlines = [
        "Apple Reports Record-Breaking Quarterly Earnings, Stock Soars 10%",
        "Apple Faces Major Supply Chain Disruptions, Delays Expected for iPhone 15",
        "Apple Announces Annual Developer Conference Dates for June",
    ]
    (table,) = parse_client_data("\n".join(headlines))
    assert table.columns == ["content"]
    assert [row[0] for row in table.rows] == headlines
    assert parse_client_data("pizza")[0].rows == [["pizza"]]


def test_empty_text_gives_no_table() -> None:
    assert parse_client_data("   \n") == []


def test_tables_survive_a_json_round_trip() -> None:
    text = json.dumps([{"d": "2020-01-01", "v": float("nan"), "tags": ["x", "y"]}]).replace(
        "NaN", "null"
    )
    (table,) = parse_client_data(text)
    assert json.loads(table.model_dump_json())["rows"] == [["2020-01-01", None, '["x", "y"]']]


def test_preview_text_mentions_size() -> None:
    (table,) = parse_client_data(json.dumps([{"v": i} for i in range(30)]), name="big")
    preview = tables_to_text([table], max_rows=5)
    assert preview.startswith("## big (30 rows)")
    assert "25 more rows" in preview


# --- tables as get_client_table reads them --------------------------------------------------------


def test_numbers_written_for_people_become_numbers() -> None:
    import pandas as pd

    from datapilot.interfaces.client_tables import read_table

    raw = pd.DataFrame(
        {
            "segment": ["iPhone", "Mac", "Services"],
            "revenue": ["$201.2B", "29.4B", "85,200M"],
            "growth": ["12%", "(3.4%)", "—"],
            "margin": ["(3.4)", "1,234", "0.5"],
        }
    )
    frame = read_table(raw, "segments")
    assert frame.index.name == "segment" and list(frame.index) == ["iPhone", "Mac", "Services"]
    assert frame["revenue"].tolist() == pytest.approx([201.2e9, 29.4e9, 85.2e9])
    assert frame["growth"].iloc[:2].tolist() == pytest.approx([12.0, -3.4])
    assert pd.isna(frame["growth"].iloc[2])  # a dash is a blank, not a number
    assert frame["margin"].tolist() == pytest.approx([-3.4, 1234.0, 0.5])
    assert frame.attrs["units"] == {"growth": "%"}


def test_long_tables_are_pivoted_and_repeated_dates_never_collide() -> None:
    import pandas as pd

    from datapilot.interfaces.client_tables import read_table

    records = [
        {"date": d, "symbol": s, "close": c}
        for d, closes in (("2024-01-02", (185.6, 370.9)), ("2024-01-03", (184.3, 370.6)))
        for s, c in zip(("AAPL", "MSFT"), closes, strict=True)
    ]
    (table,) = parse_client_data(json.dumps(records))
    frame = read_table(table.to_frame(), "closes")
    expected = pd.DataFrame(records).pivot(index="date", columns="symbol", values="close")
    assert list(frame.columns) == ["AAPL", "MSFT"]
    assert frame.to_numpy().tolist() == expected.to_numpy().tolist()
    assert frame.attrs["kind"] == "timeseries"


def test_one_date_for_every_row_is_a_cross_section_as_of_that_day() -> None:
    from datapilot.interfaces.client_tables import read_table

    path = FIXTURES / "current" / "retrieve_widget_from_dashboard_with_result.json"
    content = json.loads(path.read_text())["messages"][-1]["data"][0]["items"][0]["content"]
    rows = json.loads(content)
    (table,) = parse_client_data(content)
    frame = read_table(table.to_frame(), "Yield Curve")
    assert frame.attrs["as_of"] == rows[0]["date"]
    assert frame["rate"].to_dict() == {r["maturity"]: r["rate"] for r in rows}


def test_fiscal_years_are_row_keys_not_measures() -> None:
    import pandas as pd

    from datapilot.interfaces.client_tables import read_table

    raw = pd.DataFrame({"fiscal_year": [2024, 2025], "eps_avg": [6.7, 7.35]})
    frame = read_table(raw, "estimates")
    assert frame.index.name == "fiscal_year" and list(frame.index) == [2024, 2025]
    assert list(frame.columns) == ["eps_avg"]
    periods = pd.DataFrame({"period": ["FY2024", "FY2025"], "eps": ["6.70", "7.35"]})
    frame = read_table(periods, "estimates")
    assert frame.attrs["kind"] == "cross_section" and list(frame.index) == ["FY2024", "FY2025"]
