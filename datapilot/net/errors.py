"""Typed failures of outbound requests; each message says what happened and what to do."""

from __future__ import annotations


class OutboundError(Exception):
    """An outbound request did not deliver a response body."""

    def __init__(self, message: str, *, url: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.url = url


class OutboundRefused(OutboundError):
    """The request was refused before any connection: scheme, address or redirect policy."""


class OutboundTooLarge(OutboundError):
    """The response body is larger than the size cap."""


class OutboundTimeout(OutboundError):
    """Connecting, reading or the whole request took longer than allowed."""


class OutboundUnreachable(OutboundError):
    """The host could not be resolved or connected to."""


class OutboundHTTPError(OutboundError):
    """The server answered with an error status."""

    def __init__(self, message: str, *, url: str = "", status: int) -> None:
        super().__init__(message, url=url)
        self.status = status
