"""China markets through a fake `akshare` module with akshare's column names and formats."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from datapilot.data import fundamentals as fundamentals_module
from datapilot.data.catalog import Catalog
from datapilot.data.funds import fund_nav
from datapilot.data.providers import akshare_provider
from datapilot.data.providers.akshare_provider import (
    AkshareProvider,
    a_share_id,
    classify,
    parse_period_label,
)
from datapilot.data.providers.http import ProviderError, RateLimiter
from datapilot.data.providers.router import Router
from datapilot.data.warehouse import Warehouse

DAYS = pd.bdate_range("2024-03-01", periods=10)
CLOSES = [1700.0 + 5 * i for i in range(10)]


def kline(adjust: str) -> pd.DataFrame:
    # 前复权 closes sit below raw ones once a dividend has been paid.
    shift = -30.0 if adjust == "qfq" else 0.0
    return pd.DataFrame(
        {
            "日期": [d.strftime("%Y-%m-%d") for d in DAYS],
            "股票代码": "600519",
            "开盘": [c - 2 + shift for c in CLOSES],
            "收盘": [c + shift for c in CLOSES],
            "最高": [c + 8 + shift for c in CLOSES],
            "最低": [c - 8 + shift for c in CLOSES],
            "成交量": [20_000 + i for i in range(10)],
            "成交额": 3.4e9,
            "振幅": 1.0,
            "涨跌幅": 0.3,
            "涨跌额": 5.0,
            "换手率": 0.2,
        }
    )


class FakeAkshare:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def _log(self, name: str, **kwargs: Any) -> None:
        self.calls.append((name, kwargs))

    def stock_info_a_code_name(self) -> pd.DataFrame:
        self._log("stock_info_a_code_name")
        return pd.DataFrame(
            {
                "code": ["600519", "000858", "601318", "000001", "300750", "830799"],
                "name": ["贵州茅台", "五 粮 液", "中国平安", "平安银行", "宁德时代", "艾融软件"],
            }
        )

    def stock_zh_a_hist(self, symbol: str, period: str, start_date: str, end_date: str,
                        adjust: str = "") -> pd.DataFrame:  # fmt: skip
        self._log("stock_zh_a_hist", symbol=symbol, adjust=adjust, start_date=start_date)
        return kline(adjust)

    def stock_zh_index_daily_em(self, symbol: str, start_date: str, end_date: str) -> pd.DataFrame:
        self._log("stock_zh_index_daily_em", symbol=symbol)
        return pd.DataFrame(
            {"date": ["2024-03-01", "2024-03-04"], "open": [3500.0, 3510.0],
             "close": [3510.0, 3540.5], "high": [3520.0, 3550.0], "low": [3490.0, 3505.0],
             "volume": [1.2e8, 1.3e8],
             "amount": [2e11, 2.1e11]}
        )  # fmt: skip

    def fund_open_fund_info_em(self, symbol: str, indicator: str) -> pd.DataFrame:
        self._log("fund_open_fund_info_em", symbol=symbol, indicator=indicator)
        dates = ["2024-03-01", "2024-03-04", "2024-03-05"]
        if indicator == "单位净值走势":
            return pd.DataFrame(
                {"净值日期": dates, "单位净值": [1.50, 1.52, 1.49], "日增长率": 0.0}
            )
        return pd.DataFrame({"净值日期": dates, "累计净值": [3.10, 3.12, 3.09]})

    def fund_name_em(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"基金代码": ["005827", "110011", "161725"], "拼音缩写": ["YFDLCHH", "YFDYXHH", "ZRBJ"],
             "基金简称": ["易方达蓝筹精选混合", "易方达优质精选混合(QDII)",
                         "招商中证白酒指数(LOF)A"],
             "基金类型": ["混合型", "QDII", "指数型"], "拼音全称": ["", "", ""]}
        )  # fmt: skip

    def fund_manager_em(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"序号": [1, 2], "姓名": ["张坤", "侯昊"], "所属公司": ["易方达基金", "招商基金"],
             "现任基金代码": ["005827,110011", "161725"],
             "现任基金": ["易方达蓝筹精选混合,易方达优质精选混合(QDII)", "招商中证白酒指数(LOF)A"],
             "累计从业时间": [4000, 2000], "现任基金资产总规模": [500.0, 600.0],
             "现任基金最佳回报": [300.0, 100.0]}
        )  # fmt: skip

    def macro_china_cpi(self) -> pd.DataFrame:
        # Eastmoney lists the newest month first.
        return pd.DataFrame(
            {"月份": ["2024年03月份", "2024年02月份", "2024年01月份"],
             "全国-当月": [100.1, 100.7, 99.2], "全国-同比增长": [0.1, 0.7, -0.8],
             "全国-环比增长": [-1.0, 1.0, 0.3], "全国-累计": [100.0, 99.9, 99.2]}
        )  # fmt: skip

    def macro_china_gdp(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"季度": ["2024年第1季度", "2023年第1-4季度", "2023年第1-3季度"],
             "国内生产总值-绝对值": [296299.0, 1260582.1, 913027.0],
             "国内生产总值-同比增长": [5.3, 5.2, 5.2]}
        )  # fmt: skip

    def stock_hsgt_hist_em(self, symbol: str) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "日期": ["2024-03-01", "2024-03-04"],
                "当日成交净买额": [35.2, -12.5],
                "买入成交额": 1.0,
            }
        )

    def stock_financial_analysis_indicator(self, symbol: str, start_year: str) -> pd.DataFrame:
        self._log("stock_financial_analysis_indicator", symbol=symbol, start_year=start_year)
        return pd.DataFrame(
            {"日期": ["2023-12-31", "2023-09-30"], "摊薄每股收益(元)": ["59.49", "41.74"],
             "净资产收益率(%)": ["34.19", "25.01"], "销售毛利率(%)": ["91.96", "91.97"],
             "其他指标": ["--", "--"]}
        )  # fmt: skip

    def stock_news_em(self, symbol: str) -> pd.DataFrame:
        return pd.DataFrame(
            {"关键词": symbol, "新闻标题": ["贵州茅台发布年报"], "新闻内容": ["营收增长"],
             "发布时间": ["2024-04-02 18:30:00"], "文章来源": ["证券时报"],
             "新闻链接": ["http://finance.eastmoney.com/a/1.html"]}
        )  # fmt: skip


@pytest.fixture
def fake_ak(monkeypatch: pytest.MonkeyPatch) -> FakeAkshare:
    fake = FakeAkshare()
    monkeypatch.setattr(akshare_provider, "load_akshare", lambda: fake)
    return fake


def provider() -> AkshareProvider:
    return AkshareProvider(rate=RateLimiter(1000))


def test_chinese_name_to_code(fake_ak) -> None:
    ak = provider()
    assert ak.search("贵州茅台")[0].id == "600519.SH"
    assert ak.search("茅台")[0].id == "600519.SH"
    assert ak.search("宁德时代")[0].id == "300750.SZ"
    assert ak.search("五粮液")[0].id == "000858.SZ"  # exchange lists pad names with spaces
    assert ak.search("600519")[0].id == "600519.SH"
    assert ak.search("沪深300")[0].id == "000300.SS"
    assert ak.search("中国CPI")[0].id == "CN_CPI"
    assert ak.search("北向资金")[0].id == "CN_NORTHBOUND"


def test_fund_manager_to_funds(fake_ak) -> None:
    found = provider().search("张坤")
    assert {e.id for e in found} >= {"005827.OF", "110011.OF"}
    assert next(e for e in found if e.id == "005827.OF").name == "易方达蓝筹精选混合"


def test_ids_and_period_labels() -> None:
    codes = ("600519", "000001", "300750", "688981", "830799", "920002")
    assert [a_share_id(c) for c in codes] == [
        "600519.SH", "000001.SZ", "300750.SZ", "688981.SH", "830799.BJ", "920002.BJ",
    ]  # fmt: skip
    assert classify("000300.SS").kind == "index"
    assert classify("000001.SZ").kind == "stock"  # Ping An Bank, not the SSE Composite
    assert classify("510300.SH").kind == "etf"
    assert classify("005827.OF").kind == "fund"
    assert classify("AAPL") is None
    assert parse_period_label("2024年10月份") == pd.Timestamp("2024-10-01")
    assert parse_period_label("2023年第1-4季度") == pd.Timestamp("2023-10-01")
    assert parse_period_label("2024年第1季度") == pd.Timestamp("2024-01-01")


def test_a_share_prices_raw_and_forward_adjusted(fake_ak) -> None:
    frame = provider().download("600519.SH", "prices", date(2024, 3, 4), None).prices
    raw, qfq = kline(""), kline("qfq")
    kept = raw["日期"] >= "2024-03-04"
    assert frame["close"].tolist() == raw.loc[kept, "收盘"].tolist()
    assert frame["adj_close"].tolist() == qfq.loc[kept, "收盘"].tolist()
    assert frame["volume"].tolist() == (raw.loc[kept, "成交量"] * 100).tolist()  # lots → shares
    adjusts = [kw["adjust"] for name, kw in fake_ak.calls if name == "stock_zh_a_hist"]
    assert adjusts == ["", "qfq"]


def test_index_and_fund_nav(fake_ak, tmp_path: Path) -> None:
    ak = provider()
    index = ak.download("000300.SS", "prices", None, None)
    assert index.prices["close"].tolist() == [3510.0, 3540.5]
    assert ("stock_zh_index_daily_em", {"symbol": "sh000300"}) in fake_ak.calls
    assert index.entity.name == "CSI 300"

    warehouse = Warehouse(tmp_path / "w.duckdb")
    router = Router([ak], warehouse, Catalog([]))
    assert router.ensure(["005827.OF"]).get("005827.OF").status == "fetched"
    nav = fund_nav(warehouse, "005827.OF")
    assert nav["nav"].tolist() == [1.50, 1.52, 1.49]
    assert nav["accumulated_nav"].tolist() == [3.10, 3.12, 3.09]
    # A return over the window includes distributions through the accumulated NAV.
    assert nav["accumulated_nav"].iloc[-1] / nav["accumulated_nav"].iloc[0] - 1 == pytest.approx(
        3.09 / 3.10 - 1
    )


def test_china_macro_series_sorted_by_date(fake_ak) -> None:
    ak = provider()
    cpi = ak.download("CN_CPI_YOY", "series", None, None).series
    assert cpi["date"].tolist() == [pd.Timestamp(f"2024-0{m}-01") for m in (1, 2, 3)]
    assert cpi["value"].tolist() == [-0.8, 0.7, 0.1]
    gdp = ak.download("CN_GDP", "series", date(2023, 9, 1), None).series
    assert gdp["value"].tolist() == [1260582.1, 296299.0]
    flows = ak.download("CN_NORTHBOUND", "series", None, None)
    assert flows.series["value"].sum() == pytest.approx(35.2 - 12.5)
    assert flows.entity.units == "100 million CNY"


def test_indicators_and_news(fake_ak) -> None:
    facts = provider().download("600519.SH", "fundamentals", date(2023, 1, 1), None).fundamentals
    roe = facts[facts["field"] == "roe"].set_index("period_end")["value"]
    assert roe[pd.Timestamp("2023-12-31")] == 34.19
    assert set(facts.loc[facts["period_end"] == pd.Timestamp("2023-12-31"), "period"]) == {"annual"}
    assert set(facts.loc[facts["period_end"] == pd.Timestamp("2023-09-30"), "period"]) == {
        "quarterly"
    }
    assert "其他指标" not in set(facts["field"])  # "--" is not a number
    assert ("stock_financial_analysis_indicator", {"symbol": "600519", "start_year": "2023"}) in (
        fake_ak.calls
    )
    news = provider().download("600519.SH", "news", None, None).news
    assert news["title"].tolist() == ["贵州茅台发布年报"]
    assert news["publisher"].tolist() == ["证券时报"]


def test_discovered_a_share_is_named_in_the_catalog(fake_ak, tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    catalog = Catalog([])
    ak = provider()
    router = Router([ak], warehouse, catalog)
    hits = router.search("贵州茅台")
    assert hits.entities[0].id == "600519.SH"
    assert catalog.lookup("贵州茅台")[0].entity.id == "600519.SH"
    report = router.ensure(["600519.SH"], date(2024, 3, 1), None)
    assert report.get("600519.SH").status == "fetched"
    entity = catalog.get("600519.SH")
    assert entity.available and entity.name == "贵州茅台"
    stored = fundamentals_module.fundamentals(warehouse, ["600519.SH"])
    assert stored.empty  # only prices were asked for


def test_library_errors_become_provider_errors(fake_ak, monkeypatch) -> None:
    def broken(**_: Any) -> pd.DataFrame:
        raise KeyError("data")

    monkeypatch.setattr(fake_ak, "stock_news_em", broken, raising=False)
    with pytest.raises(ProviderError, match="stock_news_em failed"):
        provider().download("600519.SH", "news", None, None)
    ak = SimpleNamespace()  # an akshare without the function
    monkeypatch.setattr(akshare_provider, "load_akshare", lambda: ak)
    with pytest.raises(ProviderError, match="no stock_news_em"):
        provider().download("600519.SH", "news", None, None)
