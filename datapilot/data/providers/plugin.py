"""The built-in live providers, registered through the `register_providers` hook.

Each factory imports its provider on first use, so listing providers loads none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from datapilot.hookspecs import ProviderFactory, hookimpl

if TYPE_CHECKING:
    from datapilot.data.providers.live import LiveProvider
    from datapilot.settings import Settings


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_providers(register: Callable[[str, ProviderFactory], None]) -> None:
    register("yahoo", yahoo)
    register("fred", fred)
    register("sec", sec)
    register("akshare", akshare)
    register("datahub", datahub)


def yahoo(settings: Settings) -> LiveProvider:
    from datapilot.data.providers.yahoo import YahooProvider

    return YahooProvider()


def fred(settings: Settings) -> LiveProvider:
    from datapilot.data.providers.fred import FredProvider

    key = settings.fred_api_key.get_secret_value() if settings.fred_api_key else None
    return FredProvider(api_key=key)


def sec(settings: Settings) -> LiveProvider:
    from datapilot.data.providers.sec import SecProvider

    return SecProvider(user_agent=settings.sec_user_agent)


def akshare(settings: Settings) -> LiveProvider:
    from datapilot.data.providers.akshare_provider import AkshareProvider

    return AkshareProvider()


def datahub(settings: Settings) -> LiveProvider:
    from datapilot.data.providers.datahub import DatahubProvider

    return DatahubProvider()
