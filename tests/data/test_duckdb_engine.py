"""The warehouse runs its SQL on DuckDB's engine alone (its package's Python API is not imported
to read), with the same results, and frames with Arrow columns still scan."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd

_ARROW_FRAME = (
    "import sys\n"
    "import pandas as pd, pyarrow as pa\n"
    "from datapilot.data.cache import registered\n"
    "from datapilot.data.duckdb_engine import duckdb\n"
    "connection = duckdb.connect()\n"
    "frame = pd.DataFrame({'name': pd.array(['b', 'a'], dtype=pd.ArrowDtype(pa.string())),\n"
    "                      'n': [2, 1]})\n"
    "with registered(connection, 'incoming', frame):\n"
    "    rows = connection.execute('SELECT name, n FROM incoming ORDER BY n').fetchall()\n"
    "print('ROWS', repr(rows))\n"
)


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_frame_with_arrow_columns_scans_in_a_process_that_only_read() -> None:
    out = _run(_ARROW_FRAME)
    frame = pd.DataFrame({"name": ["b", "a"], "n": [2, 1]}).sort_values("n")
    expected = list(zip(frame["name"], frame["n"], strict=True))
    assert out.rsplit("ROWS", 1)[1].strip() == repr(expected)


def test_reading_prices_without_the_package_gives_the_packages_rows(data) -> None:  # type: ignore[no-untyped-def]
    import duckdb

    path = data.warehouse.path
    sql = "SELECT id, date, close FROM prices WHERE id = 'AAPL' AND year(date) = 2020"
    with duckdb.connect(str(path), read_only=True) as connection:
        expected = connection.execute(sql).df().sort_values("date")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from datapilot.data.warehouse import Warehouse\n"
        f"frame = Warehouse(Path({str(path)!r})).prices(['AAPL'], None, None)\n"
        "frame = frame[frame['date'].dt.year == 2020]\n"
        "print('PACKAGE', 'duckdb' in sys.modules)\n"
        "print('CLOSES', list(frame['close']))\n"
    )
    out = _run(code)
    assert "PACKAGE False" in out
    closes = out.rsplit("CLOSES", 1)[1].strip()
    assert closes == repr(list(expected["close"]))
