"""Charts of published operations as PNG bytes (each face delivers them its own way)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from datapilot.core.outputs import ChartOutput


def png_bytes(chart: ChartOutput) -> bytes:
    """The chart drawn as a PNG (blocking: call it off the event loop)."""
    from datapilot.render.charts import to_png

    with tempfile.TemporaryDirectory(prefix="datapilot-chart-") as folder:
        return to_png(chart, Path(folder) / "chart.png").read_bytes()
