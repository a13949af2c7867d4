"""Secrets the store must give back (a tool's API key, a watch's signing secret), sealed with
Fernet under `DATAPILOT_SECRET_KEY`, which replicas share."""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken

from datapilot.settings import Settings

__all__ = ["InvalidToken", "SealError", "fernet"]


class SealError(ValueError):
    """`DATAPILOT_SECRET_KEY` is set but is not a Fernet key."""


def fernet(settings: Settings) -> Fernet | None:
    """The Fernet of `DATAPILOT_SECRET_KEY`, or None when the key is not set."""
    if settings.secret_key is None:
        return None
    try:
        return Fernet(settings.secret_key.get_secret_value().encode())
    except (ValueError, TypeError) as error:
        raise SealError(
            "DATAPILOT_SECRET_KEY is not a Fernet key (32 url-safe base64-encoded bytes)"
        ) from error
