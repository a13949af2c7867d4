"""Schedule words, in English and Chinese, read into a `Schedule` with the spans they took.

"every Monday at 8", "weekly on Friday at 17:30", "daily at 18:00 Asia/Shanghai", "every 30
seconds", "monthly on the 15th", "cron: 0 8 * * 1", 每周五, 每天下午6点, 每月1号, 每隔30秒,
北京时间. A schedule without a time of day runs at `DEFAULT_TIME` (said in the trace); the time
zone is the one the sentence names, else the default given (`DATAPILOT_WATCH_TIMEZONE`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import time

from datapilot.brains.offline.numbers import zh_number
from datapilot.core.watches import Schedule, ScheduleKind, check_timezone

Span = tuple[int, int]
DEFAULT_TIME = time(8, 0)

_DAYS_EN = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5,
    "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
_DAY_EN = r"(?P<day>" + "|".join(sorted(_DAYS_EN, key=len, reverse=True)) + r")s?"
_DAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "mins": 60,
    "minute": 60, "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "秒": 1, "秒钟": 1, "分": 60, "分钟": 60, "小时": 3600, "个小时": 3600, "钟头": 3600,
}  # fmt: skip
_ZONES = {
    "beijing time": "Asia/Shanghai", "北京时间": "Asia/Shanghai", "china time": "Asia/Shanghai",
    "new york time": "America/New_York", "eastern time": "America/New_York",
    "et": "America/New_York", "london time": "Europe/London", "hong kong time": "Asia/Hong_Kong",
    "香港时间": "Asia/Hong_Kong", "tokyo time": "Asia/Tokyo", "utc": "UTC", "gmt": "UTC",
}  # fmt: skip

_NUM_ZH = "[0-9零〇一二两三四五六七八九十]+"
_CRON = re.compile(
    r"(?i)\bcron(?:\s+expression)?\s*[:=]?\s*[\"'`]?(?P<expr>(?:[\d*/,\-A-Za-z]+\s+){4}[\d*/,\-A-Za-z]+)[\"'`]?"
)
_INTERVAL_EN = re.compile(
    r"(?i)\bevery\s+(?P<n>\d+|a|an|one|two|three|five|ten|fifteen|thirty)?\s*"
    r"(?P<unit>seconds?|secs?|minutes?|mins?|hours?|hrs?|s|m|h)\b"
)
_INTERVAL_ZH = re.compile(rf"每(?:隔)?(?P<n>{_NUM_ZH})?(?P<unit>秒钟|秒|分钟|个小时|小时|钟头)")
_WEEKLY_EN = re.compile(
    rf"(?i)\b(?:(?:every|each)\s+(?:week\s+on\s+)?|weekly\s+on\s+|on\s+(?=\w+days?\b)){_DAY_EN}\b"
    r"|\b(?P<weekly>weekly|every\s+week|each\s+week|once\s+a\s+week)\b"
)
_WEEKLY_ZH = re.compile(r"每(?:个)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天末])?")
_MONTHLY_EN = re.compile(
    r"(?i)\b(?:(?:monthly|every\s+month|each\s+month|once\s+a\s+month)"
    r"(?:\s+on\s+the\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?)?"
    r"|on\s+the\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+)?of\s+(?:every|each)\s+month)\b"
)
_MONTHLY_ZH = re.compile(rf"每(?:个)?月(?:的)?(?:(?P<d>{_NUM_ZH})(?:日|号)|(?P<first>初))?")
_DAILY_EN = re.compile(
    r"(?i)\b(?:daily|every\s+day|each\s+day|every\s+morning|every\s+evening|once\s+a\s+day)\b"
)
_DAILY_ZH = re.compile(r"每(?:一)?(?:天|日|个交易日|交易日)|天天")
_AT_EN = re.compile(
    r"(?i)\b(?:at\s+)?(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>a\.?m\.?|p\.?m\.?)(?![A-Za-z])"
    r"|\bat\s+(?P<h2>\d{1,2})(?::(?P<m2>\d{2}))?\b(?!\s*(?:%|percent|days?|sessions?))"
    r"|\b(?P<h3>\d{1,2}):(?P<m3>\d{2})\b"
)
_AT_ZH = re.compile(
    rf"(?P<part>早上|上午|中午|下午|晚上|傍晚|凌晨)?(?P<h>{_NUM_ZH})(?:点|時|时)(?:(?P<half>半)|(?P<m>{_NUM_ZH})分?)?"
)
_IANA = re.compile(
    r"\b(?P<zone>(?:Africa|America|Asia|Atlantic|Australia|Europe|Pacific|Etc)/[A-Za-z_]+(?:/[A-Za-z_]+)?)\b"
)
_ZONE_WORDS = re.compile(
    r"(?i)(?:\b(?:in\s+)?(?P<w>beijing time|china time|new york time|eastern time|london time|"
    r"hong kong time|tokyo time|utc|gmt)\b|(?P<zh>北京时间|香港时间))"
)
_ZONE_IN = re.compile(r"(?i)\bin\s+$|\(\s*$")


@dataclass
class ScheduleReading:
    schedule: Schedule | None = None
    spans: list[Span] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    numbers: list[float] = field(default_factory=list)


def _n(text: str | None, default: int = 1) -> int:
    if not text or text.lower() in ("a", "an", "one"):
        return default
    words = {"two": 2, "three": 3, "five": 5, "ten": 10, "fifteen": 15, "thirty": 30}
    if text.lower() in words:
        return words[text.lower()]
    value = int(text) if text.isdigit() else zh_number(text)
    return int(value) if value is not None else default


def _time_of_day(text: str, taken: list[Span]) -> tuple[time, Span] | None:
    for pattern in (_AT_ZH, _AT_EN):
        for found in pattern.finditer(text):
            if any(s < found.end() and found.start() < e for s, e in taken):
                continue
            groups = found.groupdict()
            hour_text = groups.get("h") or groups.get("h2") or groups.get("h3")
            minute_text = groups.get("m") or groups.get("m2") or groups.get("m3")
            hour = _n(hour_text, -1)
            minute = 30 if groups.get("half") else _n(minute_text, 0) if minute_text else 0
            ampm = (groups.get("ampm") or "").lower().replace(".", "")
            part = groups.get("part") or ""
            if (ampm == "pm" or part in ("下午", "晚上", "傍晚")) and hour < 12:
                hour += 12
            if ampm == "am" and hour == 12:
                hour = 0
            if 0 <= hour <= 23 and 0 <= minute <= 59:
                return time(hour, minute), found.span()
    return None


def _zone(text: str, default: str) -> tuple[str, Span | None]:
    found = _IANA.search(text)
    if found is not None:
        start = found.start()
        before = _ZONE_IN.search(text[:start])
        span = (before.start() if before else start, found.end())
        if text[span[1] : span[1] + 1] == ")":
            span = (span[0], span[1] + 1)
        return check_timezone(found.group("zone")), span
    words = _ZONE_WORDS.search(text)
    if words is not None:
        said = (words.group("w") or words.group("zh")).lower()
        return _ZONES[said], words.span()
    return default, None


def read_schedule(text: str, default_timezone: str = "UTC") -> ScheduleReading:
    """The schedule `text` names (or none), with the spans of its words."""
    out = ScheduleReading()
    kind: ScheduleKind | None = None
    extra: dict[str, object] = {}
    cron = _CRON.search(text)
    if cron is not None:
        kind, extra["cron"] = "cron", " ".join(cron.group("expr").split())
        out.spans.append(cron.span())
    else:
        for pattern in (_INTERVAL_ZH, _INTERVAL_EN):
            found = pattern.search(text)
            if found is not None:
                unit = found.group("unit").lower()
                n = _n(found.group("n"))
                kind, extra["every_seconds"] = "interval", n * _UNITS[unit]
                out.spans.append(found.span())
                out.numbers.append(float(n))
                break
    if kind is None:
        for pattern, what in (
            (_WEEKLY_ZH, "weekly"), (_WEEKLY_EN, "weekly"), (_MONTHLY_ZH, "monthly"),
            (_MONTHLY_EN, "monthly"), (_DAILY_ZH, "daily"), (_DAILY_EN, "daily"),
        ):  # fmt: skip
            found = pattern.search(text)
            if found is None:
                continue
            groups = found.groupdict()
            if what == "weekly":
                day = groups.get("day")
                if day is None:
                    out.trace.append("weekly with no day named: on Monday")
                weekday = _DAYS_ZH.get(day or "") if day and day in _DAYS_ZH else None
                extra["weekday"] = (
                    weekday if weekday is not None else _DAYS_EN.get((day or "monday").lower(), 0)
                )
            elif what == "monthly":
                said = groups.get("d") or groups.get("d1") or groups.get("d2")
                extra["day_of_month"] = _n(said, 1) if said else 1
                if said:
                    out.numbers.append(float(extra["day_of_month"]))  # type: ignore[arg-type]
                else:
                    out.trace.append("monthly with no day named: on the 1st")
            kind = what  # type: ignore[assignment]
            out.spans.append(found.span())
            break
    zone, zone_span = _zone(text, default_timezone)
    if zone_span is not None:
        out.spans.append(zone_span)
    if kind is None:
        return out
    if kind in ("daily", "weekly", "monthly"):
        at = _time_of_day(text, out.spans)
        if at is None:
            extra["at"] = DEFAULT_TIME
            out.trace.append(f"no time of day named: {DEFAULT_TIME:%H:%M}")
        else:
            extra["at"] = at[0]
            out.spans.append(at[1])
            out.numbers += [float(at[0].hour), float(at[0].minute)]
            if at[0].hour > 12:
                out.numbers.append(float(at[0].hour - 12))
    schedule = Schedule(kind=kind, timezone=zone, **extra)  # type: ignore[arg-type]
    out.schedule = schedule
    out.trace.append(f"schedule: {schedule.describe()}")
    return out
