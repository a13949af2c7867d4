"""Watches: what a user asked Datapilot to keep watching, in words every layer shares.

A watch is a report (a question answered on a schedule) or an alert (a condition over a measure
of one or more entities, evaluated when their data change and on an optional schedule). The
reader turns a sentence into a `WatchSpec`; the store keeps it; the scheduler and the channels
turn it into `WatchEvent`s, each delivered to the page, a webhook and email.

Units: a `close_level` threshold is a level in the series' own unit; every other measure is in
percent (2.0 is 2 %). A fall is negative: "falls more than 2% in a day" is `daily_move` `below`
-2.0; "drawdown beyond 10%" is `drawdown` `below` -10.0, the drawdown being
(close / running peak - 1) x 100.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, field_validator, model_validator

from datapilot.core.intent import EntityRef

WatchKind = Literal["report", "alert"]
WatchLanguage = Literal["en", "zh"]
WatchStatus = Literal["active", "paused"]
ScheduleKind = Literal["daily", "weekly", "monthly", "cron", "interval"]
# What a server that was down does with a due time it missed: run it once, marked late, or skip.
MissedPolicy = Literal["run_late", "skip"]
Measure = Literal["close_level", "daily_move", "drawdown", "window_return", "ma_cross"]
Comparator = Literal["above", "below", "beyond"]  # beyond: |value| > |threshold|
Behaviour = Literal["state", "event"]
Channel = Literal["page", "webhook", "email"]
DeliveryState = Literal["pending", "sent", "failed", "skipped"]
EventStatus = Literal["ok", "no_data", "error"]

WEEKDAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DEFAULT_MA_SESSIONS = 50
# A state condition fires when it becomes true and re-arms when it stops holding; an event
# condition fires on every day it happens.
DEFAULT_BEHAVIOUR: dict[Measure, Behaviour] = {
    "close_level": "state",
    "drawdown": "state",
    "window_return": "state",
    "daily_move": "event",
    "ma_cross": "event",
}
PERCENT_MEASURES: frozenset[Measure] = frozenset({"daily_move", "drawdown", "window_return"})


def check_timezone(name: str) -> str:
    """An IANA time zone name, checked (`Asia/Shanghai`, `UTC`); raises ValueError otherwise."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(
            f"unknown time zone {name!r}; use an IANA name like Asia/Shanghai"
        ) from error
    return name


class Schedule(BaseModel):
    """When a watch runs. `daily`/`weekly`/`monthly` run at `at` (local time in `timezone`);
    `weekly` on `weekday` (0 = Monday); `monthly` on `day_of_month` (clamped to the month's
    last day); `cron` by a five-field crontab expression; `interval` every `every_seconds`."""

    kind: ScheduleKind
    at: dt.time | None = Field(default=None, description="Time of day (daily, weekly, monthly).")
    weekday: int | None = Field(default=None, ge=0, le=6, description="0 = Monday (weekly).")
    day_of_month: int | None = Field(default=None, ge=1, le=31, description="Monthly.")
    cron: str | None = Field(default=None, description="minute hour day month weekday.")
    every_seconds: int | None = Field(default=None, ge=1, description="Interval.")
    timezone: str = "UTC"
    missed: MissedPolicy = Field(
        default="run_late", description="A due time missed while down: run once late, or skip."
    )

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        return check_timezone(value)

    @model_validator(mode="after")
    def _complete(self) -> Schedule:
        needs = {
            "weekly": self.weekday is not None,
            "monthly": self.day_of_month is not None,
            "cron": bool(self.cron and len(self.cron.split()) == 5),
            "interval": self.every_seconds is not None,
        }
        if not needs.get(self.kind, True):
            raise ValueError(f"a {self.kind} schedule is incomplete: {self.model_dump()}")
        return self

    def describe(self, zh: bool = False) -> str:
        """The schedule in words, e.g. `weekly on Monday at 08:00 (UTC)` / `每周一 08:00（UTC）`."""
        at = self.at.strftime("%H:%M") if self.at else "00:00"
        zone = f"（{self.timezone}）" if zh else f" ({self.timezone})"
        if self.kind == "interval":
            return f"每 {self.every_seconds} 秒" if zh else f"every {self.every_seconds} seconds"
        if self.kind == "cron":
            return f"按 cron {self.cron}{zone}" if zh else f"cron {self.cron}{zone}"
        if self.kind == "weekly" and self.weekday is not None:
            if zh:
                return f"每周{'一二三四五六日'[self.weekday]} {at}{zone}"
            day = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
            return f"weekly on {day[self.weekday]} at {at}{zone}"
        if self.kind == "monthly":
            if zh:
                return f"每月{self.day_of_month}日 {at}{zone}"
            return f"monthly on day {self.day_of_month} at {at}{zone}"
        return f"每天 {at}{zone}" if zh else f"daily at {at}{zone}"


class Condition(BaseModel):
    """What an alert watches: a measure of each entity's closes compared with a threshold."""

    measure: Measure
    comparator: Comparator
    threshold: float | None = Field(
        default=None,
        description="A level (close_level) or a percent (others); None for ma_cross, whose "
        "threshold is the moving average itself.",
    )
    inclusive: bool = Field(default=False, description="'at least' / 不低于: >= instead of >.")
    window: int | None = Field(
        default=None,
        ge=1,
        description="Sessions: the return's window (window_return) or the moving average's "
        "length (ma_cross, 50 unless said).",
    )
    behaviour: Behaviour = Field(
        default="state",
        description="state: fires when it becomes true, re-arms when it stops holding; event: "
        "fires on every day it happens.",
    )

    @model_validator(mode="after")
    def _complete(self) -> Condition:
        if self.measure != "ma_cross" and self.threshold is None:
            raise ValueError(f"a {self.measure} condition needs a threshold")
        if self.measure == "ma_cross" and self.comparator == "beyond":
            raise ValueError("a moving-average cross is above or below, not beyond")
        if self.measure in ("window_return", "ma_cross") and self.window is None:
            raise ValueError(f"a {self.measure} condition needs a window of sessions")
        return self

    @property
    def percent(self) -> bool:
        return self.measure in PERCENT_MEASURES

    def describe(self, zh: bool = False) -> str:
        """E.g. `daily move below -2% (event)` / `单日涨跌幅 低于 -2%（事件）`."""
        if zh:
            return self._describe_zh()
        if self.measure == "ma_cross":
            return f"close crosses {self.comparator} its {self.window}-session moving average"
        unit = "%" if self.percent else ""
        name = {
            "close_level": "close",
            "daily_move": "daily move",
            "drawdown": "drawdown from the running peak",
            "window_return": f"{self.window}-session return",
        }[self.measure]
        edge = " or equal" if self.inclusive else ""
        return f"{name} {self.comparator}{edge} {self.threshold:g}{unit} ({self.behaviour})"

    def _describe_zh(self) -> str:
        how = "（每次发生时提醒）"
        if self.behaviour == "state":
            how = "（成立时提醒一次，恢复后再提醒）"
        if self.measure == "ma_cross":
            way = "上穿" if self.comparator == "above" else "跌破"
            return f"收盘价{way}{self.window}日均线{how}"
        unit = "%" if self.percent else ""
        name = {
            "close_level": "收盘价",
            "daily_move": "单日涨跌幅",
            "drawdown": "自最高点的回撤",
            "window_return": f"近{self.window}个交易日涨跌幅",
        }[self.measure]
        compare = {"above": "高于", "below": "低于", "beyond": "超出（任一方向）"}[self.comparator]
        edge = "或等于" if self.inclusive else ""
        return f"{name}{compare}{edge} {self.threshold:g}{unit}{how}"


class WatchChannels(BaseModel):
    """Where events go besides the page (always): a webhook URL and an email address."""

    webhook: str | None = None
    email: str | None = None


class WatchSpec(BaseModel):
    """A watch as understood from its sentence: shown before it is saved, stored as JSON."""

    kind: WatchKind
    text: str = Field(description="The sentence as the user wrote it.")
    language: WatchLanguage = "en"
    entities: list[EntityRef] = Field(default_factory=list)
    waiting_for_data: list[str] = Field(
        default_factory=list, description="Ticker-like names read but not in the data yet."
    )
    question: str | None = Field(default=None, description="What a report asks each time.")
    condition: Condition | None = None
    schedule: Schedule | None = Field(
        default=None,
        description="When it runs; an alert without one is evaluated when its data change.",
    )
    trace: list[str] = Field(default_factory=list, description="What each word was read as.")

    @model_validator(mode="after")
    def _complete(self) -> WatchSpec:
        if self.kind == "report" and (not self.question or self.schedule is None):
            raise ValueError("a report needs a question and a schedule")
        if self.kind == "alert" and self.condition is None:
            raise ValueError("an alert needs a condition")
        return self

    @property
    def entity_ids(self) -> list[str]:
        return [entity.id for entity in self.entities] + list(self.waiting_for_data)


class Firing(BaseModel):
    """One day an alert's condition fired, with the value that made it fire."""

    date: dt.date
    entity: str = Field(description="The entity id.")
    value: float = Field(description="The measure on that day (level, or percent).")
    threshold: float = Field(description="What it was compared with (the MA for ma_cross).")
    close: float | None = Field(default=None, description="That day's close.")


class Delivery(BaseModel):
    """How one event fared on one channel."""

    channel: Channel
    state: DeliveryState = "pending"
    attempts: int = 0
    error: str | None = None
    sent_at: dt.datetime | None = None
    target: str | None = Field(default=None, description="The URL or address (no secret).")


class WatchEvent(BaseModel):
    """One run of a watch: a report's answer or an alert's firing, and its deliveries."""

    id: str
    watch_id: str
    kind: WatchKind
    due_at: dt.datetime | None = Field(default=None, description="The schedule's due time, if any.")
    fired_at: dt.datetime
    date: dt.date | None = Field(default=None, description="The data's date (a firing's day).")
    entity: str | None = None
    value: float | None = None
    threshold: float | None = None
    status: EventStatus = "ok"
    result: dict[str, Any] = Field(
        default_factory=dict, description="The report's Answer JSON, or the firing."
    )
    deliveries: list[Delivery] = Field(default_factory=list)
    error: str | None = None
    late: bool = Field(default=False, description="Run after a missed due time.")
    read: bool = False


class WatchPayload(BaseModel):
    """The JSON a webhook receives (and an email summarises) for one event."""

    watch_id: str
    event_id: str
    kind: WatchKind
    text: str
    language: WatchLanguage
    status: EventStatus
    date: dt.date | None = None
    entity: str | None = None
    value: float | None = None
    threshold: float | None = None
    late: bool = False
    summary: str = ""
    answer: dict[str, Any] | None = Field(default=None, description="A report's Answer.")


class WatchInfo(BaseModel):
    """A stored watch as lists and the API show it (never its secret)."""

    id: str
    owner_id: str
    kind: WatchKind
    text: str
    status: WatchStatus
    spec: WatchSpec
    channels: WatchChannels = Field(default_factory=WatchChannels)
    has_secret: bool = False
    created_at: dt.datetime
    updated_at: dt.datetime
    unread: int = 0


class NewWatch(BaseModel):
    """A watch just created: the only time its webhook secret is shown."""

    watch: WatchInfo
    secret: str | None = None
