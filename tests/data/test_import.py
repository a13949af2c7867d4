"""Importing your own files: column mapping, validation errors that name file/row/column, and
a warehouse left untouched by any bad file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from datapilot.data.catalog import Catalog
from datapilot.data.importer import IMPORT_PRIORITY, ImportFileError, import_file
from datapilot.data.warehouse import Warehouse


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture()
def warehouse(tmp_path: Path) -> Warehouse:
    """A small warehouse that already holds data, so 'unchanged' means something."""
    warehouse = Warehouse(tmp_path / "w.duckdb")
    days = pd.bdate_range("2024-01-01", periods=5)
    warehouse.write_prices(
        pd.DataFrame({"id": "AAPL", "date": days, "close": [1.0, 2, 3, 4, 5]}), "bundledish"
    )
    quarters = pd.date_range("2000-01-01", periods=4, freq="QS")
    warehouse.write_series(
        pd.DataFrame({"id": "UNRATE", "date": quarters, "value": [4.0, 4.1, 4.2, 4.3]}),
        "statsmodels",
    )
    yield warehouse
    warehouse.close()


def snapshot(warehouse: Warehouse) -> dict[str, pd.DataFrame]:
    return {
        table: warehouse.query(f"SELECT * EXCLUDE (fetched_at) FROM {table} ORDER BY ALL")
        for table in ("prices", "series")
    } | {"entities": warehouse.query("SELECT * FROM entities ORDER BY ALL")}


def csv(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_prices_with_a_ticker_column_and_common_names(tmp_path, warehouse, catalog) -> None:
    path = csv(
        tmp_path,
        "mine.csv",
        "Date,Ticker,Open,High,Low,Close,Adj Close,Volume\n"
        "2024-02-01,acme,10,11,9,10.5,10.4,1000\n"
        "2024-02-02,acme,10.5,12,10,11.5,11.4,\n"
        "2024-02-01,aapl,180,182,179,181,181,5000\n",
    )
    report = import_file(warehouse, path, "prices", catalog=catalog)
    assert (report.rows, report.ids, report.source) == (3, ["AAPL", "ACME"], "import:mine.csv")
    acme = warehouse.prices(["ACME"])
    assert list(acme["close"]) == [10.5, 11.5]
    assert acme["volume"].isna().tolist() == [False, True]
    # A new id becomes a catalog entity with data; a known one keeps its catalog entry.
    reloaded = Catalog.load(warehouse)
    assert reloaded.get("ACME").available and reloaded.get("ACME").kind == "stock"
    assert warehouse.entity_metadata()[0].id == "ACME"
    assert reloaded.get("AAPL").name == "Apple Inc."


def test_explicit_mapping_and_id_option(tmp_path, warehouse) -> None:
    path = csv(tmp_path, "p.csv", "day;px\n2024-03-01;5\n2024-03-04;6\n".replace(";", ","))
    import_file(
        warehouse,
        path,
        "prices",
        entity_id="myco",
        mapping={"date": "day", "close": "px"},
        name="My Co",
        entity_kind="fund",
    )
    assert list(warehouse.prices(["MYCO"])["close"]) == [5, 6]
    (entity,) = warehouse.entity_metadata()
    assert (entity.name, entity.kind, entity.frequency) == ("My Co", "fund", "daily")


def test_a_fred_download_overrides_bundled_values_on_its_dates(tmp_path, warehouse) -> None:
    path = csv(tmp_path, "UNRATE.csv", "observation_date,UNRATE\n2000-04-01,9.9\n2000-05-01,9.8\n")
    report = import_file(warehouse, path, "series")
    assert report.ids == ["UNRATE"]
    values = warehouse.series(["UNRATE"]).set_index("date")["value"]
    assert values[pd.Timestamp("2000-01-01")] == 4.0  # bundled, not in the file
    assert values[pd.Timestamp("2000-04-01")] == 9.9  # the user's file wins
    assert values[pd.Timestamp("2000-05-01")] == 9.8
    priority = warehouse.query("SELECT priority FROM sources WHERE name = 'import:UNRATE.csv'")
    assert priority["priority"].iloc[0] == IMPORT_PRIORITY


def test_parquet_and_reimport_replace_the_source(tmp_path, warehouse) -> None:
    path = tmp_path / "s.parquet"
    frame = pd.DataFrame(
        {"date": pd.date_range("2023-01-01", periods=3, freq="MS"), "value": [1.0, 2, 3]}
    )
    frame.to_parquet(path)
    import_file(warehouse, path, "series", entity_id="mine")
    frame.iloc[:2].assign(value=[7.0, 8]).to_parquet(path)
    import_file(warehouse, path, "series", entity_id="mine")
    assert list(warehouse.series(["MINE"])["value"]) == [7, 8]


@pytest.mark.parametrize(
    ("name", "text", "kind", "options", "message"),
    [
        ("a.csv", "Ticker,Close\nX,1\n", "prices", {}, "no date column"),
        ("b.csv", "Date,Volume\n2024-01-01,5\n", "prices", {"entity_id": "X"}, "no close"),
        ("c.csv", "Date,Close\n2024-01-01,1\n", "prices", {}, "no id/ticker column"),
        (
            "d.csv",
            "Date,Ticker,Close\n2024-01-01,X,1\n2024-13-45,X,2\n",
            "prices",
            {},
            "d.csv, row 3, column 'Date': '2024-13-45': cannot read this as a date",
        ),
        (
            "e.csv",
            "Date,Ticker,Close\n2024-01-01,X,1\n2024-01-02,X,1\n2024-01-01,X,2\n",
            "prices",
            {},
            "rows 2, 4 all hold X on 2024-01-01",
        ),
        (
            "f.csv",
            "DATE,WTI\n2024-01-01,70\n2024-01-02,.\n2024-01-03,n/a\n",
            "series",
            {},
            "f.csv, row 3, column 'WTI': '.': not a number (1 more row like it)",
        ),
        (
            "g.csv",
            "Date,Ticker,High,Low,Close\n2024-01-01,X,1,2,1.5\n",
            "prices",
            {},
            "row 2, column 'High': '1': high is below low",
        ),
        ("h.csv", "Date,Ticker,Close\n2024-01-01,X,\n", "prices", {}, "the value is empty"),
        ("i.csv", "Date,Ticker,Close\n", "prices", {}, "no data rows"),
        ("j.csv", "Date,Px\n2024-01-01,1\n", "prices", {"mapping": {"close": "Price"}}, "'Price'"),
        ("k.xlsx", "whatever", "prices", {}, "unsupported file type"),
        # Hostile files: each was a traceback or a silent import before.
        ("l.csv", "", "prices", {"entity_id": "X"}, "the file is empty"),
        (
            "m.csv",
            "Date,Close\n2024-01-02,1\n2999-01-03,2\n",
            "prices",
            {"entity_id": "X"},
            "row 3, column 'Date': '2999-01-03': the date is in the future",
        ),
        (
            "n.csv",
            "Date,Close\n2024-01-02,1\n2024-01-03,-inf\n",
            "prices",
            {"entity_id": "X"},
            "row 3, column 'Close': '-inf': not a finite number",
        ),
        ("o.csv", "DATE,WTI\n2024-01-01,inf\n", "series", {}, "not a finite number"),
        (
            "p.csv",
            "Date,Close,Volume\n2024-01-02,1,10\n2024-01-03,1,-5\n",
            "prices",
            {"entity_id": "X"},
            "row 3, column 'Volume': '-5': volume is negative",
        ),
        (
            "q.csv",
            "Date,Ticker,Close\n2024-01-02,AAA,1\n2024-01-02,BBB,2\n",
            "prices",
            {"entity_id": "X"},
            "--id X was given but column 'Ticker' names AAA, BBB",
        ),
    ],
)
def test_bad_files_are_refused_and_nothing_changes(
    tmp_path, warehouse, name, text, kind, options, message
) -> None:
    path = csv(tmp_path, name, text)
    before = snapshot(warehouse)
    with pytest.raises(ImportFileError) as error:
        import_file(warehouse, path, kind, **options)
    assert message in str(error.value)
    assert name in str(error.value)
    after = snapshot(warehouse)
    for table, frame in before.items():
        pd.testing.assert_frame_equal(after[table], frame, obj=table)


def test_a_file_that_is_not_utf8_is_refused_plainly(tmp_path, warehouse) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("Date,Close\n2024-01-02,1\n# café\n".encode("latin-1"))
    before = snapshot(warehouse)
    with pytest.raises(ImportFileError, match="not UTF-8 text; save it as a UTF-8 CSV"):
        import_file(warehouse, path, "prices", entity_id="X")
    for table, frame in before.items():
        pd.testing.assert_frame_equal(snapshot(warehouse)[table], frame, obj=table)


def test_a_negative_series_value_is_data_not_an_error(tmp_path, warehouse) -> None:
    path = csv(tmp_path, "spread.csv", "DATE,SPREAD\n2024-01-01,-0.5\n2024-02-01,0.25\n")
    report = import_file(warehouse, path, "series")
    assert report.rows == 2
    stored = warehouse.series(["SPREAD"])
    assert sorted(stored["value"].tolist()) == [-0.5, 0.25]


def test_a_failure_while_writing_rolls_everything_back(tmp_path, warehouse, monkeypatch) -> None:
    from datapilot.data import importer

    def broken(*args, **kwargs) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(importer, "write_entities_in", broken)
    path = csv(tmp_path, "ok.csv", "Date,Ticker,Close\n2024-01-01,NEWCO,1\n")
    before = snapshot(warehouse)
    with pytest.raises(RuntimeError, match="disk full"):
        import_file(warehouse, path, "prices")
    after = snapshot(warehouse)
    for table, frame in before.items():
        pd.testing.assert_frame_equal(after[table], frame, obj=table)


def test_cli_import_reports_errors_plainly(tmp_path) -> None:
    from datapilot.cli import app

    bad = csv(tmp_path, "bad.csv", "Date,Close\n2024-01-01,abc\n")
    runner = CliRunner()
    result = runner.invoke(app, ["data", "import", str(bad), "--kind", "prices", "--id", "ZZZ"])
    assert result.exit_code == 1
    assert "row 2, column 'Close'" in result.output and "Nothing was imported" in result.output
    result = runner.invoke(app, ["data", "import", str(bad), "--kind", "bars"])
    # Changed: `--kind table` (any columns, for the design stage) joined prices and series.
    assert result.exit_code == 1 and "--kind must be prices, series or table" in result.output
    result = runner.invoke(app, ["data", "import", str(bad), "--kind", "prices", "--map", "x"])
    assert result.exit_code == 1 and "FIELD=COLUMN" in result.output
