"""The ratio of two names' figures ("how many times"), on the cross-section the plan computed."""

from __future__ import annotations

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.planning.base import PlannerBase

# Interfaces whose output is a cross-section of one measure per name, and the column compared.
_CROSS_SECTIONS = {"rank": None, "period_return": "return_pct"}
_CROSS_SECTIONS |= {"cross_section_returns": "return_pct"}


class Ratios(PlannerBase):
    """ "Exxon's gain is how many times Chevron's?": both figures and their ratio."""

    def _ratio(self) -> None:
        r = self.r
        if r.ratio is None or not self.can("figure_ratio"):
            return
        calls = [c for c in self.builder.calls() if c.interface in _CROSS_SECTIONS]
        if not calls:
            return  # no cross-section to divide: the ratio's words stay unhonoured
        cross = calls[-1]
        by = str(cross.args.get("by") or _CROSS_SECTIONS[cross.interface] or "return_pct")
        over, under = r.ratio
        ratio = self.builder.add(
            "figure_ratio",
            {"frame": frame(cross.output), "numerator": over, "denominator": under, "by": by},
            name="ratio",
            description=self._say(
                f"Divide {over}'s figure by {under}'s", f"用{over}的数值除以{under}的数值"
            ),
            task="processing",
        )
        self._table(ratio, self._title("倍数" if r.zh else "ratio"))
        self.trace.append(
            self._say(f"{over} ÷ {under} → how many times", f"{over} ÷ {under} → 倍数")
        )
