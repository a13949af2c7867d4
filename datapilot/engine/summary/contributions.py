"""Regular buying said in words: "Buying 2,000 of the S&P 500 at the close of the first session
of every month from 2012-01-03 to 2016-12-01 (60 purchases, 120,000 invested) left a holding
worth 152,237.69 at the close on 2016-12-30: a gain of 32,237.69 (26.86%)."""

from __future__ import annotations

import pandas as pd

from datapilot.data.phrases_zh import unit_zh
from datapilot.engine.facts import format_value
from datapilot.engine.summary.done import MAX_SUBJECTS, Step
from datapilot.engine.summary.kinds import Said
from datapilot.interfaces.frame import column_unit

_EVERY = {"monthly": "month", "quarterly": "quarter", "yearly": "year", "weekly": "week"}
_EVERY_ZH = {"monthly": "每月", "quarterly": "每季", "yearly": "每年", "weekly": "每周"}


def contribution_sentences(step: Step, said: Said) -> list[str]:
    w = said.w
    frame: pd.DataFrame = step.value
    amount = float(frame.attrs.get("amount") or 0)
    every = str(frame.attrs.get("every") or "monthly")
    first = str(frame.attrs.get("on") or "first") == "first"
    unit = column_unit(frame, "value")
    sentences = []
    for subject, row in list(zip(frame.index, frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        name = w.name(str(subject))
        sums = [_money(v, unit, w.zh) for v in (amount, row.invested, row.value, abs(row.gain))]
        pct = format_value(float(row.return_pct), "%")
        if w.zh:
            session = "第一个" if first else "最后一个"
            made = "盈利" if row.gain >= 0 else "亏损"
            sentences.append(
                f"从{row.first_buy}到{row.last_buy}，{_EVERY_ZH.get(every, '每月')}{session}交易日"
                f"收盘买入{sums[0]}的{name}（共{row.buys}次，投入本金{sums[1]}），到{row.end_date}"
                f"收盘市值{sums[2]}，{made}{sums[3]}（{pct}）。"
            )
        else:
            session = "first" if first else "last"
            made = "a gain" if row.gain >= 0 else "a loss"
            sentences.append(
                f"Buying {sums[0]} of {name} at the close of the {session} session of every "
                f"{_EVERY.get(every, 'month')} from {row.first_buy} to {row.last_buy} "
                f"({row.buys} purchases, {sums[1]} invested) left a holding worth {sums[2]} at "
                f"the close on {row.end_date}: {made} of {sums[3]} ({pct})."
            )
    return sentences


def _money(value: float, unit: str, zh: bool) -> str:
    """A sum to the cent (152,237.69), with its currency when it has one (美元 in Chinese)."""
    said = f"{value:,.2f}"
    if not unit:
        return said
    if zh:
        named = unit_zh(unit)
        return f"{said}{'' if not named[:1].isascii() else ' '}{named}"
    return f"{said} {unit}"
