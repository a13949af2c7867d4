"""Who may run code unasked: the server setting AND a key naming the `run` scope, narrowed
further by an assistant's own policy. Every party can only take the permission away."""

from __future__ import annotations

from collections.abc import Collection


def may_auto_run(
    server_allows: bool, scopes: Collection[str] | None, assistant_allows: bool = True
) -> bool:
    """True only when all three allow it. `scopes` is None for a caller without a key (a
    keyless local server or a guest); `admin` alone does not imply `run`: running code unasked
    is opted into on purpose."""
    return server_allows and scopes is not None and "run" in scopes and assistant_allows
