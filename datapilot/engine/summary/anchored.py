"""The answer sentence of an extreme measured from a day's close: "Meta Platforms (Facebook)'s
low in 2012 was 17.73 USD on 2012-09-04, 53.63% below its close on 2012-05-18 (38.23 USD), the
first day of the data"."""

from __future__ import annotations

import pandas as pd

from datapilot.core.results import Fact
from datapilot.engine.facts import format_value
from datapilot.engine.summary.done import MAX_SUBJECTS, Step
from datapilot.engine.summary.kinds import Said


def from_day_sentences(step: Step, said: Said) -> list[str]:
    """One sentence per name: the extreme, its date, and how far it is from the day's close."""
    w = said.w
    frame: pd.DataFrame = step.value
    side = str(frame.attrs.get("side") or "low")
    units = frame.attrs.get("units") or {}
    unit = str(units.get("extreme_value") or "") or None
    first = bool(frame.attrs.get("from_first", True))
    sentences = []
    for subject, row in list(zip(frame.index, frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        name = w.name(str(subject))
        extreme = w.value(Fact(label="", value=float(row.extreme_value), unit=unit))
        reference = w.value(Fact(label="", value=float(row.reference_value), unit=unit))
        pct = float(row.from_day_pct)
        distance = format_value(abs(pct), "%")
        if w.zh:
            word = "最低" if side == "low" else "最高"
            where = "低" if pct < 0 else "高"
            sentences.append(
                f"{name}{said.when}的{word}收盘为{extreme}（{row.extreme_date}），比{row.reference_date}"
                f"{'（数据首日）' if first else ''}的收盘价{reference}{where}{distance}。"
            )
        else:
            word = "lowest" if side == "low" else "highest"
            where = "below" if pct < 0 else "above"
            when = f" {said.when}" if said.when else ""
            poss = f"{name}'" if name.endswith("s") else f"{name}'s"
            sentences.append(
                f"{poss} {word} close{when} was {extreme} on {row.extreme_date}, {distance} "
                f"{where} its close on {row.reference_date} ({reference})"
                + (", the first day of the data." if first else ".")
            )
    return sentences
