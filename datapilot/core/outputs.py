"""Multi-form outputs: a neutral chart spec, tables and text, as they appear in the Answer.

A chart is one spec (data + encodings); renderers turn it into a Plotly figure or a PNG.
The data is a small table (`columns` + `rows`); each panel draws some of its columns against
the `x` column. The first panel is the main one; more panels stack below it (volume, MACD …).
"""

from __future__ import annotations

import csv
import io
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from datapilot.core.intent import ChartType

Mark = Literal["line", "bar", "scatter", "area", "candlestick", "band", "pie"]


class Panel(BaseModel):
    """One stacked sub-plot: which columns it draws and how."""

    mark: Mark
    y: list[str] = Field(description="Columns drawn; candlestick takes open, high, low, close.")
    title: str | None = None
    unit: str | None = None
    height: float = Field(default=1.0, description="Relative height of this panel.")
    overlay: bool = Field(
        default=False,
        description="Draw on the axes of the panel before it (MA lines over candles, MACD bars).",
    )
    levels: list[float] = Field(
        default_factory=list, description="Horizontal reference lines, e.g. RSI 30 and 70."
    )
    log_y: bool = Field(default=False, description="A logarithmic y axis.")
    labels: dict[str, str] = Field(
        default_factory=dict, description="Column -> legend label (e.g. an entity's name)."
    )


class FitLine(BaseModel):
    """Least-squares line for scatter charts: y = slope * x + intercept."""

    slope: float
    intercept: float
    r2: float


class ChartSpec(BaseModel):
    """Everything needed to draw a chart, independent of the plotting library."""

    x: str = Field(description="The column on the x axis (dates as ISO strings).")
    x_title: str | None = None
    columns: list[str]
    rows: list[list[Any]]
    panels: list[Panel]
    fit: FitLine | None = None
    # Names of column pairs to draw as a shaded band (lower, upper), e.g. forecast intervals.
    bands: list[tuple[str, str]] = Field(default_factory=list)
    # Candle and signed-bar colours: green up / red down in English, red up / green down in
    # Chinese (the A-share convention). None = the renderer's default (green up).
    up_color: str | None = None
    down_color: str | None = None
    hole: float = Field(default=0.0, ge=0.0, lt=1.0, description="Pie hole: > 0 draws a donut.")

    def panel_groups(self) -> list[tuple[Panel, list[Panel]]]:
        """Each stacked sub-plot: its leading panel and the overlays drawn on its axes."""
        groups: list[tuple[Panel, list[Panel]]] = []
        for panel in self.panels:
            if panel.overlay and groups:
                groups[-1][1].append(panel)
            else:
                groups.append((panel, []))
        return groups


class ChartOutput(BaseModel):
    kind: Literal["chart"] = "chart"
    chart_type: ChartType
    title: str
    spec: ChartSpec
    png: str | None = Field(default=None, description="Path of the rendered PNG, when written.")


class TableOutput(BaseModel):
    kind: Literal["table"] = "table"
    title: str
    columns: list[str]
    rows: list[list[Any]]
    units: dict[str, str] = Field(default_factory=dict, description="Column -> unit.")
    headers: list[str] = Field(
        default_factory=list,
        description="What each column is called on screen, in the answer's language, with its "
        "unit (Return (%), 收益率（%）); `columns` keep the machine names. Empty: the columns.",
    )

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return buffer.getvalue()


class TextOutput(BaseModel):
    kind: Literal["text"] = "text"
    text: str


Output = Annotated[ChartOutput | TableOutput | TextOutput, Field(discriminator="kind")]
