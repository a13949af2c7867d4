"""The tools a question asked from this terminal may fall back on when the brain could not answer
it: the local user's imported tools (the ones `datapilot tools call` finds) and the interfaces
the user added (designed by `datapilot design` and accepted, or from an installed plugin).

Read only when needed (`tools.offline.try_user_tools` calls `local_tools` after a no_data or
out_of_scope answer): a question the brain answers never opens the store.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datapilot.engine.context import RequestContext
    from datapilot.tools import Tool

log = logging.getLogger(__name__)


def local_tools(request: RequestContext) -> dict[str, Tool]:
    """The added interfaces, then the local user's imported tools. A store that cannot be read
    costs its tools (with a warning saying why), never the answer."""
    from datapilot.tools.offline import added_interface_tools

    tools = added_interface_tools(request)
    try:
        tools.update(imported_tools(request))
    except Exception as error:  # the brain's answer stands without the imported tools
        log.warning(
            "your imported tools were not tried: %s: %s (see `datapilot doctor`)",
            type(error).__name__,
            error,
        )
    return tools


def imported_tools(request: RequestContext) -> dict[str, Tool]:
    """The imported tools of the store's first user (the local user), as `datapilot tools`
    acts for by default; none when there is no store yet (nothing is created to find out)."""
    settings = request.settings
    if settings.database_url is None and not settings.database_path.exists():
        return {}  # checked before importing the store: most questions of a new user end here
    from sqlalchemy import select

    from datapilot.store import open_store
    from datapilot.store.database import database_url
    from datapilot.store.models import User
    from datapilot.tools.sources import Sources

    url = database_url(settings)
    if url.get_backend_name() == "sqlite" and not Path(url.database or ":memory:").exists():
        return {}
    store = open_store(settings)
    with store.session() as session:
        user = session.scalar(select(User.id).order_by(User.created_at).limit(1))
        return {} if user is None else Sources(session, user, settings).tools()
