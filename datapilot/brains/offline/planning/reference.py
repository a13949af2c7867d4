"""Tables of reference data: fundamentals, company profiles, index constituents and the
tables the client sent.
"""

from __future__ import annotations

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.client_tables import has_dates, numeric_columns
from datapilot.brains.offline.planning.base import MAX_CHARTED, STATS, ZH_STAT, PlannerBase

# The charts a client table can be drawn as, by the name the user gave.
_TABLE_CHARTS = {"bar": "plot_bar", "area": "plot_area", "pie": "plot_pie", "line": "plot_line"}


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
        """The client's first table: its statistics, correlations, or a chart and/or the table."""
        r = self.r
        table = r.tables[0]
        data = self.builder.add(
            "get_client_table",
            {"name": table.name},
            name="client_table",
            description=self._say(
                f'Read the table "{table.name}" you sent', f"读取您发送的表格“{table.name}”"
            ),
            task="data",
        )
        if r.columns:
            data = self.builder.add(
                "select_columns",
                {"frame": frame(data), "columns": r.columns},
                name="columns",
                description=self._say(
                    f"Keep {', '.join(r.columns)}", f"保留列{'、'.join(r.columns)}"
                ),
                task="processing",
            )
        self.primary = data
        title = table.name if not r.columns else f"{table.name}: {', '.join(r.columns)}"
        stats = [m for m in r.metrics if m in STATS]
        if stats:
            for metric in stats:
                interface = "summary_stats" if metric == "stats" else metric
                result = self.builder.add(
                    interface,
                    {"frame": frame(data)},
                    name=metric,
                    description=self._say(f"Compute the {metric}", f"计算{ZH_STAT[metric]}"),
                    task="processing",
                )
                self._table(result, f"{metric}: {title}")
            return
        if "correlation" in r.metrics:
            matrix = self.builder.add(
                "correlation",
                {"frame": frame(data)},
                name="correlation",
                description=self._say("Compute the correlation matrix", "计算相关系数矩阵"),
                task="processing",
            )
            self._table(matrix, f"correlation: {title}")
            return
        chartable = numeric_columns(table, r.columns) and not r.table_only
        if chartable:
            default = "plot_line" if has_dates(table) else "plot_bar"
            chart = _TABLE_CHARTS.get(r.chart or "", default)
            self._chart(chart, data, title)
            self.trace.append(f'your table "{table.name}" → {chart}')
        if r.table or not r.plot_asked or not chartable:
            self._table(data, title)
