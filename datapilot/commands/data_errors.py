"""The data commands' name for the one error mapping of every command (`commands.errors`)."""

from datapilot.commands.errors import error_message, fail, friendly_errors

__all__ = ["error_message", "fail", "friendly_errors"]
