"""The live providers' names as configured (`DATAPILOT_PROVIDERS`), checked against the
registered ones: told without the router's machinery (pandas, the cache, the catalog), as
`datapilot serve`'s start-up notes do."""

from __future__ import annotations

from collections.abc import Sequence

from datapilot.plugins import providers as provider_factories
from datapilot.settings import Settings

ALIASES = {"yfinance": "yahoo", "edgar": "sec"}


def provider_names(settings: Settings, names: Sequence[str] | None = None) -> list[str]:
    """Live provider names in order of preference (configured ones unless `names` is given)."""
    chosen = []
    for raw in names if names is not None else settings.providers:
        name = ALIASES.get(raw.strip().lower(), raw.strip().lower())
        if name == "bundled":
            continue
        if name not in provider_factories():
            known = ", ".join(provider_factories())
            raise ValueError(f"unknown data provider {raw!r}; choose from bundled, {known}")
        if name not in chosen:
            chosen.append(name)
    return chosen
