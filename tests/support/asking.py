"""Asking the way a front end does, for tests: a request context from a question context and
settings (the environment's unless given), and the brain the request selects unless one is given."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import pandas as pd

from datapilot import brains
from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.events import Event
from datapilot.core.outputs import TableOutput
from datapilot.data.access import DataAccess
from datapilot.engine.context import RequestContext
from datapilot.interfaces.registry import Registry
from datapilot.settings import Settings, get_settings


def request_for(
    context: QuestionContext,
    settings: Settings | None = None,
    *,
    registry: Registry | None = None,
    data: DataAccess | None = None,
) -> RequestContext:
    return RequestContext.for_request(
        context, settings or get_settings(), registry=registry, data=data
    )


def run(
    question: str,
    context: QuestionContext,
    *,
    settings: Settings | None = None,
    registry: Registry | None = None,
    data: DataAccess | None = None,
    **options: Any,
) -> AsyncIterator[Event]:
    request = request_for(context, settings, registry=registry, data=data)
    return brains.run(question, request, **options)


async def ask(
    question: str,
    context: QuestionContext,
    *,
    settings: Settings | None = None,
    registry: Registry | None = None,
    data: DataAccess | None = None,
    **options: Any,
) -> Answer:
    request = request_for(context, settings, registry=registry, data=data)
    return await brains.answer(question, request, **options)


def select_brain(context: QuestionContext, settings: Settings) -> brains.Brain:
    """Select as a front end does: from the request context of `context` and `settings`."""
    return brains.select_brain(request_for(context, settings))


async def ask_offline(question: str, today: date) -> Answer:
    """The offline brain's answer to `question` asked on `today`."""
    return await ask(question, QuestionContext(today=today, brain="offline"))


def shown(answer: Answer) -> str:
    """The summary and every table's rows: what a user reads the figures in."""
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    return "\n".join([answer.summary, *(f"{t.rows}" for t in tables)])


def series_values(data: Any, sid: str) -> pd.Series:
    """A warehouse series' values by date, read back as stored (the source's own figures)."""
    values = data.warehouse.series([sid]).set_index("date")["value"]
    values.index = pd.to_datetime(values.index)
    return values.sort_index()


def bokeh_series(ticker: str, field: str = "adj_close") -> pd.Series:
    """One field of a stock in bokeh's shipped sample data (the source of GOOG, IBM, FB), by
    date, as the source has it."""
    from bokeh_sampledata import stocks

    raw = getattr(stocks, ticker)
    return pd.Series(raw[field], index=pd.to_datetime(raw["date"]))
