"""Datapilot: a data copilot for finance."""

__version__ = "0.1.0"
