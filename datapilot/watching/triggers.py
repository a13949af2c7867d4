"""A watch's schedule as an APScheduler 3 trigger, and the due times a server missed.

Every replica builds the same trigger from the same stored watch, so they agree on each due time
to the microsecond: an interval is anchored at the watch's creation, the calendar kinds at the
wall clock of the watch's time zone. The (watch, due time) pair is what a replica claims.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from datapilot.core.watches import WEEKDAYS, Schedule

if TYPE_CHECKING:
    from apscheduler.triggers.base import BaseTrigger

# Months with at least N days, for a monthly day N > 28 (February's 29th only in leap years,
# which the "last day" trigger of February covers).
_MONTHS_WITH = {
    29: "1,3-12",
    30: "1,3-12",
    31: "1,3,5,7,8,10,12",
}
_MONTHS_WITHOUT = {29: "2", 30: "2", 31: "2,4,6,9,11"}
_MAX_STEPS = 100_000  # due times walked to find the last one missed (a year of minutes is less)


def utc(moment: datetime) -> datetime:
    """An aware UTC datetime; a naive one (as the store keeps them) is taken as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def trigger_for(schedule: Schedule, anchor: datetime) -> BaseTrigger:
    """The trigger of `schedule`; `anchor` (the watch's creation) starts an interval's beats."""
    from apscheduler.triggers.combining import OrTrigger
    from apscheduler.triggers.cron import CronTrigger
    from apscheduler.triggers.interval import IntervalTrigger

    zone = ZoneInfo(schedule.timezone)
    if schedule.kind == "interval":
        assert schedule.every_seconds is not None
        return IntervalTrigger(seconds=schedule.every_seconds, start_date=utc(anchor), timezone=UTC)
    if schedule.kind == "cron":
        assert schedule.cron is not None
        return CronTrigger.from_crontab(schedule.cron, timezone=zone)
    at = schedule.at or time(0, 0)
    clock = {"hour": at.hour, "minute": at.minute, "second": at.second, "timezone": zone}
    if schedule.kind == "weekly":
        assert schedule.weekday is not None
        return CronTrigger(day_of_week=WEEKDAYS[schedule.weekday], **clock)
    if schedule.kind == "monthly":
        day = schedule.day_of_month
        assert day is not None
        if day <= 28:
            return CronTrigger(day=day, **clock)
        # The day, or the month's last day in a month too short for it.
        return OrTrigger(
            [
                CronTrigger(day=day, month=_MONTHS_WITH[day], **clock),
                CronTrigger(day="last", month=_MONTHS_WITHOUT[day], **clock),
            ]
        )
    return CronTrigger(**clock)  # daily


def last_missed(trigger: BaseTrigger, since: datetime, now: datetime) -> datetime | None:
    """The latest due time after `since` (the last one claimed, or the watch's creation) that
    is already past at `now`, or None: the one run a server that was down makes up for all it
    missed (replicas starting together find the same one)."""
    from apscheduler.triggers.interval import IntervalTrigger

    since, now = utc(since), utc(now)
    due = trigger.get_next_fire_time(None, since + timedelta(microseconds=1))
    if due is None or utc(due) >= now:
        return None
    if isinstance(trigger, IntervalTrigger):  # its beats are arithmetic: no need to walk them
        upcoming = trigger.get_next_fire_time(None, now)
        if upcoming is not None:
            before = utc(upcoming) - trigger.interval
            return before if before < now else before - trigger.interval
    for _ in range(_MAX_STEPS):
        following = trigger.get_next_fire_time(due, due + timedelta(microseconds=1))
        if following is None or utc(following) >= now:
            break
        due = following
    return utc(due)


def next_due(trigger: BaseTrigger, now: datetime) -> datetime | None:
    """The next due time at or after `now`."""
    due = trigger.get_next_fire_time(None, utc(now))
    return None if due is None else utc(due)
