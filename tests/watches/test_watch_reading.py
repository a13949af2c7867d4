"""Sentences read into watches without a model, in English and Chinese: what was understood is
shown, and anything not read is refused by name, never guessed."""

from __future__ import annotations

from datetime import date, time
from typing import Any

import pytest

from datapilot.brains.offline.vocab import load_vocab
from datapilot.core.watches import Schedule, WatchSpec
from datapilot.watches.reading import WatchRefused, read_watch

TODAY = date(2022, 12, 30)


def read(data: Any, sentence: str, timezone: str = "UTC") -> WatchSpec:
    return read_watch(sentence, data.catalog, load_vocab(), today=TODAY, timezone=timezone)


@pytest.mark.parametrize(
    ("sentence", "entity", "measure", "comparator", "threshold", "window", "behaviour"),
    [
        ("tell me when Apple closes below 150", "AAPL", "close_level", "below", 150, None, "state"),
        ("alert me if the S&P 500 falls more than 2% in a day", "^GSPC", "daily_move", "below",
         -2, None, "event"),
        ("notify me when Microsoft rises more than 3% in a single day", "MSFT", "daily_move",
         "above", 3, None, "event"),
        ("alert me when JPM's drawdown exceeds 10%", "JPM", "drawdown", "below", -10, None,
         "state"),
        ("tell me when MSFT return over the past 20 days is above 5%", "MSFT", "window_return",
         "above", 5, 20, "state"),
        ("tell me when Apple crosses above its 50-day moving average", "AAPL", "ma_cross",
         "above", None, 50, "event"),
        ("tell me when Exxon falls below its moving average", "XOM", "ma_cross", "below", None,
         50, "event"),
        ("苹果回撤超过10%时提醒我", "AAPL", "drawdown", "below", -10, None, "state"),
        ("标普500单日跌幅超过2%时提醒我", "^GSPC", "daily_move", "below", -2, None, "event"),
        ("微软近20日涨幅超过5%时通知我", "MSFT", "window_return", "above", 5, 20, "state"),
        ("苹果上穿200日均线时提醒我", "AAPL", "ma_cross", "above", None, 200, "event"),
        ("苹果收盘跌破150时提醒我", "AAPL", "close_level", "below", 150, None, "state"),
    ],
)  # fmt: skip
def test_alert_sentences_are_read_whole(
    data: Any,
    sentence: str,
    entity: str,
    measure: str,
    comparator: str,
    threshold: float | None,
    window: int | None,
    behaviour: str,
) -> None:
    spec = read(data, sentence)
    assert spec.kind == "alert"
    assert [e.id for e in spec.entities] == [entity]
    condition = spec.condition
    assert condition is not None
    assert (condition.measure, condition.comparator, condition.threshold) == (
        measure, comparator, threshold
    )  # fmt: skip
    assert (condition.window, condition.behaviour) == (window, behaviour)
    assert spec.language == ("zh" if any("\u4e00" <= ch <= "\u9fff" for ch in sentence) else "en")


@pytest.mark.parametrize(
    ("sentence", "schedule", "entities"),
    [
        ("every Monday at 8, send me how Apple and Microsoft did last week",
         Schedule(kind="weekly", weekday=0, at=time(8)), ["AAPL", "MSFT"]),
        ("every Friday at 5pm tell me how the S&P 500 did this week",
         Schedule(kind="weekly", weekday=4, at=time(17)), ["^GSPC"]),
        ("daily at 18:00 Asia/Shanghai send me the close of Apple",
         Schedule(kind="daily", at=time(18), timezone="Asia/Shanghai"), ["AAPL"]),
        ("every 30 seconds send me the S&P 500 close",
         Schedule(kind="interval", every_seconds=30), ["^GSPC"]),
        ("cron: 0 8 * * 1 report the S&P 500 this year",
         Schedule(kind="cron", cron="0 8 * * 1"), ["^GSPC"]),
        ("monthly on the 15th at 9:30 send me Apple's return this year",
         Schedule(kind="monthly", day_of_month=15, at=time(9, 30)), ["AAPL"]),
        ("每周五 苹果本周走势", Schedule(kind="weekly", weekday=4, at=time(8)), ["AAPL"]),
        ("每天下午6点 北京时间 告诉我苹果的收盘价",
         Schedule(kind="daily", at=time(18), timezone="Asia/Shanghai"), ["AAPL"]),
        ("每月1号 发给我标普500今年的走势", Schedule(kind="monthly", day_of_month=1, at=time(8)),
         ["^GSPC"]),
        ("每隔10分钟 告诉我微软的收盘价", Schedule(kind="interval", every_seconds=600), ["MSFT"]),
    ],
)  # fmt: skip
def test_report_sentences_are_read_with_their_schedule(
    data: Any, sentence: str, schedule: Schedule, entities: list[str]
) -> None:
    spec = read(data, sentence)
    assert spec.kind == "report" and spec.question
    assert spec.schedule == schedule
    assert [e.id for e in spec.entities] == entities


def test_the_default_time_zone_is_the_one_given(data: Any) -> None:
    spec = read(data, "every day at 7 send me the S&P 500 close", timezone="Europe/London")
    assert spec.schedule is not None and spec.schedule.timezone == "Europe/London"


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("alert me when Apple's volatility exceeds 30%", ["volatility", "exceeds", "30%"]),
        ("every Monday at 8, send me how my watchlist did last week", ["watchlist"]),
        ("tell me when Apple closes below 150 unless Zorblat says otherwise", ["Zorblat"]),
    ],
)
def test_unread_words_are_refused_by_name(data: Any, sentence: str, words: list[str]) -> None:
    with pytest.raises(WatchRefused) as refused:
        read(data, sentence)
    assert set(words) <= set(refused.value.words)
    for word in words:
        assert word in str(refused.value)


def test_a_move_with_no_period_is_not_guessed_to_be_daily(data: Any) -> None:
    with pytest.raises(WatchRefused, match="in a day"):
        read(data, "alert me if the S&P 500 falls more than 2%")


def test_nothing_to_watch_is_refused(data: Any) -> None:
    with pytest.raises(WatchRefused, match="nothing to watch"):
        read(data, "alert me when the drawdown exceeds 10%")


def test_a_ticker_the_data_lack_is_accepted_as_waiting_for_data(data: Any) -> None:
    spec = read(data, "alert me when ZZZQ closes below 10")
    assert spec.entities == [] and spec.waiting_for_data == ["ZZZQ"]
    assert spec.condition is not None and spec.condition.threshold == 10
