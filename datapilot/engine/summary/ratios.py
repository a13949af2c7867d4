"""The answer sentence of a ratio of two figures: "Exxon Mobil's return (42.96%) is 1.67 times
Chevron's (25.70%)", 埃克森美孚的收益率（42.96%）是雪佛龙（25.70%）的1.67倍."""

from __future__ import annotations

import pandas as pd

from datapilot.core.results import Fact
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.kinds import Said
from datapilot.engine.summary.phrasing import possessive as _poss

_MEASURE = {"return_pct": ("return", "收益率")}
_MEASURE |= {"annualized_return_pct": ("annualized return", "年化收益率")}
_MEASURE |= {"annualized_volatility_pct": ("annualized volatility", "年化波动率")}


def ratio_sentences(step: Step, said: Said) -> list[str]:
    """One sentence per ratio row: both figures and how many times the first is the second."""
    w = said.w
    frame: pd.DataFrame = step.value
    units = frame.attrs.get("units") or {}
    unit = str(units.get("value") or "") or None
    en, zh = _MEASURE.get(str(frame.attrs.get("measure") or ""), ("figure", "数值"))
    sentences = []
    for subject, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        over = w.value(Fact(label="", value=float(row.value), unit=unit))
        under = w.value(Fact(label="", value=float(row.denominator_value), unit=unit))
        times = f"{float(row.times):.2f}"
        top, bottom = w.name(str(subject)), w.name(str(row.denominator))
        if w.zh:
            sentences.append(f"{top}{said.when}的{zh}（{over}）是{bottom}（{under}）的{times}倍。")
        else:
            when = f" {said.when}" if said.when else ""
            sentences.append(
                f"{_poss(top)} {en}{when} ({over}) is {times} times {_poss(bottom)} ({under})."
            )
    return sentences
