"""What a data provider hands the warehouse: named datasets that load into tidy frames."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

import pandas as pd

Table = Literal["prices", "series"]


@dataclass(frozen=True)
class Dataset:
    """One loadable piece of data: `load()` returns the tidy rows for `table`.

    prices → `[id, date, <any of open, high, low, close, adj_close, volume>]`;
    series → `[id, date, value]`.
    """

    name: str
    source: str
    table: Table
    load: Callable[[], pd.DataFrame]


class Provider(Protocol):
    name: str

    def datasets(self) -> list[Dataset]: ...
