"""Chinese markets through akshare (extra `datapilot[china]`).

A-shares, ETFs and indices (daily OHLCV), open-end funds (NAV; manager → funds), China macro
(GDP, CPI, PPI, money supply), northbound flows, financial indicators, news, and A-share
name → code search (贵州茅台 → 600519.SH). akshare scrapes many sites with `requests`, so each
call runs under a deadline and a rate limit here.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from types import ModuleType
from typing import Any, ClassVar

import pandas as pd

from datapilot.core.intent import EntityKind
from datapilot.data.catalog import Entity
from datapilot.data.providers.china_series import CHINA_INDICES, CHINA_SERIES, ChinaSeries
from datapilot.data.providers.http import (
    ProviderError,
    RateLimiter,
    call_library,
    import_extra,
    refuse_if_offline,
)
from datapilot.data.providers.live import (
    FUNDAMENTAL_COLUMNS,
    NEWS_COLUMNS,
    PRICE_COLUMNS,
    SERIES_COLUMNS,
    Dataset,
    Download,
    LiveProvider,
    clip_window,
    require_rows,
    to_dates,
)
from datapilot.data.providers.matching import first_of_each_id, rank_entities

CHINA_ID = re.compile(r"^(\d{6})\.(SH|SS|SZ|BJ|OF)$")
# Exchange volumes are quoted in lots (手) of 100 shares; the warehouse holds shares.
LOT = 100
# Sina's indicator table labels → stable field names (other labels are kept as they are).
INDICATOR_FIELDS: dict[str, tuple[str, str]] = {
    "摊薄每股收益(元)": ("eps_diluted", "CNY/share"),
    "加权每股收益(元)": ("eps_weighted", "CNY/share"),
    "每股净资产_调整后(元)": ("book_value_per_share", "CNY/share"),
    "净资产收益率(%)": ("roe", "%"),
    "加权净资产收益率(%)": ("roe_weighted", "%"),
    "总资产利润率(%)": ("roa", "%"),
    "销售毛利率(%)": ("gross_margin", "%"),
    "销售净利率(%)": ("net_margin", "%"),
    "主营业务收入增长率(%)": ("revenue_growth", "%"),
    "净利润增长率(%)": ("net_income_growth", "%"),
    "资产负债率(%)": ("debt_to_assets", "%"),
    "流动比率": ("current_ratio", "ratio"),
    "速动比率": ("quick_ratio", "ratio"),
    "总资产(元)": ("total_assets", "CNY"),
}
DIRECTORY_TTL_S = 24 * 3600


def load_akshare() -> ModuleType:
    """Import akshare on first use; say which extra to install when it is missing."""
    return import_extra("akshare", "akshare", "china")


@dataclass(frozen=True)
class ChinaCode:
    code: str
    market: str  # sh, sz, bj, or "of" for open-end funds
    kind: EntityKind


def classify(entity_id: str) -> ChinaCode | None:
    """What a mainland id names: `000300.SS` index, `510300.SH` ETF, `600519.SH` stock, fund."""
    match = CHINA_ID.match(entity_id.upper())
    if not match:
        return None
    code, suffix = match.groups()
    if suffix == "OF":
        return ChinaCode(code, "of", "fund")
    market = {"SH": "sh", "SS": "sh", "SZ": "sz", "BJ": "bj"}[suffix]
    if (market == "sh" and code.startswith("000")) or (market == "sz" and code.startswith("399")):
        return ChinaCode(code, market, "index")
    if (market == "sh" and code.startswith("5")) or (market == "sz" and code[:2] in {"15", "16"}):
        return ChinaCode(code, market, "etf")
    return ChinaCode(code, market, "stock")


def a_share_id(code: str) -> str:
    """The Datapilot id of a six-digit A-share code: 600519 → 600519.SH, 000001 → 000001.SZ."""
    code = str(code).zfill(6)
    if code.startswith("92") or code[0] in "48":
        return f"{code}.BJ"
    if code[0] in "69":
        return f"{code}.SH"
    return f"{code}.SZ"


def parse_period_label(label: str) -> pd.Timestamp:
    """Eastmoney period labels → the first day of the (last) period they cover.

    `2024年10月份` → 2024-10-01; `2024年第1-3季度` → 2024-07-01; `2024-05-06` → itself.
    """
    text = str(label)
    if match := re.match(r"^(\d{4})年第(?:\d-)?(\d)季度", text):
        year, quarter = int(match.group(1)), int(match.group(2))
        return pd.Timestamp(year=year, month=3 * quarter - 2, day=1)
    if match := re.match(r"^(\d{4})年(\d{1,2})月", text):
        return pd.Timestamp(year=int(match.group(1)), month=int(match.group(2)), day=1)
    return pd.to_datetime(text, errors="coerce")


def parse_kline(raw: pd.DataFrame, entity_id: str, lots: bool = True) -> pd.DataFrame:
    """Eastmoney daily bars (日期 开盘 收盘 最高 最低 成交量 …, or English names) → tidy prices."""
    if raw is None or raw.empty:
        return pd.DataFrame(columns=PRICE_COLUMNS)
    names = {"日期": "date", "开盘": "open", "收盘": "close", "最高": "high", "最低": "low"}
    frame = raw.rename(columns={**names, "成交量": "volume"})
    out = pd.DataFrame(
        {
            "id": entity_id,
            "date": to_dates(frame["date"]).to_numpy(),
            **{
                col: pd.to_numeric(frame[col], errors="coerce").to_numpy()
                for col in ("open", "high", "low", "close")
            },
        }
    )
    out["adj_close"] = out["close"]
    volume = pd.to_numeric(frame.get("volume"), errors="coerce").to_numpy()
    out["volume"] = volume * LOT if lots else volume
    return out.dropna(subset=["date", "close"]).sort_values("date").reset_index(drop=True)


def parse_fund_nav(
    unit: pd.DataFrame, accumulated: pd.DataFrame | None, fund_id: str
) -> pd.DataFrame:
    """Unit NAV (净值日期, 单位净值) as close; accumulated NAV (累计净值), which adds back
    distributions, as adj_close so returns include them."""
    if unit is None or unit.empty:
        return pd.DataFrame(columns=PRICE_COLUMNS)
    frame = pd.DataFrame(
        {
            "date": to_dates(unit["净值日期"]),
            "close": pd.to_numeric(unit["单位净值"], errors="coerce"),
        }
    )
    if accumulated is not None and not accumulated.empty:
        acc = pd.DataFrame(
            {
                "date": to_dates(accumulated["净值日期"]),
                "adj_close": pd.to_numeric(accumulated["累计净值"], errors="coerce"),
            }
        )
        frame = frame.merge(acc, on="date", how="left")
    if "adj_close" not in frame:
        frame["adj_close"] = frame["close"]
    frame["adj_close"] = frame["adj_close"].fillna(frame["close"])
    frame["id"] = fund_id
    for column in ("open", "high", "low", "volume"):
        frame[column] = float("nan")
    frame = frame.dropna(subset=["date", "close"]).sort_values("date")
    return frame.reset_index(drop=True)[PRICE_COLUMNS]


def parse_macro(raw: pd.DataFrame, spec: ChinaSeries, series_id: str) -> pd.DataFrame:
    """One column of an akshare macro table as a tidy series."""
    if raw is None or raw.empty or spec.column not in raw:
        raise ProviderError(f"akshare: the {series_id} table came back without {spec.column}")
    frame = pd.DataFrame(
        {
            "id": series_id,
            "date": [parse_period_label(label) for label in raw[spec.period_column]],
            "value": pd.to_numeric(raw[spec.column], errors="coerce"),
        }
    )
    frame["date"] = frame["date"].astype("datetime64[ns]")
    frame = frame.dropna(subset=["date", "value"]).drop_duplicates("date", keep="first")
    return frame.sort_values("date").reset_index(drop=True)[SERIES_COLUMNS]


def parse_indicators(raw: pd.DataFrame, entity_id: str) -> pd.DataFrame:
    """Sina's financial indicator table (one row per report date) → long fundamentals rows.

    Chinese reports are cumulative year to date, so only December reports are annual.
    """
    if raw is None or raw.empty or "日期" not in raw:
        return pd.DataFrame(columns=FUNDAMENTAL_COLUMNS)
    long = raw.melt(id_vars="日期", var_name="label", value_name="value")
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long = long.dropna(subset=["value"])
    long["period_end"] = to_dates(long["日期"]).to_numpy()
    mapped = [INDICATOR_FIELDS.get(str(label), (str(label), "")) for label in long["label"]]
    long["field"] = [field for field, _ in mapped]
    long["unit"] = [unit for _, unit in mapped]
    long["statement"] = "ratios"
    long["period"] = ["annual" if d.month == 12 else "quarterly" for d in long["period_end"]]
    long["id"] = entity_id
    return long.dropna(subset=["period_end"])[FUNDAMENTAL_COLUMNS].reset_index(drop=True)


def parse_stock_news(raw: pd.DataFrame, entity_id: str) -> pd.DataFrame:
    """`stock_news_em` (新闻标题 新闻内容 发布时间 文章来源 新闻链接) → news rows."""
    if raw is None or raw.empty:
        return pd.DataFrame(columns=NEWS_COLUMNS)
    frame = pd.DataFrame(
        {
            "id": entity_id,
            "published": pd.to_datetime(raw["发布时间"], errors="coerce"),
            "title": raw["新闻标题"].astype(str),
            "summary": raw.get("新闻内容", pd.Series("", index=raw.index)).fillna("").astype(str),
            "url": raw.get("新闻链接", pd.Series("", index=raw.index)).fillna("").astype(str),
            "publisher": raw.get("文章来源", pd.Series("", index=raw.index)).fillna("").astype(str),
        }
    )
    return frame.dropna(subset=["published"]).reset_index(drop=True)


def _split(value: Any) -> list[str]:
    return [part.strip() for part in str(value or "").split(",") if part.strip()]


def funds_of_manager(managers: pd.DataFrame, name: str) -> list[Entity]:
    """Funds a manager currently runs, from `fund_manager_em` (姓名, 现任基金代码, 现任基金)."""
    rows = managers[managers["姓名"].astype(str) == name.strip()]
    found: dict[str, Entity] = {}
    for _, row in rows.iterrows():
        codes, names = _split(row["现任基金代码"]), _split(row["现任基金"])
        for index, code in enumerate(codes):
            fund_name = names[index] if index < len(names) else code
            found.setdefault(
                f"{code}.OF",
                Entity(
                    id=f"{code}.OF",
                    kind="fund",
                    name=fund_name,
                    aliases=[fund_name, f"{name}管理的基金"],
                    units="CNY",
                    source="akshare",
                ),
            )
    return list(found.values())


def _ymd(day: date | None, default: str) -> str:
    return day.strftime("%Y%m%d") if day else default


class AkshareProvider(LiveProvider):
    name: ClassVar[str] = "akshare"
    title: ClassVar[str] = "akshare (China markets)"
    kinds: ClassVar[frozenset[EntityKind]] = frozenset({"stock", "etf", "index", "fund", "macro"})
    datasets: ClassVar[frozenset[Dataset]] = frozenset({"prices", "series", "fundamentals", "news"})

    def __init__(
        self,
        timeout: float = 60.0,
        rate: RateLimiter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.timeout = timeout
        self.rate = rate or RateLimiter(2, 1.0)
        self._clock = clock
        self._directories: dict[str, tuple[float, pd.DataFrame]] = {}
        self._lock = threading.Lock()

    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        return entity_id in CHINA_SERIES or classify(entity_id) is not None

    def serves(self, entity_id: str, dataset: Dataset, kind: EntityKind | None = None) -> bool:
        if entity_id in CHINA_SERIES:
            return dataset == "series"
        china = classify(entity_id)
        if china is None:
            return False
        return dataset == "prices" or (
            china.kind == "stock" and dataset in {"fundamentals", "news"}
        )

    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        if entity_id in CHINA_SERIES:
            if dataset != "series":
                raise ProviderError(f"akshare: {entity_id} is a series, not {dataset}")
            return self._macro(entity_id, start, end)
        china = classify(entity_id)
        if china is None:
            raise ProviderError(f"akshare: {entity_id} is not a mainland China id")
        entity = self._entity(entity_id, china)
        if dataset == "prices":
            return Download(entity=entity, prices=self._prices(entity_id, china, start, end))
        if dataset == "fundamentals" and china.kind == "stock":
            raw = self._call(
                "stock_financial_analysis_indicator",
                symbol=china.code,
                start_year=str(start.year) if start else "1900",
            )
            facts = require_rows(
                parse_indicators(raw, entity_id), self.name, entity_id, "financial indicators"
            )
            return Download(entity=entity, fundamentals=facts)
        if dataset == "news" and china.kind == "stock":
            raw = self._call("stock_news_em", symbol=china.code)
            news = require_rows(parse_stock_news(raw, entity_id), self.name, entity_id, "news")
            return Download(entity=entity, news=news)
        raise ProviderError(f"akshare: no {dataset} for {entity_id} ({china.kind})")

    def search(self, text: str, limit: int = 10) -> list[Entity]:
        query = text.strip()
        if not query:
            return []
        fixed = [*CHINA_INDICES.values(), *(spec.entity for spec in CHINA_SERIES.values())]
        found = rank_entities(query, fixed, limit, cutoff=85)
        if re.fullmatch(r"\d{6}", query):
            by_code = Entity(id=a_share_id(query), kind="stock", name=query, source=self.name)
            found.insert(0, by_code)
        found += rank_entities(query, self.a_shares(), limit, cutoff=80)
        managers = self._directory("fund_manager_em")
        found += funds_of_manager(managers, query)
        if len(found) < limit:
            found += rank_entities(query, self.funds(), limit, cutoff=85)
        return first_of_each_id(found, limit)

    def a_shares(self) -> list[Entity]:
        """Every listed A-share (code, name) as an entity."""
        table = self._directory("stock_info_a_code_name")
        return [
            Entity(
                id=a_share_id(code),
                kind="stock",
                name=str(name),
                aliases=[str(name).replace(" ", "")],
                units="CNY",
                source=self.name,
            )
            for code, name in zip(table["code"], table["name"], strict=True)
        ]

    def funds(self) -> list[Entity]:
        table = self._directory("fund_name_em")
        return [
            Entity(id=f"{code}.OF", kind="fund", name=str(name), units="CNY", source=self.name)
            for code, name in zip(table["基金代码"], table["基金简称"], strict=True)
        ]

    def _directory(self, function: str) -> pd.DataFrame:
        """A name list (A-shares, funds, managers), downloaded at most once a day per process."""
        with self._lock:
            cached = self._directories.get(function)
            if cached and self._clock() - cached[0] < DIRECTORY_TTL_S:
                return cached[1]
        table = self._call(function)
        if table is None or table.empty:
            raise ProviderError(f"akshare: {function} returned nothing")
        with self._lock:
            self._directories[function] = (self._clock(), table)
        return table

    def _call(self, function: str, **kwargs: Any) -> Any:
        refuse_if_offline(self.name)
        ak = load_akshare()
        func = getattr(ak, function, None)
        if func is None:
            raise ProviderError(
                f"akshare: this akshare version has no {function}; upgrade with "
                "`pip install -U 'datapilot[china]'`"
            )
        return call_library(
            self.name, function, lambda: func(**kwargs), rate=self.rate, timeout=self.timeout
        )

    def _prices(
        self, entity_id: str, china: ChinaCode, start: date | None, end: date | None
    ) -> pd.DataFrame:
        begin, finish = _ymd(start, "19900101"), _ymd(end, "20500101")
        if china.kind == "fund":
            unit = self._call("fund_open_fund_info_em", symbol=china.code, indicator="单位净值走势")
            acc = self._call("fund_open_fund_info_em", symbol=china.code, indicator="累计净值走势")
            frame = parse_fund_nav(unit, acc, entity_id)
        elif china.kind == "index":
            raw = self._call(
                "stock_zh_index_daily_em",
                symbol=f"{china.market}{china.code}",
                start_date=begin,
                end_date=finish,
            )
            frame = parse_kline(raw, entity_id, lots=True)
        else:
            function = "fund_etf_hist_em" if china.kind == "etf" else "stock_zh_a_hist"
            args = {"symbol": china.code, "period": "daily"}
            args |= {"start_date": begin, "end_date": finish}
            frame = parse_kline(self._call(function, **args, adjust=""), entity_id)
            # Forward-adjusted closes (前复权) play the role of an adjusted close.
            adjusted = parse_kline(self._call(function, **args, adjust="qfq"), entity_id)
            frame = frame.drop(columns="adj_close").merge(
                adjusted[["date", "close"]].rename(columns={"close": "adj_close"}),
                on="date",
                how="left",
            )[PRICE_COLUMNS]
        return require_rows(clip_window(frame, start, end), self.name, entity_id, "prices")

    def _macro(self, series_id: str, start: date | None, end: date | None) -> Download:
        spec = CHINA_SERIES[series_id]
        raw = self._call(spec.function, **dict(spec.kwargs))
        frame = clip_window(parse_macro(raw, spec, series_id), start, end)
        frame = require_rows(frame, self.name, series_id, "observations")
        return Download(entity=spec.entity, series=frame)

    def _entity(self, entity_id: str, china: ChinaCode) -> Entity:
        if entity_id in CHINA_INDICES:
            return CHINA_INDICES[entity_id]
        name = entity_id
        with self._lock:
            cached = self._directories.get("stock_info_a_code_name")
        if cached is not None and china.kind == "stock":
            table = cached[1]
            hits = table.loc[table["code"].astype(str).str.zfill(6) == china.code, "name"]
            name = str(hits.iloc[0]) if len(hits) else name
        aliases = [name] if name != entity_id else []
        return Entity(
            id=entity_id, kind=china.kind, name=name, aliases=aliases, units="CNY", source=self.name
        )
