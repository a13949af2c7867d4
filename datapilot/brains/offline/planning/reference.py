"""Tables of reference data: fundamentals, company profiles, index constituents and the
tables the client sent.
"""

from __future__ import annotations

from datapilot.brains.offline.planning.base import MAX_CHARTED, PlannerBase
from datapilot.brains.offline.planning.tables import plan_client_tables


class ReferenceTables(PlannerBase):
    """Look-ups shown as tables, and the client's own tables charted or summarised."""

    def _fundamentals(self) -> None:
        """Each entity's reported financial figures, as a table."""
        for entity in self.r.entities[:MAX_CHARTED]:
            figures = self.builder.add(
                "get_fundamentals",
                {"entity": entity.id},
                name="fundamentals",
                description=self._say(
                    f"Get the reported financial figures of {entity.id}",
                    f"获取{entity.id}的财务数据",
                ),
                task="data",
            )
            self._table(figures, self._title("fundamentals", [entity], window=False))

    def _news(self) -> None:
        """Each entity's recent headlines, as a table (with a live provider)."""
        for entity in self.r.entities[:MAX_CHARTED]:
            news = self.builder.add(
                "get_news",
                {"entity": entity.id},
                name="news",
                description=self._say(
                    f"Get recent news about {entity.id}", f"获取{entity.id}的新闻"
                ),
                task="data",
            )
            self.primary = self.primary or news
            self._table(news, self._title("news", [entity], window=False))

    def _profile(self) -> None:
        """Each entity's company profile, as a table."""
        for entity in self.r.entities[:MAX_CHARTED]:
            info = self.builder.add(
                "get_company_info",
                {"entity": entity.id},
                name="profile",
                description=self._say(f"Look up {entity.id}", f"查询{entity.id}的基本信息"),
                task="data",
            )
            self._table(info, self._title("profile", [entity], window=False))

    def _constituents(self) -> None:
        """The members of each index named, as a table."""
        for entity in self.r.entities:
            if entity.kind != "index":
                continue
            members = self.builder.add(
                "get_constituents",
                {"index": entity.id},
                name="constituents",
                description=self._say(
                    f"List the members of {entity.id}", f"列出{entity.id}的成分股"
                ),
                task="data",
            )
            self._table(members, self._title("constituents", [entity], window=False))

    def _client_table(self) -> None:
        """The client's tables the question concerns, answered from the tables themselves."""
        plan_client_tables(self)
