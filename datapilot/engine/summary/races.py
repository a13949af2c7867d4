"""Two names' period returns set against each other period by period: "MSFT did better than AAPL
in 4 of the 7 years (2015, 2016, 2018, 2021); AAPL in 2017, 2019 and 2020.", 逐年对比. A claim
that one beat the other "every year" is checked by it."""

from __future__ import annotations

import re

import pandas as pd

from datapilot.engine.summary.done import Step
from datapilot.engine.summary.words import Words
from datapilot.interfaces.periods import period_label

# The question asks period by period: "every single year", "year by year", 每年都, 逐年.
_EACH_PERIOD = re.compile(
    r"(?i)\bevery\s+(?:single\s+)?(?:year|quarter|month)\b|\beach\s+(?:year|quarter|month)\b"
    r"|\b(?:year|quarter|month)[-\s]by[-\s](?:year|quarter|month)\b|每年|每一年|逐年|年年"
)
_UNIT = {"annual": ("year", "年"), "quarterly": ("quarter", "个季度"), "monthly": ("month", "个月")}


def race_sentences(lead: Step | None, question: str, w: Words) -> list[str]:
    """Which of two names did better in each period, counted, when the question asks it
    period by period; [] for any other result."""
    if lead is None or not _EACH_PERIOD.search(question):
        return []
    frame = lead.value
    period = str(getattr(frame, "attrs", {}).get("period") or "")
    unit = _UNIT.get(period)
    if not isinstance(frame, pd.DataFrame) or unit is None or frame.shape[1] != 2:
        return []
    if not isinstance(frame.index, pd.DatetimeIndex):
        return []
    rows = frame.dropna()
    if rows.empty:
        return []
    first, second = (str(c) for c in frame.columns)
    labels = [period_label(day, period) for day in rows.index]
    pairs = list(zip(labels, rows.iloc[:, 0], rows.iloc[:, 1], strict=True))
    ahead = [label for label, a, b in pairs if a > b]
    # (the periods behind with their margins: the ones that break "every year")
    behind = [(label, float(b - a)) for label, a, b in pairs if a < b]
    n = len(rows)
    one, other = w.name(first, many=True), w.name(second, many=True)
    if w.zh:
        said = (
            f"逐{unit[1].lstrip('个')}看，{one}在{n}{unit[1]}中有{len(ahead)}{unit[1]}跑赢{other}"
        )
        said += f"（{'、'.join(ahead)}）" if ahead else ""
        lost = "、".join(f"{label}落后{gap:.2f}个百分点" for label, gap in behind)
        said += f"，{len(behind)}{unit[1]}跑输（{lost}）" if behind else ""
        return [said + "。"]
    word = unit[0]
    said = f"{word.capitalize()} by {word}, {one} did better than {other} in {len(ahead)} of "
    said += f"the {n} {word}s"
    said += f" ({', '.join(ahead)})" if ahead else ""
    lost = ", ".join(f"{label} by {gap:.2f} points" for label, gap in behind)
    said += f" and worse in {len(behind)} ({lost})" if behind else ""
    return [said + "."]
