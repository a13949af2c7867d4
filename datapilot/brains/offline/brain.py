"""The offline brain: a deterministic bilingual reader and planner that needs no model."""

from __future__ import annotations

from collections.abc import AsyncIterator

from datapilot.brains.offline.honour import honour
from datapilot.brains.offline.names import chinese_names
from datapilot.brains.offline.planner import build_plan
from datapilot.brains.offline.reading import Reading, read_question
from datapilot.brains.offline.refusals import chinese_trace
from datapilot.brains.offline.rewrite import zh_date
from datapilot.brains.offline.vocab import Vocab, default_vocab
from datapilot.core.context import QuestionContext
from datapilot.core.plan import refs_in
from datapilot.core.results import RunResult
from datapilot.data.access import DataAccess, open_data
from datapilot.data.catalog import Catalog
from datapilot.engine.brain import Understanding
from datapilot.settings import Settings, get_settings


class OfflineBrain:
    """Question → intent + plan by grammar and vocabulary; summary from a template."""

    name = "offline"

    def __init__(
        self,
        catalog: Catalog | None = None,
        vocab: Vocab | None = None,
        *,
        settings: Settings | None = None,
        data: DataAccess | None = None,
    ) -> None:
        """`settings` and `data` are the request's (the environment's when not given). `vocab`
        defaults to the bundled words plus the user's in the data dir; a bad file fails here,
        with `VocabError` naming the file and key. `catalog` defaults to `data`'s, on first use.
        """
        self.settings = settings or (data.settings if data else get_settings())
        self._data = data
        self._catalog = catalog
        self.vocab = vocab or default_vocab(self.settings.data_dir)

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = self.data.catalog
        return self._catalog

    @property
    def data(self) -> DataAccess:
        if self._data is None:
            self._data = open_data(self.settings)
        return self._data

    async def understand(self, question: str, context: QuestionContext) -> Understanding:
        """Read the question and plan it; see `understand_sync`."""
        return self.understand_sync(question, context)

    def understand_sync(self, question: str, context: QuestionContext) -> Understanding:
        """The whole reading and planning, synchronous and free of side effects."""
        # Arithmetic over a report table the client sent is read by its own reader first.
        from datapilot.brains.offline.table_questions import table_understanding

        answered = table_understanding(question, context)
        if answered is not None:
            return answered
        return understanding_of(self.read(question, context), self.catalog)

    def read(self, question: str, context: QuestionContext) -> Reading:
        """What the brain understood, before planning (for tests and `datapilot eval`)."""
        live = self.data.live_fetching(context.offline)
        return read_question(question, context, self.catalog, self.vocab, live=live)

    async def summarize(
        self,
        question: str,
        understanding: Understanding,
        run: RunResult,
        context: QuestionContext,
    ) -> AsyncIterator[str]:
        """The template summary, one sentence at a time; every number comes from `run.facts`.

        A Chinese question gets its entities called by their Chinese names (苹果, 实际GDP).
        """
        from datapilot.data.text import is_chinese
        from datapilot.engine.summary import summary_chunks

        # Answers read off the client's tables come first, their numbers as the table has them;
        # the template then does not restate those numbers rounded.
        answered: set[str] = set()
        for call in run.calls:
            value = run.values.get(call.output)
            lines = getattr(value, "attrs", {}).get("answer", [])
            if lines:
                answered.add(call.output)
            for line in lines:
                yield line + " "
        if answered:
            calls_of = understanding.plan.calls() if understanding.plan else []
            sources = {ref for c in calls_of if c.output in answered for ref in refs_in(c.args)}
            # What shows the answers, or the same table, would repeat their numbers rounded.
            shown = {c.output for c in calls_of if (answered | sources) & set(refs_in(c.args))}
            calls = [
                c.model_copy(update={"facts": []}) if c.output in answered | sources | shown else c
                for c in run.calls
            ]
            run = run.model_copy(update={"calls": calls})
        names = None
        if is_chinese(question) and understanding.intent is not None:
            ids = [e.id for e in understanding.intent.entities]
            names = chinese_names(ids, self.catalog)
        for chunk in summary_chunks(question, understanding, run, names):
            yield chunk


def understanding_of(reading: Reading, catalog: Catalog | None = None) -> Understanding:
    """Turn a reading into the brain's answer: a status and message, or an intent and a plan.

    A Chinese question gets its decision trace in Chinese, entities named from `catalog`.
    """
    understanding = _understanding(reading)
    if reading.zh and understanding.intent is not None:
        known = {e.id: e for e in reading.entities}
        lookup = catalog.get if catalog is not None else known.get
        trace = chinese_trace(understanding.intent.trace, lookup)
        understanding.intent.trace = trace
    return understanding


def _understanding(reading: Reading) -> Understanding:
    intent = reading.intent()
    if reading.needs is not None:
        return Understanding(needs=reading.needs, intent=None, notes=reading.notes)
    if reading.status != "ok":
        return Understanding(
            status=reading.status, intent=intent, message=reading.message, notes=reading.notes
        )
    planned = build_plan(reading)
    intent.trace.extend(planned.trace)
    if planned.problem is not None:
        return Understanding(
            status="no_data", intent=intent, message=planned.problem, notes=reading.notes
        )
    if intent.ledger is not None:  # what in the plan carries each word
        honour(intent.ledger, reading, planned.plan)
    intent.chart = planned.chart  # type: ignore[assignment]
    intent.table = planned.table
    intent.horizon = planned.horizon
    if planned.history is not None:
        first, last = planned.history
        intent.rewritten += (
            f"（基于{zh_date(first)}到{zh_date(last)}的数据）"
            if reading.zh
            else f" (fitted on data from {first} to {last})"
        )
    if planned.chart:
        intent.trace.append(
            f"answer: a {planned.chart} chart" + (" and a table" if planned.table else "")
        )
    elif planned.table:
        intent.trace.append("answer: a table")
    notes = list(reading.notes)
    return Understanding(status="ok", intent=intent, plan=planned.plan, notes=notes)
