"""A watch's email: subject and text in the watch's language, each chart as an attached PNG,
sent through the operator's SMTP server (`DATAPILOT_SMTP_*`). The password is never logged,
stored on an event or returned."""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from datapilot.core.watches import Delivery
from datapilot.settings import Settings

log = logging.getLogger(__name__)


def compose(
    settings: Settings, to: str, subject: str, text: str, pngs: list[tuple[str, bytes]]
) -> EmailMessage:
    """The message: plain text, then one `image/png` attachment per chart."""
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message["Message-ID"] = make_msgid(domain="datapilot")
    message.set_content(text)  # UTF-8: Chinese subjects and bodies are encoded as such
    for name, png in pngs:
        message.add_attachment(png, maintype="image", subtype="png", filename=name)
    return message


def _send(settings: Settings, message: EmailMessage) -> None:
    host = settings.smtp_host
    assert host is not None
    timeout = settings.smtp_timeout_s
    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    if settings.smtp_security == "tls":
        smtp = smtplib.SMTP_SSL(host, settings.smtp_port, timeout=timeout, context=context)
    else:
        smtp = smtplib.SMTP(host, settings.smtp_port, timeout=timeout)
    with smtp:
        if settings.smtp_security == "starttls":
            smtp.starttls(context=context)
        if settings.smtp_user:
            password = settings.smtp_password.get_secret_value() if settings.smtp_password else ""
            smtp.login(settings.smtp_user, password)
        smtp.send_message(message)


async def send_email(settings: Settings, message: EmailMessage) -> Delivery:
    """Send `message` (off the event loop); the delivery's state and error."""
    to = str(message["To"])
    if not settings.smtp_host:
        return Delivery(
            channel="email",
            state="failed",
            attempts=0,
            error="email is not configured on this server (DATAPILOT_SMTP_HOST)",
            target=to,
        )
    try:
        await asyncio.to_thread(_send, settings, message)
    except (OSError, smtplib.SMTPException) as error:
        # The server's own words (SMTP replies carry no password); the password is never sent
        # anywhere but to the login.
        detail = _describe(error)
        log.warning("watch email to %s failed: %s", to, detail)
        return Delivery(channel="email", state="failed", attempts=1, error=detail, target=to)
    return Delivery(channel="email", state="sent", attempts=1, sent_at=datetime.now(UTC), target=to)


def _describe(error: BaseException) -> str:
    if isinstance(error, smtplib.SMTPResponseException):
        text = (
            error.smtp_error.decode(errors="replace")
            if isinstance(error.smtp_error, bytes)
            else str(error.smtp_error)
        )
        return f"the SMTP server answered {error.smtp_code}: {text}"
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return "the SMTP server refused the recipient address"
    return f"{type(error).__name__}: {error}".rstrip(": ")
