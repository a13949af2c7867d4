"""The time-window grammar: explicit dates, periods, relative windows, ranges and horizons.

Expected windows follow the time-window conventions in docs/asking.md ("Time windows": "past N
months" = the same calendar day N months back, clamped to month end; 年初/年中/年底 = Jan 1/Jun
30/Dec 31; quarters, halves, decades).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from support import paths

from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.vocab import VocabError, load_vocab
from datapilot.brains.offline.windows import default_window, read_time

SHARED = paths.FIXTURES / "corpus"
TODAY = date(2022, 12, 28)  # a Wednesday

WINDOWS = [
    # explicit dates, many formats
    ("from Jan 23, 2018 to today", "2018-01-23", "2022-12-28"),
    ("2019年1月23日到今天", "2019-01-23", "2022-12-28"),
    ("between March 15th, 2020 and 2020-06-30", "2020-03-15", "2020-06-30"),
    ("from 15 March 2020 to 3/31/2021", "2020-03-15", "2021-03-31"),
    ("2010-01-01至2012-12-31", "2010-01-01", "2012-12-31"),
    ("2010年1月1日到2012年12月31日", "2010-01-01", "2012-12-31"),
    ("2019.03.15", "2019-03-15", "2019-03-15"),
    ("on 3月15日", "2022-03-15", "2022-03-15"),
    # years, ranges of years, since / until
    ("in 2019", "2019-01-01", "2019-12-31"),
    ("画一下苹果2019年的股价", "2019-01-01", "2019-12-31"),
    ("FY2019 revenue", "2019-01-01", "2019-12-31"),
    ("from 2008 to 2009", "2008-01-01", "2009-12-31"),
    ("between 2014 and 2016", "2014-01-01", "2016-12-31"),
    ("2014-2016", "2014-01-01", "2016-12-31"),
    ("2014至2016年", "2014-01-01", "2016-12-31"),
    ("1990年到2000年", "1990-01-01", "2000-12-31"),
    ("since 2010", "2010-01-01", "2022-12-28"),
    ("2019年以来", "2019-01-01", "2022-12-28"),
    ("2020年至今", "2020-01-01", "2022-12-28"),
    ("从2015年开始", "2015-01-01", "2022-12-28"),
    ("2015 onwards", "2015-01-01", "2022-12-28"),
    ("after 2019", "2020-01-01", "2022-12-28"),
    ("since the start of 2020", "2020-01-01", "2022-12-28"),
    ("since the beginning of the year", "2022-01-01", "2022-12-28"),
    ("until 2015", "2014-12-31", "2015-12-31"),
    ("截至2015年", "2014-12-31", "2015-12-31"),
    ("before 2015", "2013-12-31", "2014-12-31"),
    # this/last year, YTD, months, weeks
    ("this year", "2022-01-01", "2022-12-28"),
    ("今年以来", "2022-01-01", "2022-12-28"),
    ("year-to-date", "2022-01-01", "2022-12-28"),
    ("YTD", "2022-01-01", "2022-12-28"),
    ("年初至今", "2022-01-01", "2022-12-28"),
    ("last year", "2021-01-01", "2021-12-31"),
    ("去年", "2021-01-01", "2021-12-31"),
    ("前年", "2020-01-01", "2020-12-31"),
    ("the year before last", "2020-01-01", "2020-12-31"),
    ("last month", "2022-11-01", "2022-11-30"),
    ("上个月", "2022-11-01", "2022-11-30"),
    ("this month", "2022-12-01", "2022-12-28"),
    ("last week", "2022-12-19", "2022-12-25"),
    ("本周", "2022-12-26", "2022-12-28"),
    ("last quarter", "2022-07-01", "2022-09-30"),
    ("上季度", "2022-07-01", "2022-09-30"),
    # month names and year-less dates (the latest one not after today)
    ("since March", "2022-03-01", "2022-12-28"),
    ("in May", "2022-05-01", "2022-05-31"),
    ("since May 2020", "2020-05-01", "2022-12-28"),
    ("from March 2019 to June 2019", "2019-03-01", "2019-06-30"),
    ("from Jan to Mar 2019", "2019-01-01", "2019-03-31"),
    ("between March and June 2020", "2020-03-01", "2020-06-30"),
    ("2019年3月到6月", "2019-03-01", "2019-06-30"),
    ("2019年3月至2020年5月", "2019-03-01", "2020-05-31"),
    ("去年12月", "2021-12-01", "2021-12-31"),
    ("January this year", "2022-01-01", "2022-01-31"),
    ("December of last year", "2021-12-01", "2021-12-31"),
    ("2021年3月底", "2021-03-31", "2021-03-31"),
    # quarters and halves
    ("the first quarter of 2015", "2015-01-01", "2015-03-31"),
    ("Q1 2015", "2015-01-01", "2015-03-31"),
    ("2015Q3", "2015-07-01", "2015-09-30"),
    ("1Q15", "2015-01-01", "2015-03-31"),
    ("Q3'19", "2019-07-01", "2019-09-30"),
    ("in Q4 of last year", "2021-10-01", "2021-12-31"),
    ("this year's first quarter", "2022-01-01", "2022-03-31"),
    ("今年一季度", "2022-01-01", "2022-03-31"),
    ("去年四季度", "2021-10-01", "2021-12-31"),
    ("2020年第二季度", "2020-04-01", "2020-06-30"),
    ("2021年前三季度", "2021-01-01", "2021-09-30"),
    ("2020年上半年", "2020-01-01", "2020-06-30"),
    ("今年下半年", "2022-07-01", "2022-12-31"),
    ("H1 2020", "2020-01-01", "2020-06-30"),
    ("first half of 2021", "2021-01-01", "2021-06-30"),
    ("the second half of last year", "2021-07-01", "2021-12-31"),
    # 年初 / 年中 / 年底 and their English forms
    ("2018年年初到2018年年中", "2018-01-01", "2018-06-30"),
    ("从2019年年初到2022年年中", "2019-01-01", "2022-06-30"),
    ("2019年底", "2019-12-31", "2019-12-31"),
    ("from the start of 2019 to mid-2020", "2019-01-01", "2020-06-30"),
    ("end of 2018", "2018-12-31", "2018-12-31"),
    ("early 2020", "2020-01-01", "2020-04-30"),
    # decades
    ("during the 1990s", "1990-01-01", "1999-12-31"),
    ("the 80s", "1980-01-01", "1989-12-31"),
    ("美国1980年代的失业率", "1980-01-01", "1989-12-31"),
    ("90年代", "1990-01-01", "1999-12-31"),
    ("上世纪90年代", "1990-01-01", "1999-12-31"),
    ("2010年代", "2010-01-01", "2019-12-31"),
    # rolling windows: the same calendar day N units back
    ("over the past 3 years", "2019-12-28", "2022-12-28"),
    ("the last 18 months", "2021-06-28", "2022-12-28"),
    ("past year", "2021-12-28", "2022-12-28"),
    ("over the last year", "2021-12-28", "2022-12-28"),
    ("past decade", "2012-12-28", "2022-12-28"),
    ("trailing twelve months", "2021-12-28", "2022-12-28"),
    ("over the past week", "2022-12-21", "2022-12-28"),
    ("in the last 30 days", "2022-11-28", "2022-12-28"),
    ("past 5 trading days", "2022-12-21", "2022-12-28"),
    ("近三年", "2019-12-28", "2022-12-28"),
    ("近半年", "2022-06-28", "2022-12-28"),
    ("近一年来", "2021-12-28", "2022-12-28"),
    ("过去12个月", "2021-12-28", "2022-12-28"),
    ("最近一周", "2022-12-21", "2022-12-28"),
    ("近5日", "2022-12-23", "2022-12-28"),
    ("近20年", "2002-12-28", "2022-12-28"),
    ("over 3 years", "2019-12-28", "2022-12-28"),
    ("3-year return", "2019-12-28", "2022-12-28"),
    ("since 5 years ago", "2017-12-28", "2022-12-28"),
    # a length after a date
    ("从2019年1月之后半年", "2019-01-01", "2019-06-30"),
    ("the six months after January 2019", "2019-01-01", "2019-06-30"),
    ("from January 2019 for six months", "2019-01-01", "2019-06-30"),
    ("three months before 2020", "2019-10-01", "2019-12-31"),
    ("2020年之前三个月", "2019-10-01", "2019-12-31"),
    ("Jan-Mar 2021", "2021-01-01", "2021-03-31"),
    ("Jan 23 - Mar 5, 2021", "2021-01-23", "2021-03-05"),
    ("今年前两个月", "2022-01-01", "2022-02-28"),
    ("the first two months of 2021", "2021-01-01", "2021-02-28"),
    ("从去年6月到今年3月", "2021-06-01", "2022-03-31"),
    ("贵州茅台从2018年初到现在的走势", "2018-01-01", "2022-12-28"),
    ("Microsoft since last March", "2022-03-01", "2022-12-28"),
    ("during the financial crisis", "2007-10-09", "2009-03-09"),
    ("疫情以来", "2020-02-19", "2022-12-28"),
    ("from the start of 2019 until the end of Q1 2020", "2019-01-01", "2020-03-31"),
    ("the first three quarters of 2021", "2021-01-01", "2021-09-30"),
    ("实际GDP 1960年至1970年", "1960-01-01", "1970-12-31"),
    # two-digit years, parts of decades, trailing twelve months
    ("苹果19年的股价", "2019-01-01", "2019-12-31"),
    ("从20年初到现在", "2020-01-01", "2022-12-28"),
    ("18年Q3", "2018-07-01", "2018-09-30"),
    ("in '08", "2008-01-01", "2008-12-31"),
    ("in the late 1990s", "1997-01-01", "1999-12-31"),
    ("90年代末", "1997-01-01", "1999-12-31"),
    ("AAPL TTM return", "2021-12-28", "2022-12-28"),
    # terse lengths, lower case
    ("$XOM 2y chart", "2020-12-28", "2022-12-28"),
    ("AAPL 6m", "2022-06-28", "2022-12-28"),
    ("msft 10d returns", "2022-12-18", "2022-12-28"),
    # several phrases: the window spans them all
    ("in 2019 and 2020", "2019-01-01", "2020-12-31"),
    # ... except that written dates beat a named episode
    ("the great recession, from 2007 through 2008", "2007-01-01", "2008-12-31"),
    ("over the past couple of years", "2020-12-28", "2022-12-28"),
    # a length right after a period is an indicator's setting when a setting word follows
    ("AMD今年30日滚动波动率", "2022-01-01", "2022-12-28"),
    ("今年14日RSI", "2022-01-01", "2022-12-28"),
]


@pytest.mark.parametrize(("text", "start", "end"), WINDOWS)
def test_windows(text: str, start: str, end: str) -> None:
    reading = read_time(text, TODAY)
    assert (reading.start, reading.end) == (date.fromisoformat(start), date.fromisoformat(end))
    assert reading.explicit


@pytest.mark.parametrize(
    ("today", "text", "start"),
    [
        (date(2012, 6, 30), "over the past 6 months", date(2011, 12, 30)),
        (date(2013, 3, 1), "for the last 3 months", date(2012, 12, 1)),
        (date(2020, 3, 31), "the past month", date(2020, 2, 29)),  # clamped to month end
        (date(2021, 3, 31), "近一个月", date(2021, 2, 28)),
        (date(2020, 2, 29), "past year", date(2019, 2, 28)),
        (date(2022, 8, 31), "近半年", date(2022, 2, 28)),
    ],
)
def test_relative_windows_clamp_to_month_end(today: date, text: str, start: date) -> None:
    reading = read_time(text, today)
    assert (reading.start, reading.end) == (start, today)


def test_month_end_arithmetic() -> None:
    assert Duration(1, "month").back(date(2020, 3, 31)) == date(2020, 2, 29)
    assert Duration(0.5, "year").forward(date(2019, 1, 1)) == date(2019, 6, 30)
    assert Duration(5, "trading_day").back(date(2019, 1, 3)) == date(2018, 12, 27)


def test_shared_windows_corpus() -> None:
    path = SHARED / "windows.jsonl"
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    right = 0
    for case in cases:
        reading = read_time(case["query"], date.fromisoformat(case["today"]))
        got = (reading.start and reading.start.isoformat(), reading.end and reading.end.isoformat())
        right += got == (case["expect"]["start"], case["expect"]["end"])
    assert right == len(cases) == 9


@pytest.mark.parametrize(
    ("text", "count", "unit"),
    [
        ("Forecast US real GDP for the next 8 quarters", 8, "quarter"),
        ("预测美国未来4个季度的实际GDP", 4, "quarter"),
        ("Predict the next 5 trading days", 5, "trading_day"),
        ("未来5个交易日", 5, "trading_day"),
        ("next 12 months", 12, "month"),
        ("3 months ahead", 3, "month"),
        ("未来半年", 6, "month"),
        ("未来一年", 1, "year"),
        ("下3个月", 3, "month"),
        ("next year", 1, "year"),
        ("明年", 1, "year"),
    ],
)
def test_forecast_horizons(text: str, count: int, unit: str) -> None:
    reading = read_time(text, TODAY)
    assert reading.horizon is not None
    assert (reading.horizon.count, reading.horizon.unit) == (count, unit)
    assert reading.start is None and reading.end is None


def test_future_period_is_a_target_not_a_window() -> None:
    reading = read_time("forecast GDP through the end of 2024", TODAY)
    assert reading.future == (date(2022, 12, 29), date(2024, 12, 31))
    assert reading.start is None
    assert read_time("in 2025", TODAY).future == (date(2025, 1, 1), date(2025, 12, 31))


def test_lengths_that_are_parameters_are_not_windows() -> None:
    lengths = [("30-day rolling volatility", 30), ("20日均线", 20), ("50-day MA", 50)]
    lengths.append(("30d vol", 30))
    for text, days in lengths:
        reading = read_time(text, TODAY)
        assert not reading.explicit
        assert [(d.count, d.unit) for d in reading.durations] == [(days, "day")]


@pytest.mark.parametrize(
    "text",
    [
        "Apple may rise",
        "S&P 500 above 2000 points",
        "M1 money supply",
        "top 5 stocks",
        "now add Microsoft",
        "中国GDP",
        "3M stock",
        "3M price",
        "Plot 3M",
        "$2m of Apple",
        "10年期国债收益率",  # a 10-year bond, not 2010
    ],
)
def test_no_false_windows(text: str) -> None:
    assert not read_time(text, TODAY).explicit


def test_year_is_not_read_as_year_middle() -> None:
    reading = read_time("2019年中国GDP的走势", TODAY)  # 年中国: a year, then 中国
    assert (reading.start, reading.end) == (date(2019, 1, 1), date(2019, 12, 31))


def test_since_first_date_is_left_to_the_entity() -> None:
    for text in ("Facebook share price since its IPO", "上市以来的股价", "all-time chart"):
        reading = read_time(text, TODAY)
        assert reading.from_first and reading.start is None and reading.end == TODAY


def test_a_named_calendar_period_keeps_its_calendar_end_past_today() -> None:
    # DESIGN: "in 2019 → the calendar year", "Q1..Q4, H1/H2 → calendar quarter/half"; only the
    # "this …" words (this year, YTD, this quarter) end today.
    reading = read_time("in 2022", date(2022, 3, 15))
    assert (reading.start, reading.end) == (date(2022, 1, 1), date(2022, 12, 31))
    assert any("after today" in note for note in reading.notes)
    this_year = read_time("this year", date(2022, 3, 15))
    assert (this_year.start, this_year.end) == (date(2022, 1, 1), date(2022, 3, 15))


def test_default_window_is_the_past_year() -> None:
    assert default_window(date(2020, 2, 29)) == (date(2019, 2, 28), date(2020, 2, 29))
    assert not read_time("Plot Apple", TODAY).explicit


def test_clauses_name_the_text_they_read() -> None:
    reading = read_time("Compare JPM and BAC since the start of 2020", TODAY)
    assert [(c.text, c.rule) for c in reading.clauses] == [("since the start of 2020", "since")]


# --- vocabulary files ---------------------------------------------------------------------------


def test_user_vocabulary_extends_the_bundled_words(tmp_path: Path) -> None:
    (tmp_path / "time.toml").write_text(
        '[words]\nthis_year = ["so far in the year"]\n', encoding="utf-8"
    )
    (tmp_path / "metrics.toml").write_text(
        '[metrics.close]\nen = ["quotation"]\n', encoding="utf-8"
    )
    vocab = load_vocab(tmp_path)
    reading = read_time("Apple so far in the year", TODAY, vocab)
    assert (reading.start, reading.end) == (date(2022, 1, 1), TODAY)
    assert read_time("this year", TODAY, vocab).start == date(2022, 1, 1)  # bundled words kept
    assert [h.labels for h in vocab.matcher.find("its quotation")][-1] == ("metric:close",)


def test_bad_vocabulary_file_names_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "metrics.toml").write_text('[metrics.sharpness]\nen = ["x"]\n', encoding="utf-8")
    with pytest.raises(VocabError, match=r"metrics\.toml.*sharpness"):
        load_vocab(tmp_path)
    (tmp_path / "metrics.toml").write_text("[metrics.close\n", encoding="utf-8")
    with pytest.raises(VocabError, match=r"metrics\.toml: not valid TOML"):
        load_vocab(tmp_path)
    (tmp_path / "metrics.toml").unlink()
    (tmp_path / "time.toml").write_text('[markers.past]\nen = [""]\n', encoding="utf-8")
    with pytest.raises(VocabError, match=r"time\.toml.*markers\.past\.en"):
        load_vocab(tmp_path)


def test_brain_refuses_a_bad_user_vocabulary_at_start(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from datapilot.brains.offline import OfflineBrain
    from datapilot.brains.offline import vocab as vocab_module
    from datapilot.settings import Settings

    (tmp_path / "vocab").mkdir()
    (tmp_path / "vocab" / "charts.toml").write_text('[charts.radar]\nen = ["radar"]\n')
    vocab_module.load_vocab.cache_clear()
    with pytest.raises(VocabError, match=r"charts\.toml.*radar"):
        OfflineBrain(settings=Settings(data_dir=tmp_path))
    vocab_module.load_vocab.cache_clear()
