"""What a delivery says, in the watch's language: the email's subject and text, the payload a
webhook receives, and the line the page's inbox shows."""

from __future__ import annotations

from datapilot.core.watches import WatchEvent, WatchPayload, WatchSpec

_WORDS = {
    "en": {
        "report": "Datapilot report: {text}",
        "report_no_data": "Datapilot report (no data): {text}",
        "report_error": "Datapilot report (failed): {text}",
        "alert": "Datapilot alert: {entity} on {date}",
        "fired": "{entity}: {measure} was {value} on {date} (threshold {threshold}).",
        "no_data": "No data for this report: {message}",
        "error": "The report failed: {message}",
        "late": "This run is late: it was due at {due} UTC, while no server was running.",
        "footer": "You asked Datapilot to watch: {text}",
        "measure": {
            "close_level": "the close",
            "daily_move": "the daily move",
            "drawdown": "the drawdown",
            "window_return": "the return",
            "ma_cross": "the close against its moving average",
        },
    },
    "zh": {
        "report": "Datapilot 报告：{text}",
        "report_no_data": "Datapilot 报告（暂无数据）：{text}",
        "report_error": "Datapilot 报告（失败）：{text}",
        "alert": "Datapilot 提醒：{entity}（{date}）",
        "fired": "{entity}：{date} {measure}为 {value}（阈值 {threshold}）。",
        "no_data": "本次报告暂无数据：{message}",
        "error": "本次报告失败：{message}",
        "late": "本次运行晚于计划：原定于 UTC {due}，其时服务未在运行。",
        "footer": "您让 Datapilot 关注：{text}",
        "measure": {
            "close_level": "收盘价",
            "daily_move": "日涨跌幅",
            "drawdown": "回撤",
            "window_return": "区间收益率",
            "ma_cross": "收盘价相对均线",
        },
    },
}


def _number(value: float | None, percent: bool) -> str:
    if value is None:
        return "—"
    return f"{value:,.2f}%" if percent else f"{value:,.2f}"


def subject(spec: WatchSpec, event: WatchEvent) -> str:
    words = _WORDS[spec.language]
    if event.kind == "alert":
        return str(words["alert"]).format(entity=event.entity or "", date=event.date or "")
    key = {"ok": "report", "no_data": "report_no_data"}.get(event.status, "report_error")
    return str(words[key]).format(text=_short(spec.text))


def text(spec: WatchSpec, event: WatchEvent) -> str:
    """The email's body (the page shows the same summary)."""
    words = _WORDS[spec.language]
    lines: list[str] = []
    if event.late and event.due_at is not None:
        lines.append(str(words["late"]).format(due=f"{event.due_at:%Y-%m-%d %H:%M}"))
    if event.kind == "alert":
        lines.append(headline(spec, event))
    else:
        lines.append(summary(spec, event))
    lines += ["", str(words["footer"]).format(text=spec.text)]
    return "\n".join(lines)


def headline(spec: WatchSpec, event: WatchEvent) -> str:
    """An alert's firing in one sentence."""
    words = _WORDS[spec.language]
    condition = spec.condition
    measure = condition.measure if condition is not None else "close_level"
    percent = condition.percent if condition is not None else False
    measures = words["measure"]
    assert isinstance(measures, dict)
    return str(words["fired"]).format(
        entity=event.entity or "",
        measure=measures[measure],
        value=_number(event.value, percent),
        date=event.date or "",
        threshold=_number(event.threshold, percent),
    )


def summary(spec: WatchSpec, event: WatchEvent) -> str:
    """A report's answer in a few words: its summary, or why there is none."""
    words = _WORDS[spec.language]
    answer = event.result
    if event.kind == "alert":
        return headline(spec, event)
    if event.status == "no_data":
        return str(words["no_data"]).format(message=answer.get("message") or "")
    if event.status == "error":
        return str(words["error"]).format(message=event.error or answer.get("message") or "")
    return str(answer.get("summary") or "")


def payload(spec: WatchSpec, event: WatchEvent) -> WatchPayload:
    """The JSON a webhook receives."""
    return WatchPayload(
        watch_id=event.watch_id,
        event_id=event.id,
        kind=event.kind,
        text=spec.text,
        language=spec.language,
        status=event.status,
        date=event.date,
        entity=event.entity,
        value=event.value,
        threshold=event.threshold,
        late=event.late,
        summary=summary(spec, event),
        answer=event.result if event.kind == "report" else None,
    )


def _short(words: str, limit: int = 80) -> str:
    return words if len(words) <= limit else words[: limit - 1] + "…"
