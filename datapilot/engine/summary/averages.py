"""The close set against its moving averages: "the close (6,635.28) was 11.14% below its 200-day
moving average (7,466.84)", 收盘价比200日均线低11.14%.

A price shown beside its averages (`merge_frames` of the closes and `get_ma`/`get_ema`) is asked
about because of the gap between them; the gap is the close over the average, less one, on the
last date both have.
"""

from __future__ import annotations

import re

import pandas as pd

from datapilot.core.results import Fact
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.kinds import Said
from datapilot.interfaces.frame import column_unit

_AVERAGE = re.compile(r"^(?P<kind>ma|ema)(?P<n>\d+)$")


def close_against_averages(step: Step, said: Said) -> list[str]:
    """One sentence per average beside the close, on the last date both have; [] otherwise."""
    frame = step.value
    if not isinstance(frame, pd.DataFrame) or step.call.interface != "merge_frames":
        return []
    averages = [c for c in frame.columns if _AVERAGE.match(str(c))]
    prices = [c for c in frame.columns if c not in averages]
    if not averages or len(prices) != 1:
        return []
    price = prices[0]
    unit = column_unit(frame, price)
    w = said.w
    sentences = []
    for column in averages:
        both = frame[[price, column]].dropna()
        if both.empty:
            continue
        day = both.index[-1]
        close, average = float(both.iloc[-1][price]), float(both.iloc[-1][column])
        gap = (close / average - 1) * 100
        found = _AVERAGE.match(str(column))
        assert found is not None
        n = found.group("n")
        said_close = w.value(Fact(label="close", value=close, unit=unit or None), bare=True)
        said_average = w.value(Fact(label=column, value=average, unit=unit or None), bare=True)
        when = f"{day:%Y-%m-%d}"
        if w.zh:
            what = f"{n}日{'指数' if found.group('kind') == 'ema' else ''}均线"
            side = "高" if gap >= 0 else "低"
            sentences.append(
                f"{when}收盘价{said_close}比{what}（{said_average}）{side}{abs(gap):.2f}%。"
            )
        else:
            what = f"{n}-day {'exponential ' if found.group('kind') == 'ema' else ''}moving average"
            side = "above" if gap >= 0 else "below"
            sentences.append(
                f"On {when} the close ({said_close}) was {abs(gap):.2f}% {side} its {what} "
                f"({said_average})."
            )
    return sentences
