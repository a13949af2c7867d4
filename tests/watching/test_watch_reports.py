"""Scheduled reports, run by the real scheduler every second and delivered to a webhook and an
SMTP server (aiosmtpd) on loopback, in English and Chinese: the webhook's signature checked here
with the secret shown at creation, the email's chart a PNG, and the figures the answer quotes
computed with pandas from skfolio's shipped prices."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr
from support.live_server import live_server
from support.watch_receivers import (
    LOOPBACK,
    Hook,
    Mailbox,
    smtp_receiver,
    wait_for,
    webhook_receiver,
)

from datapilot.core.watches import Schedule, WatchChannels, WatchSpec
from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Users, open_store
from datapilot.store.watches import Watches
from datapilot.watching import start_watching

pytestmark = LOOPBACK
TODAY = date(2022, 12, 28)


def apple_2019_last_close() -> str:
    from skfolio.datasets import load_sp500_dataset

    closes = load_sp500_dataset()["AAPL"]
    return f"{closes.loc['2019'].iloc[-1]:.2f}"


@pytest.fixture(scope="module")
def receivers() -> Iterator[tuple[Hook, Mailbox]]:
    with webhook_receiver() as hook, smtp_receiver() as box:
        yield hook, box


def settings_for(folder: Path, hook: Hook, box: Mailbox, **extra: object) -> Settings:
    return Settings(
        brain="offline",
        offline=True,  # nothing leaves the machine: the allowance names the loopback receiver
        today=TODAY,
        database_url=SecretStr(f"sqlite:///{folder / 'store.db'}"),
        outbound_allow=[hook.allow],
        smtp_host="127.0.0.1",
        smtp_port=box.port,
        smtp_security="none",
        webhook_backoff_s=0.05,
        **extra,  # type: ignore[arg-type]
    )


def report(text: str, question: str, language: str) -> WatchSpec:
    return WatchSpec(
        kind="report",
        text=text,
        language=language,  # type: ignore[arg-type]
        question=question,
        schedule=Schedule(kind="interval", every_seconds=1),
    )


async def run_until(settings: Settings, done: object, timeout: float = 60.0) -> None:
    """Run the scheduler of `settings`' store until `done()` holds."""
    scheduler = start_watching(settings, open_store(settings))
    await scheduler.start()
    try:
        async with asyncio.timeout(timeout):
            while not done():  # type: ignore[operator]
                await asyncio.sleep(0.05)
            await scheduler.settled()
    finally:
        await scheduler.stop()


CASES = [
    pytest.param(
        "en",
        "every 2 seconds, plot Apple's closing price in 2019",
        "Datapilot report: every 2 seconds, plot Apple's closing price in 2019",
        id="english",
    ),
    pytest.param(
        "zh",
        "每2秒画一下苹果公司2019年的股价走势",
        "Datapilot 报告：每2秒画一下苹果公司2019年的股价走势",
        id="chinese",
    ),
]


@pytest.fixture(scope="module")
def server(
    data: object, receivers: tuple[Hook, Mailbox], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A live server whose lifespan runs the watches, as `datapilot serve` does."""
    hook, box = receivers
    settings = settings_for(tmp_path_factory.mktemp("reports"), hook, box)
    with live_server(create_app(settings, warm_up=False, watches=True), lifespan="on") as base:
        yield base


@pytest.mark.parametrize(("language", "text", "subject"), CASES)
def test_a_report_reaches_the_webhook_signed_and_the_mailbox_with_its_chart(
    receivers: tuple[Hook, Mailbox], server: str, language: str, text: str, subject: str
) -> None:
    hook, box = receivers
    address = f"{language}@example.test"
    channels = {"webhook": hook.url + f"?lang={language}", "email": address}
    made = httpx.post(f"{server}/api/v1/watches", json={"text": text, "channels": channels})
    assert made.status_code == 201, made.text
    watch, secret = made.json(), made.json()["secret"]
    posts = lambda: [p for p in hook.posts if p.path.endswith(language)]  # noqa: E731
    mails = lambda: [m for i, m in enumerate(box.messages) if address in box.recipients[i]]  # noqa: E731

    wait_for(lambda: posts() and mails(), what="the report's webhook call and email")

    post = posts()[0]
    expected = "sha256=" + hmac.new(secret.encode(), post.body, hashlib.sha256).hexdigest()
    assert post.headers["X-Datapilot-Signature"] == expected
    event = json.loads(post.body)
    assert event["watch_id"] == watch["id"]
    assert event["text"] == text and event["language"] == language
    assert event["status"] == "ok" and event["date"] == TODAY.isoformat()
    assert {"value", "threshold"} <= event.keys()  # a report has none: null
    assert apple_2019_last_close() in event["summary"]

    mail = mails()[0]
    assert mail["Subject"] == subject
    body = mail.get_body(("plain",))
    assert body is not None and apple_2019_last_close() in body.get_content()
    pngs = [part for part in mail.iter_attachments() if part.get_content_type() == "image/png"]
    assert pngs and pngs[0].get_content().startswith(b"\x89PNG\r\n\x1a\n")

    def delivered() -> list[dict[str, object]] | None:
        history = httpx.get(f"{server}/api/v1/watches/{watch['id']}/events").json()
        found = [e for e in history if e["id"] == event["event_id"]]
        states = {d["channel"]: d["state"] for d in found[0]["deliveries"]} if found else {}
        return found if states == {"page": "sent", "webhook": "sent", "email": "sent"} else None

    recorded = wait_for(delivered, what="the deliveries recorded on the event")[0]
    assert recorded["status"] == "ok" and not recorded["late"]
    # Paused, it runs no more.
    paused = httpx.patch(f"{server}/api/v1/watches/{watch['id']}", json={"status": "paused"})
    assert paused.status_code == 200, paused.text
    time.sleep(0.5)  # a run under way may still end
    count = len(posts())
    time.sleep(2.5)
    assert len(posts()) == count


async def test_a_report_without_data_says_so_everywhere(
    data: object, receivers: tuple[Hook, Mailbox], tmp_path: Path
) -> None:
    hook, box = receivers
    settings = settings_for(tmp_path, hook, box)
    store = open_store(settings)
    with store.session(write=True) as session:
        user = Users(session).create("nodata").id
        spec = report("every second, Apple in 1950", "Apple's closing price in 1950", "en")
        channels = WatchChannels(webhook=hook.url + "?case=nodata", email="nodata@example.test")
        made = Watches(session, user, settings).create(spec, channels)
    posts = lambda: [p for p in hook.posts if p.path.endswith("nodata")]  # noqa: E731
    mails = lambda: [m for m in box.messages if m["To"] == "nodata@example.test"]  # noqa: E731

    await run_until(settings, lambda: posts() and mails())

    event = json.loads(posts()[0].body)
    assert event["watch_id"] == made.watch.id and event["status"] == "no_data"
    assert "1950" in event["summary"]
    assert "(no data)" in mails()[0]["Subject"]
    assert "1950" in mails()[0].get_body(("plain",)).get_content()


async def test_a_busy_webhook_is_tried_again_and_a_private_one_refused(
    data: object, receivers: tuple[Hook, Mailbox], tmp_path: Path
) -> None:
    from datapilot.watching.webhook import send_webhook

    hook, box = receivers
    settings = settings_for(tmp_path, hook, box, webhook_attempts=3)
    hook.fail_next = 1
    sent = await send_webhook(hook.url + "?case=retry", b"{}", "s3cret", settings)
    assert (sent.state, sent.attempts) == ("sent", 2)
    assert [p.path for p in hook.posts].count("/hook?case=retry") == 2

    hook.fail_next = 5  # busy for longer than the tries last
    failed = await send_webhook(hook.url + "?case=busy", b"{}", "s3cret", settings)
    assert (failed.state, failed.attempts) == ("failed", 3) and "503" in (failed.error or "")

    # Without the allowance, the loopback address is private: refused before connecting.
    closed = settings.model_copy(update={"outbound_allow": []})
    refused = await send_webhook(hook.url + "?case=refused", b"{}", "s3cret", closed)
    assert refused.state == "failed" and "DATAPILOT_OUTBOUND_ALLOW" in (refused.error or "")
    assert not [p for p in hook.posts if p.path.endswith("refused")]
    assert "s3cret" not in (refused.error or "")
