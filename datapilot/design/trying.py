"""Try generated requests with the current library: plan, check, run; mark each one."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

from datapilot.core.context import QuestionContext
from datapilot.data.access import DataAccess
from datapilot.data.tables import list_tables
from datapilot.design.requests import Request, classify
from datapilot.settings import BrainChoice, Settings


def try_requests(
    requests: list[Request],
    settings: Settings,
    data: DataAccess,
    *,
    brain: BrainChoice = "offline",
    progress: Callable[[int, int], None] | None = None,
) -> list[Request]:
    """Every request answered in turn by `brain` (offline by default: the deterministic planner)
    over `data`, and classified. A request the brain cannot answer is tried on the interfaces
    the user added (an accepted design among them), as `datapilot ask` tries them."""
    return asyncio.run(_try_all(requests, settings, data, brain, progress))


async def _try_all(
    requests: list[Request],
    settings: Settings,
    data: DataAccess,
    brain: BrainChoice,
    progress: Callable[[int, int], None] | None,
) -> list[Request]:
    from datapilot.brains import run
    from datapilot.engine.context import RequestContext
    from datapilot.engine.pipeline import final_answer
    from datapilot.tools.offline import added_interface_tools, try_user_tools

    tables = {f"table:{t.name}": t.source for t in list_tables(data.warehouse)}
    done: list[Request] = []
    for number, request in enumerate(requests, 1):
        question = QuestionContext(today=request.today, brain=brain, offline=settings.offline)
        context = RequestContext.for_request(question, settings, data=data)
        try:
            events = try_user_tools(
                run(request.query, context),
                request.query,
                functools.partial(added_interface_tools, context),
                request.today,
                timeout_s=settings.call_timeout_s,
            )
            result = await final_answer(events)
        except Exception as error:  # a crash is a failure to report, never the end of the run
            failed = f"{type(error).__name__}: {error}"
            done.append(request.model_copy(update={"status": "failed", "error": failed}))
        else:
            done.append(classify(request, result, tables))
        if progress is not None:
            progress(number, len(requests))
    return done
