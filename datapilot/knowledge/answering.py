"""Answering a question from a knowledge library, as the pipeline's typed events.

The library's passages are retrieved (persisted BM25, fused with vectors when configured);
nothing that answers → `no_data` saying so. A question asking for a chart or table whose best
passages include a table runs the data workflow with those tables as client tables (chart a
table from a PDF). Otherwise the passages are quoted (offline) or a model answers from them
(fenced as data). Every answer carries `citations` (file, page, offsets, text) and the same
passages as `quotes`, which the OpenBB agent turns into its citations.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing

from datapilot.core.answer import Answer
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.core.events import Done, Event, OutputEvent, StatusEvent
from datapilot.core.outputs import TextOutput
from datapilot.core.quotes import Citation, Quote
from datapilot.data.documents import refers_to_document
from datapilot.data.documents.answers import quote
from datapilot.data.text import is_chinese
from datapilot.engine.documents import answer_from_passages, answer_maker
from datapilot.knowledge.errors import KnowledgeError
from datapilot.knowledge.infos import Found, SearchResult
from datapilot.knowledge.library import Libraries
from datapilot.retrieval import Hit, Passage, tokenize
from datapilot.settings import Settings
from datapilot.store import Store

PASSAGES = 4
EventSource = Callable[[str, QuestionContext, Settings], AsyncIterator[Event]]
# Capitalised words (but the question's first) and Chinese words of the question, looked for in
# its closest documents' names.
_PROPER = re.compile(r"\b[A-Z][a-z]+\b")
_CJK_WORD = re.compile(r"[\u4e00-\u9fff]{2,}")
_WANTS_DATA = re.compile(
    r"(?i)\b(chart|plot|graph|visuali[sz]e|draw|trend|table|compare)\b|图|画|绘|表格|走势|对比"
)


def library_source(
    store: Store, owner_id: str, library: str, *, fallback: bool = False
) -> EventSource:
    """An event source (question, context, settings → events) answering from `library`, in the
    shape `server.runner.guarded_events` runs. With `fallback`, a question the library does not
    answer goes to the data workflow (an assistant with a library still answers data questions).
    """

    def source(question: str, context: QuestionContext, settings: Settings) -> AsyncIterator[Event]:
        return library_events(
            question, store, owner_id, library, context, settings, fallback=fallback
        )

    return source


def relevant(found: list[Found]) -> list[Found]:
    """The passages that answer: those holding the question's terms when any does (a fused
    rank's score is close for every passage, relevant or not), else those close to the best
    one; passages far below add noise to an answer."""
    holding = [f for f in found if f.holds]
    if holding:
        return holding
    return [f for f in found if f.score >= 0.5 * found[0].score] or found[:1]


def knowledge_text(found: list[Found]) -> str:
    """The passages as a `knowledge` message: numbered, each with its file, page and offsets."""
    lines = []
    for number, f in enumerate(found, 1):
        c = f.citation
        page = f", page {c.page}" if c.page else ""
        heading = f"{f.heading}\n" if f.heading else ""
        lines.append(
            f"[{number}] {c.source}{page}, characters {c.start}-{c.end}:\n{heading}{c.text}"
        )
    return "\n\n".join(lines)


def search_library(
    store: Store, owner_id: str, library: str, question: str, settings: Settings, k: int
) -> SearchResult:
    with store.session() as session:
        return Libraries(session, owner_id, settings).search(library, question, k)


def citations_of(found: list[Found]) -> list[Citation]:
    return [f.citation for f in found]


def quotes_of(found: list[Found]) -> list[Quote]:
    return [
        Quote(source=f.citation.source, text=f.citation.text, page=f.citation.page) for f in found
    ]


def tables_of(found: list[Found]) -> list[ClientTable]:
    """The tables among the passages, as client tables the data workflow can chart."""
    tables: list[ClientTable] = []
    for f in found:
        if not f.table or not f.table.get("columns"):
            continue
        columns = [str(c) or f"column {n}" for n, c in enumerate(f.table["columns"], 1)]
        rows = [list(r)[: len(columns)] for r in f.table.get("rows", [])]
        rows = [r + [None] * (len(columns) - len(r)) for r in rows]
        name = str(f.table.get("name") or f.citation.source)
        if any(t.name == name for t in tables):
            continue
        tables.append(
            ClientTable(
                name=name,
                description=f"A table of {f.citation.source}"
                + (f", page {f.citation.page}" if f.citation.page else ""),
                source=f.citation.source,
                columns=columns,
                rows=rows,
            )
        )
    return tables


def nothing_answers(question: str, library: str) -> str:
    if is_chinese(question):
        return (
            f"知识库“{library}”中没有能回答这个问题的段落；"
            "请换用文档中的词语再问，或先添加相关文档。"
        )
    return (
        f"Nothing in the library {library!r} answers this question; ask with words the "
        "documents use, or add the document that covers it."
    )


async def library_events(
    question: str,
    store: Store,
    owner_id: str,
    library: str,
    context: QuestionContext,
    settings: Settings,
    *,
    fallback: bool = False,
) -> AsyncIterator[Event]:
    """Events answering `question` from `library`; always ends with one `Done`."""
    answer = answer_maker(question, context)
    chinese = is_chinese(question)

    yield StatusEvent(message=f"Searching the library {library}")
    try:
        result = await asyncio.to_thread(
            search_library, store, owner_id, library, question, settings, PASSAGES
        )
    except (KnowledgeError, RuntimeError) as error:
        yield Done(answer=answer("error", message=str(error)))
        return
    found = result.passages
    nothing = nothing_answers(question, library)
    if not result.answered:
        async for event in _not_in_library(
            question, result.library or library, found, context, settings, answer, fallback=fallback
        ):
            yield event
        return
    found = relevant(found)
    sources = list(dict.fromkeys(f.citation.source for f in found))
    citations, quotes = citations_of(found), quotes_of(found)
    cited: dict[str, object] = {"citations": citations, "quotes": quotes, "sources": sources}
    yield StatusEvent(
        message=f"找到{len(found)}段相关原文（{result.retrieval}）"
        if chinese
        else f"Found {len(found)} passage{'s' * (len(found) != 1)} ({result.retrieval})"
    )

    tables = tables_of(found) if _WANTS_DATA.search(question) else []
    if tables:
        async for event in _with_tables(question, tables, context, settings):
            if isinstance(event, Done):
                data = event.answer
                data.citations, data.quotes = citations, quotes
                data.sources = list(dict.fromkeys([*data.sources, *sources]))
                yield Done(answer=data)
                return
            yield event
        return

    hits = [
        Hit(
            passage=Passage(
                text=_with_cell(question, f),
                heading=f.heading,
                source=f.citation.source,
                page=f.citation.page,
            ),
            score=f.score,
        )
        for f in found
    ]
    ending = answer_from_passages(
        question, hits, context, settings, answer, nothing=nothing, cited=cited
    )
    async with aclosing(ending) as events:
        async for event in events:
            yield event


def _with_cell(question: str, found: Found) -> str:
    """A table passage led by the cell the question names by its row and column ("What was
    Q3 revenue of Retail?" → "Retail, Q3: 125"), when it names exactly one; else its text."""
    table = found.table or {}
    columns = [str(c) for c in table.get("columns", [])]
    rows = [[str(v) for v in row] for row in table.get("rows", [])]
    if len(columns) < 2 or not rows:
        return found.citation.text
    asked = question.lower()

    def named(label: str) -> bool:
        label = label.strip().lower()
        return bool(label) and re.search(rf"(?<!\w){re.escape(label)}(?!\w)", asked) is not None

    picked_rows = [row for row in rows if row and named(row[0])]
    picked_columns = [n for n, column in enumerate(columns) if n > 0 and named(column)]
    if len(picked_rows) != 1 or len(picked_columns) != 1:
        return found.citation.text
    row, column = picked_rows[0], picked_columns[0]
    if column >= len(row):
        return found.citation.text
    return f"{row[0]}, {columns[column]}: {row[column]}\n{found.citation.text}"


async def _not_in_library(
    question: str,
    library: str,
    closest: list[Found],
    context: QuestionContext,
    settings: Settings,
    answer: Callable[..., Answer],
    *,
    fallback: bool,
) -> AsyncIterator[Event]:
    """A question the library does not answer: the data workflow's answer when it has one
    (noting that the library had nothing), unless the question is about the documents; else
    "not mentioned", said first, then the closest passages labelled as not answering it."""
    chinese = is_chinese(question)
    if not refers_to_document(question, []) and not names_a_document(question, closest):
        events = [event async for event in _with_tables(question, [], context, settings)]
        done = events[-1] if events and isinstance(events[-1], Done) else None
        # Buffered until the end: only an answer from the data replaces "not mentioned".
        if done is not None and (done.answer.status == "ok" or (fallback and not closest)):
            for event in events[:-1]:
                yield event
            data = done.answer
            if data.status == "ok":
                data.notes = [library_had_nothing(question, library), *data.notes]
            yield Done(answer=data)
            return
    message = not_mentioned(question, library)
    if not closest:
        yield Done(answer=answer("no_data", message=message, summary=message))
        return
    lead = (
        "以下是库中最接近的段落（它们并未回答这个问题）："
        if chinese
        else "The closest passages in it (they do not answer the question):"
    )
    quoted = [
        quote(
            Passage(text=f.citation.text, heading=f.heading, source=f.citation.source),
            _where(f.citation, chinese),
        )
        for f in closest[:3]
    ]
    text = "\n\n".join([message, lead, *quoted])
    yield OutputEvent(output=TextOutput(text=text))
    yield Done(answer=answer("no_data", message=message, summary=text))


def names_a_document(question: str, closest: list[Found]) -> bool:
    """Whether the question names one of the closest passages' documents, by a proper name
    ("the Aurora fund" beside aurora_global_bond_factsheet.md, 蓝海科技 beside its call
    transcript) or by every word of its name ("the collateral policy" for
    collateral_policy.md): it asks about that document, so what the document lacks is not
    looked for in the market data (whose reader takes "inflation" for the CPI)."""
    stems = [f.citation.source.rsplit(".", 1)[0].lower() for f in closest]
    proper = [m.group(0) for m in _PROPER.finditer(question) if m.start() > 0]
    chinese = [t for t in tokenize(question) if _CJK_WORD.fullmatch(t)]
    if any(word.lower() in " ".join(stems) for word in proper + chinese):
        return True
    asked = set(tokenize(question))
    named = (set(tokenize(stem.replace("_", " ").replace("-", " "))) for stem in stems)
    return any(words and words <= asked for words in named)


def _where(citation: Citation, chinese: bool) -> str:
    if chinese:
        return f"（{citation.source}" + (f"，第{citation.page}页）" if citation.page else "）")
    return f"({citation.source}" + (f", page {citation.page})" if citation.page else ")")


def not_mentioned(question: str, library: str) -> str:
    """What a question the library does not answer gets first, in the question's language."""
    if is_chinese(question):
        return f"知识库“{library}”的文档中没有提到这一点。"
    return f"The documents in the library {library!r} do not mention this."


def library_had_nothing(question: str, library: str) -> str:
    if is_chinese(question):
        return f"知识库“{library}”中没有相关内容；以下回答来自市场数据。"
    return f"The library {library!r} has nothing on this; the answer comes from the market data."


async def _with_tables(
    question: str, tables: list[ClientTable], context: QuestionContext, settings: Settings
) -> AsyncIterator[Event]:
    from datapilot.brains import run
    from datapilot.engine.context import RequestContext

    if tables:
        names = ", ".join(t.name for t in tables)
        tables_found = f"table{'s' * (len(tables) != 1)}"
        yield StatusEvent(message=f"Using the {tables_found} found in the documents: {names}")
    question_context = context.model_copy(update={"tables": [*context.tables, *tables]})
    request = RequestContext.for_request(question_context, settings)
    async for event in run(question, request):
        yield event
