"""Delivering one watch event: the page's inbox (the event is in the store: delivered), the
watch's webhook (signed JSON) and its email (text and chart PNGs), in the watch's language.
Each channel's state, tries and error are recorded on the event."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from datapilot.core.answer import Answer
from datapilot.core.outputs import ChartOutput
from datapilot.core.watches import Delivery, WatchEvent, WatchInfo
from datapilot.settings import Settings
from datapilot.store.watches import WatchError, WatchRuns
from datapilot.watching import messages

if TYPE_CHECKING:
    from datapilot.store import Store

log = logging.getLogger(__name__)
_MAX_ATTACHED = 4  # charts attached to one email


async def deliver(
    settings: Settings, store: Store, watch: WatchInfo, event: WatchEvent, answer: Answer | None
) -> WatchEvent:
    """Send `event` through the watch's channels; the event with its deliveries recorded."""
    deliveries = [Delivery(channel="page", state="sent", attempts=1, sent_at=datetime.now(UTC))]
    channels = watch.channels
    sending = []
    if channels.webhook:
        sending.append(_webhook(settings, store, watch, event, channels.webhook))
    if channels.email:
        sending.append(_email(settings, watch, event, answer, channels.email))
    deliveries += await asyncio.gather(*sending)

    def save() -> None:
        with store.session(write=True) as session:
            WatchRuns(session, settings).set_deliveries(event.id, deliveries)

    # A watch deleted while its event was on its way keeps nothing.
    with contextlib.suppress(WatchError):
        await asyncio.to_thread(save)
    return event.model_copy(update={"deliveries": deliveries})


async def _webhook(
    settings: Settings, store: Store, watch: WatchInfo, event: WatchEvent, url: str
) -> Delivery:
    from datapilot.watching.webhook import send_webhook

    def secret() -> str | None:
        with store.session() as session:
            return WatchRuns(session, settings).signing_secret(watch.id)

    try:
        key = await asyncio.to_thread(secret)
    except WatchError as error:
        return Delivery(channel="webhook", state="failed", attempts=0, error=str(error))
    if key is None:
        return Delivery(
            channel="webhook", state="failed", attempts=0, error="this watch has no secret"
        )
    body = messages.payload(watch.spec, event).model_dump_json().encode()
    return await send_webhook(url, body, key, settings)


async def _email(
    settings: Settings, watch: WatchInfo, event: WatchEvent, answer: Answer | None, to: str
) -> Delivery:
    from datapilot.watching.email import compose, send_email

    pngs = await asyncio.to_thread(_pngs, answer)
    message = compose(
        settings,
        to,
        messages.subject(watch.spec, event),
        messages.text(watch.spec, event),
        pngs,
    )
    return await send_email(settings, message)


def _pngs(answer: Answer | None) -> list[tuple[str, bytes]]:
    """The answer's charts as PNG attachments (blocking; a chart that fails is left out)."""
    if answer is None:
        return []
    from datapilot.render.lmc import png_base64

    charts = [o for o in answer.outputs if isinstance(o, ChartOutput)][:_MAX_ATTACHED]
    attached = []
    for number, chart in enumerate(charts, start=1):
        try:
            attached.append((f"chart-{number}.png", base64.b64decode(png_base64(chart))))
        except Exception:
            log.exception("a watch's chart %r could not be drawn for email", chart.title)
    return attached
