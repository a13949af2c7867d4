"""A window's extreme measured from the first day's close ("how far below its IPO-day close")."""

from __future__ import annotations

from typing import Any

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.planning.base import PlannerBase


class AnchoredExtremes(PlannerBase):
    """The window's high (low), dated, and its distance in % from the first day's close."""

    def _extreme_from_day(self) -> None:
        r = self.r
        if not self.can("extreme_from_day"):
            self.missing("extreme_from_day", "an extreme from the first day", "极值与首日的距离")
            return
        data = self.levels(freq="daily")
        if not r.table_only:
            self._chart("plot_line", data, self._title("close"))
        side = r.peak_side
        args: dict[str, Any] = {"frame": frame(data), "side": side}
        if r.anchor_day is not None:
            args["day"] = r.anchor_day.isoformat()
        found = self.builder.add(
            "extreme_from_day",
            args,
            name="from_first_day",
            description=self._say(
                f"Find the window's {side} and compare it with the first day's close",
                f"找出区间{'最低' if side == 'low' else '最高'}值并与首日收盘价比较",
            ),
            task="processing",
        )
        self.primary = found
        self._table(found, self._title("极值与首日收盘" if r.zh else f"{side} from the first day"))
