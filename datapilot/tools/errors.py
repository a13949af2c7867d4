"""The tools' errors, importable without the tools (their HTTP, MCP and JSON Schema
machinery): the server maps them onto its API errors at start-up."""

from __future__ import annotations


class SourceError(ValueError):
    """The source cannot be added or used; the message says why and what to do."""


class SourceNotFound(LookupError):
    """No such source or tool for this user."""


class SecretsError(ValueError):
    """A secret cannot be stored or read; the message says what to set."""


class ArgumentsError(ValueError):
    """The arguments do not match the tool's parameters; nothing was sent."""


class MCPError(RuntimeError):
    """The MCP server could not be reached, or it answered with an error."""
