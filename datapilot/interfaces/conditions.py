"""Returns over the periods another series moved: "on the days the S&P 500 fell more than 2%,
what was Walmart's average return", 标普500收跌的那几个月可口可乐平均每月涨跌多少.

Convention (docs/asking.md): the periods are those whose return of the condition's column is
below −threshold % ("fell more than 2%"; any fall with no threshold), or above +threshold % for
a rise; each other column's mean return over exactly those periods is given, with how many
periods there were and the first and last of them. A column missing a period's return leaves
that period out of its own mean.
"""

from __future__ import annotations

from typing import Annotated, Literal

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, values_of
from datapilot.interfaces.registry import Frame, InterfaceError, interface


@interface("processing", "frame")
def returns_when(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Period returns in %, one column per name (from compute_returns)."],
    condition: Annotated[str, "The column whose move picks the periods (e.g. ^GSPC)."],
    side: Annotated[Literal["down", "up"], "The periods it fell, or those it rose."] = "down",
    threshold: Annotated[float, "By more than this many % (0: any fall or rise)."] = 0.0,
) -> pd.DataFrame:
    """Each column's mean return over the periods `condition` fell (rose) by more than
    `threshold` %: mean_return_pct, periods (how many), first_date and last_date. The other
    columns come first; the condition's own mean is the last row."""
    returns = values_of(frame).apply(pd.to_numeric, errors="coerce")
    if condition not in returns.columns:
        raise InterfaceError(
            f"{condition!r} is not a column of the returns; columns: {list(returns.columns)}."
        )
    moves = returns[condition].dropna()
    limit = abs(float(threshold))
    picked = moves[moves < -limit] if side == "down" else moves[moves > limit]
    if picked.empty:
        word = "fell" if side == "down" else "rose"
        more = f" by more than {limit:g}%" if limit else ""
        raise InterfaceError(f"{condition} never {word}{more} in the window; widen it.")
    rows = []
    for column in [*(c for c in returns.columns if c != condition), condition]:
        values = returns[column].reindex(picked.index).dropna()
        if values.empty:
            continue
        rows.append(
            {
                "id": str(column),
                "mean_return_pct": float(values.mean()),
                "periods": len(values),
                "first_date": values.index[0].date(),
                "last_date": values.index[-1].date(),
            }
        )
    table = pd.DataFrame(rows).set_index("id")
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="%",
        title="Mean return when another name moved",
        title_zh="另一标的涨跌时的平均收益率",
        units={"periods": "", "first_date": "", "last_date": ""},
        condition=condition,
        side=side,
        threshold=limit,
        period=frame.attrs.get("period") or "daily",  # what one row is, as the returns say
    )
