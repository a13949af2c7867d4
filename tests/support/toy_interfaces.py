"""Toy interfaces on a private registry, so engine tests depend on neither the library nor data."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated

import numpy as np
import pandas as pd

from datapilot.core.outputs import ChartOutput, ChartSpec, Panel, TableOutput
from datapilot.data.catalog import Entity
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import Frame, InterfaceError, Registry, interface

# Deterministic toy prices: a few wiggles so highs and lows fall on inner dates.
BASE = {"AAA": 100.0, "BBB": 50.0, "CCC": 20.0}
DATES = pd.bdate_range("2021-01-04", periods=30, name="date")


def toy_prices(ids: list[str]) -> pd.DataFrame:
    steps = np.sin(np.arange(len(DATES)) / 3.0) * 5 + np.arange(len(DATES)) * 0.5
    frame = pd.DataFrame({i: BASE.get(i, 10.0) + steps * (n + 1) for n, i in enumerate(ids)})
    frame.index = DATES
    frame.attrs = {"kind": "timeseries", "unit": "USD", "title": "Close", "sources": ["toyland"]}
    return frame


@dataclass
class ToyCatalog:
    entities: dict[str, Entity] = field(default_factory=dict)

    def get(self, entity_id: str) -> Entity | None:
        return self.entities.get(entity_id)


def toy_context(today: date = date(2021, 3, 1)) -> InterfaceContext:
    catalog = ToyCatalog(
        {
            "AAA": Entity(
                id="AAA",
                kind="stock",
                name="Alpha Corp",
                first=date(2021, 1, 4),
                last=date(2021, 2, 12),
            )
        }
    )
    return InterfaceContext(warehouse=None, catalog=catalog, today=today)  # type: ignore[arg-type]


def make_registry() -> tuple[Registry, Counter[str]]:
    """A registry of toy interfaces and a counter of how often each one ran."""
    target = Registry()
    runs: Counter[str] = Counter()

    @interface("acquisition", "frame", target=target)
    def fetch(
        ctx: InterfaceContext,
        ids: Annotated[list[str], "Entity ids."],
        start: date | None = None,
        end: date | None = None,
        seconds: float = 0.0,
    ) -> pd.DataFrame:
        """Toy prices of entities."""
        runs["fetch"] += 1
        time.sleep(seconds)
        frame = toy_prices(ids)
        frame = frame.loc[
            pd.Timestamp(start) if start else None : pd.Timestamp(end) if end else None
        ]
        ctx.sources.add("toy warehouse")
        frame.attrs = toy_prices(ids).attrs
        return frame

    @interface("acquisition", "frame", target=target)
    def sleepy(ctx: InterfaceContext, seconds: float = 0.3, name: str = "x") -> pd.DataFrame:
        """Sleep, then return a one-column frame."""
        runs["sleepy"] += 1
        time.sleep(seconds)
        return toy_prices([name])

    @interface("processing", "frame", target=target)
    def scale(ctx: InterfaceContext, frame: Frame, factor: float = 2.0) -> pd.DataFrame:
        """Multiply every value."""
        runs["scale"] += 1
        assert isinstance(frame, pd.DataFrame), "interfaces receive frames, never $ref dicts"
        out = frame * factor
        out.attrs = {**frame.attrs, "title": "Scaled close"}
        return out

    @interface("processing", "frame", target=target)
    def mutate(ctx: InterfaceContext, frame: Frame) -> pd.DataFrame:
        """Overwrite its input in place (a badly behaved interface)."""
        frame.iloc[:, :] = -1.0
        frame["extra"] = 0.0
        return frame

    @interface("processing", "frame", target=target)
    def refuse(ctx: InterfaceContext, frame: Frame, message: str = "no good") -> pd.DataFrame:
        """Fail with a message for the user."""
        raise InterfaceError(message)

    @interface("processing", "frame", target=target)
    def crash(ctx: InterfaceContext, frame: Frame) -> pd.DataFrame:
        """Fail with a programming error."""
        return 1 / 0  # type: ignore[return-value]

    @interface("processing", "frame", target=target)
    def returns_nothing(ctx: InterfaceContext, frame: Frame) -> pd.DataFrame:
        """Forget to return."""
        return None  # type: ignore[return-value]

    @interface("processing", "frame", target=target)
    def combine(ctx: InterfaceContext, frames: list[Frame]) -> pd.DataFrame:
        """Join frames side by side."""
        return pd.concat(frames, axis=1)

    @interface("visualization", "chart", target=target)
    def line(ctx: InterfaceContext, frame: Frame, title: str = "Chart") -> ChartOutput:
        """Draw a line chart."""
        columns = [str(c) for c in frame.columns]
        rows = [
            [stamp.date().isoformat(), *map(float, values)]
            for stamp, values in zip(frame.index, frame.to_numpy(), strict=True)
        ]
        spec = ChartSpec(
            x="date", columns=["date", *columns], rows=rows, panels=[Panel(mark="line", y=columns)]
        )
        return ChartOutput(chart_type="line", title=title, spec=spec)

    @interface("visualization", "table", target=target)
    def table(ctx: InterfaceContext, frame: Frame, title: str = "Table") -> TableOutput:
        """Show a frame as a table."""
        rows = [
            [stamp.date().isoformat(), *map(float, values)]
            for stamp, values in zip(frame.index, frame.to_numpy(), strict=True)
        ]
        return TableOutput(title=title, columns=["date", *map(str, frame.columns)], rows=rows)

    return target, runs
