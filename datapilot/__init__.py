"""Datapilot: a data copilot for finance."""

from datapilot.core.default_factories import remember_builtin_factories
from datapilot.core.entry_points import skip_pydantic_plugin_scan

# Before any model is built, which would read every installed package's entry points to find
# pydantic's plugins: most processes build models, and none needs that scan when none is installed.
skip_pydantic_plugin_scan()
# And each builtin default factory's signature read once, not once per field.
remember_builtin_factories()

__version__ = "0.1.0"
