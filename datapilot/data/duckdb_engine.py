"""DuckDB for the warehouse: its engine alone where only SQL runs.

DuckDB 2's package (`duckdb`) re-exports its compiled engine (`_duckdb`) and builds its
relational and expression API in Python when imported: ~40-50 ms of CPU (hundreds of classes)
that every process reading the warehouse paid, though the warehouse only runs SQL (`connect`,
`execute`, `fetchall`, `df`, `register`: the engine's own methods). The engine is imported alone;
`register` imports the package first, which sets the engine up to scan Arrow-backed columns (a
frame with Arrow columns cannot be scanned without it). With DuckDB 1 the engine is the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
else:
    try:
        import _duckdb as duckdb
    except ImportError:  # DuckDB 1: the engine is inside the package
        import duckdb

__all__ = ["duckdb", "register"]


def register(connection: duckdb.DuckDBPyConnection, name: str, frame: pd.DataFrame) -> None:
    """`connection.register(name, frame)`, with the package loaded so that any column scans."""
    import duckdb as package  # noqa: F401  (sets up the engine's Arrow scans)

    connection.register(name, frame)
