"""A watch's webhook: the event as JSON, signed with HMAC-SHA256 under the watch's secret, sent
only through the SSRF-safe outbound client (`net`) and tried again with backoff.

The receiver checks `X-Datapilot-Signature: sha256=<hex>` against the HMAC-SHA256 of the raw
body under the secret it was given once, when the watch was created."""

from __future__ import annotations

import hashlib
import hmac
import logging
from datetime import UTC, datetime

from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from datapilot import __version__
from datapilot.core.watches import Delivery
from datapilot.net import (
    OutboundError,
    OutboundHTTPError,
    OutboundLimits,
    OutboundPolicy,
    OutboundRefused,
    afetch,
    safe_url,
)
from datapilot.settings import Settings

log = logging.getLogger(__name__)
SIGNATURE_HEADER = "X-Datapilot-Signature"
# Answers worth another try: the receiver was busy or failed; others (4xx) will not change.
_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
_MAX_WAIT_S = 60.0


def signature(body: bytes, secret: str) -> str:
    """The header's value: `sha256=` and the hex HMAC-SHA256 of `body` under `secret`."""
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def _retryable(error: BaseException) -> bool:
    if isinstance(error, OutboundHTTPError):
        return error.status in _RETRY_STATUS
    # A refused address stays refused; a timeout or an unreachable host may not.
    return isinstance(error, OutboundError) and not isinstance(error, OutboundRefused)


async def send_webhook(url: str, body: bytes, secret: str, settings: Settings) -> Delivery:
    """POST `body` to `url` under the outbound policy of `settings`; the delivery's status,
    tries and error (never the secret)."""
    headers = {
        "content-type": "application/json",
        "user-agent": f"Datapilot/{__version__} (watch webhook)",
        SIGNATURE_HEADER: signature(body, secret),
    }
    limits = OutboundLimits(
        max_bytes=64 * 1024,
        truncate=True,  # the answer's body is not read beyond a little
        connect_s=min(settings.webhook_timeout_s, 10.0),
        read_s=settings.webhook_timeout_s,
        total_s=settings.webhook_timeout_s,
        max_redirects=0,  # a signed POST goes where the watch says, nowhere else
    )
    policy = OutboundPolicy.from_settings(settings)
    tries = 0
    retrying = AsyncRetrying(
        stop=stop_after_attempt(settings.webhook_attempts),
        # backoff, twice that, four times … (at most a minute), each with up to `backoff` more.
        wait=wait_exponential(multiplier=settings.webhook_backoff_s, max=_MAX_WAIT_S)
        + wait_random(0, settings.webhook_backoff_s),
        retry=retry_if_exception(_retryable),
        reraise=False,
    )
    try:
        async for attempt in retrying:
            with attempt:
                tries += 1
                response = await afetch(
                    url, method="POST", headers=headers, content=body, policy=policy, limits=limits
                )
                if 300 <= response.status < 400:
                    raise OutboundHTTPError(
                        f"{safe_url(url)} answered HTTP {response.status} (a redirect); "
                        "webhooks are not redirected: give the final address",
                        url=safe_url(url),
                        status=response.status,
                    )
                response.raise_for_status()
    except RetryError as error:
        failure = error.last_attempt.exception()
        return _failed(url, tries, failure)
    except OutboundError as error:
        return _failed(url, tries, error)
    return Delivery(
        channel="webhook", state="sent", attempts=tries, sent_at=_now(), target=safe_url(url)
    )


def _failed(url: str, tries: int, error: BaseException | None) -> Delivery:
    message = getattr(error, "message", None) or str(error)
    log.warning("watch webhook to %s failed after %d tries: %s", safe_url(url), tries, message)
    return Delivery(
        channel="webhook", state="failed", attempts=tries, error=message, target=safe_url(url)
    )


def _now() -> datetime:
    return datetime.now(UTC)
