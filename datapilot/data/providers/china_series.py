"""China macro series and main A-share indices served through akshare, with EN/ZH names."""

from __future__ import annotations

from dataclasses import dataclass

from datapilot.core.intent import Frequency
from datapilot.data.catalog import Entity


@dataclass(frozen=True)
class ChinaSeries:
    """Which akshare function and column hold a series, and how its period label reads."""

    function: str
    column: str
    period_column: str
    frequency: Frequency
    entity: Entity
    kwargs: tuple[tuple[str, str], ...] = ()


def _series(
    sid: str,
    name: str,
    function: str,
    column: str,
    period_column: str,
    frequency: Frequency,
    units: str,
    aliases: list[str],
    kwargs: tuple[tuple[str, str], ...] = (),
) -> ChinaSeries:
    entity = Entity(
        id=sid,
        kind="macro",
        name=name,
        aliases=aliases,
        frequency=frequency,
        units=units,
        source="akshare",
    )
    return ChinaSeries(function, column, period_column, frequency, entity, kwargs)


CHINA_SERIES: dict[str, ChinaSeries] = {
    s.entity.id: s
    for s in [
        _series("CN_GDP", "China GDP (year to date)", "macro_china_gdp", "国内生产总值-绝对值",
                "季度", "quarterly", "100 million CNY, cumulative year to date",
                ["China GDP", "Chinese GDP", "中国GDP", "中国国内生产总值", "国内生产总值",
                 "GDP总量"]),
        _series("CN_GDP_YOY", "China GDP growth (year on year)", "macro_china_gdp",
                "国内生产总值-同比增长", "季度", "quarterly", "%",
                ["China GDP growth", "中国GDP增速", "中国经济增速", "GDP增速", "GDP同比"]),
        _series("CN_CPI", "China CPI (same month last year = 100)", "macro_china_cpi",
                "全国-当月", "月份", "monthly", "index, same month last year=100",
                ["China CPI", "Chinese CPI", "中国CPI", "中国居民消费价格指数",
                 "居民消费价格指数"]),
        _series("CN_CPI_YOY", "China CPI inflation (year on year)", "macro_china_cpi",
                "全国-同比增长", "月份", "monthly", "%",
                ["China inflation", "中国通胀", "中国CPI同比", "CPI同比"]),
        _series("CN_PPI", "China PPI (same month last year = 100)", "macro_china_ppi", "当月",
                "月份", "monthly", "index, same month last year=100",
                ["China PPI", "Chinese PPI", "中国PPI", "工业生产者出厂价格指数",
                 "中国工业品出厂价格指数"]),
        _series("CN_PPI_YOY", "China PPI (year on year)", "macro_china_ppi", "当月同比增长",
                "月份", "monthly", "%", ["China PPI growth", "中国PPI同比", "PPI同比"]),
        _series("CN_M2", "China M2 money supply", "macro_china_money_supply",
                "货币和准货币(M2)-数量(亿元)", "月份", "monthly", "100 million CNY",
                ["China M2", "中国M2", "广义货币", "M2余额", "中国货币供应量"]),
        _series("CN_M2_YOY", "China M2 growth (year on year)", "macro_china_money_supply",
                "货币和准货币(M2)-同比增长", "月份", "monthly", "%",
                ["China M2 growth", "中国M2增速", "M2增速", "M2同比"]),
        _series("CN_M1", "China M1 money supply", "macro_china_money_supply",
                "货币(M1)-数量(亿元)", "月份", "monthly", "100 million CNY",
                ["China M1", "中国M1", "狭义货币"]),
        _series("CN_NORTHBOUND", "Northbound net buying (Stock Connect)", "stock_hsgt_hist_em",
                "当日成交净买额", "日期", "daily", "100 million CNY",
                ["northbound flows", "northbound net buying", "Stock Connect northbound",
                 "北向资金", "北向资金净买入", "北上资金", "沪深港通北向"],
                kwargs=(("symbol", "北向资金"),)),
    ]
}  # fmt: skip

# Main mainland indices (ids as in the catalog directory: Shanghai indices keep Yahoo's `.SS`).
CHINA_INDICES: dict[str, Entity] = {
    entity.id: entity
    for entity in [
        Entity(id=i, kind="index", name=n, aliases=a, units="index points", source="akshare")
        for i, n, a in [
            ("000001.SS", "SSE Composite Index", ["上证指数", "上证综指", "沪指"]),
            ("000300.SS", "CSI 300", ["沪深300", "CSI 300"]),
            ("000016.SS", "SSE 50", ["上证50", "SSE 50"]),
            ("000905.SS", "CSI 500", ["中证500", "CSI 500"]),
            ("000852.SS", "CSI 1000", ["中证1000", "CSI 1000"]),
            ("000688.SS", "STAR 50", ["科创50", "STAR 50"]),
            ("399001.SZ", "SZSE Component Index", ["深证成指", "深成指"]),
            ("399006.SZ", "ChiNext Index", ["创业板指", "ChiNext"]),
        ]
    ]
}
