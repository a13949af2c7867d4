"""The platform's domain errors, in a module of their own: the server maps them onto its API
errors (`server.errors`) without importing the repositories, the store's models or the
knowledge layer that raise them."""

from __future__ import annotations


class NotFound(LookupError):
    """No such row for this tenant; the message names what was looked for."""


class Forbidden(PermissionError):
    """The row exists, but the caller's key is bound to another assistant (a 403)."""


class PlatformError(ValueError):
    """A request that cannot be done as asked; the message says what to do instead."""


class NormalisationError(ValueError):
    """The history cannot be sent to a model; the message says why."""
