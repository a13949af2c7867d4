"""Where data comes from: the bundled data and live providers (Yahoo, FRED, SEC, akshare, datahub).

`ensure(ids, start, end, datasets)` is the hook readers call before reading the warehouse; it
returns at once when no live provider is configured (see `router`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datapilot.data.providers.live import FetchReport


def ensure(*args: Any, **kwargs: Any) -> FetchReport:
    """`router.ensure`, imported lazily so importing this package stays cheap."""
    from datapilot.data.providers.router import ensure as run

    return run(*args, **kwargs)


async def aensure(*args: Any, **kwargs: Any) -> FetchReport:
    """`router.aensure`: `ensure` in a worker thread, for async callers."""
    from datapilot.data.providers.router import aensure as run

    return await run(*args, **kwargs)
