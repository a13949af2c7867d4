"""Read a question into what the planner needs: entities, window, metrics, forms, and why.

Reading is pure and synchronous: the text, today, the catalog, the vocabulary and the
conversation go in; a `Reading` comes out with a status (`ok`, `no_data`, `out_of_scope`), a
trace of every decision and the question restated with explicit dates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, Field

from datapilot.brains.offline.advice import advice_declined_note, advice_message, asks_advice
from datapilot.brains.offline.availability import check_availability, move_to_latest
from datapilot.brains.offline.basis import averages_basis
from datapilot.brains.offline.claims import GAP_CLAIMED, read_claim, read_gap_claim
from datapilot.brains.offline.client_tables import (
    extra_widget_for,
    find_tables,
    table_columns,
    table_words_only,
    widgets_to_fetch,
)
from datapilot.brains.offline.closed_days import (
    asks_market_sessions,
    asks_open,
    counts_unnamed_sessions,
    holiday_dates,
    shut_day,
)
from datapilot.brains.offline.conditions import ConditionAsk
from datapilot.brains.offline.described_days import blanked, days_described
from datapilot.brains.offline.elisions import fill_elided_anchor
from datapilot.brains.offline.episodes import episode_notes, unknown_cycle
from datapilot.brains.offline.exact_future import exact_future
from datapilot.brains.offline.families import read_contributions, read_families
from datapilot.brains.offline.ledger import account
from datapilot.brains.offline.level_changes import asks_rate_change
from datapilot.brains.offline.margins import read_margin
from datapilot.brains.offline.measures import (
    LIVE_ONLY,
    NO_PROVIDER,
    PER_MEMBER,
    live_only_message,
)
from datapilot.brains.offline.methods import unsupported_method
from datapilot.brains.offline.parsing import Parsed, normalise_text, parse
from datapilot.brains.offline.periods import calendar_unit, period_holding
from datapilot.brains.offline.points_beside import read_points_beside_extreme
from datapilot.brains.offline.reading_forms import asks_data_too, read_forms, read_risk_free
from datapilot.brains.offline.reading_lists import (
    MARKET,
    add_market,
    members_named,
    narrow_universe,
    read_members,
)
from datapilot.brains.offline.reading_metrics import read_metrics
from datapilot.brains.offline.reading_parts import Part, read_parts
from datapilot.brains.offline.refusals import foreign_message, left_out_message, unknown_message
from datapilot.brains.offline.rewrite import rewrite
from datapilot.brains.offline.siblings import align_series, said_frequency
from datapilot.brains.offline.spelling import mandarin, respelling_note
from datapilot.brains.offline.vocab import Vocab
from datapilot.brains.offline.weekdays import weekday_dates
from datapilot.brains.offline.windows import Base, Clause, Horizon, default_window, read_time
from datapilot.core.answer import AnswerStatus
from datapilot.core.context import ChatMessage, ClientTable, QuestionContext, WidgetDataRequest
from datapilot.core.intent import ChartType, Claim, EntityRef, Frequency, Intent, Ledger
from datapilot.data.catalog import Catalog, Entity
from datapilot.data.text import CJK

PRICE_KINDS = ("stock", "etf", "index", "fund")
SERIES_KINDS = ("macro", "commodity", "factor")


class Reading(BaseModel):
    """The offline brain's understanding of one question."""

    question: str
    text: str = Field(description="The question after Unicode normalisation.")
    zh: bool
    today: date
    status: AnswerStatus = "ok"
    message: str | None = None
    entities: list[Entity] = Field(default_factory=list)
    tables: list[ClientTable] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list, description="Client-table columns named.")
    start: date | None = None
    end: date | None = None
    explicit_window: bool = False
    base: Base = Field(
        default="on_or_before",
        description="Where returns start from (the time reading's `base`): the planner's `base=`.",
    )
    horizon: Horizon | None = None
    future: tuple[date, date] | None = None
    latest_instead: tuple[date, date] | None = Field(
        default=None,
        description="A calendar period asked after the data, read as of the data's last date: "
        "offered, never answered in its place.",
    )
    metrics: list[str] = Field(default_factory=list)
    scale: tuple[float, str] | None = Field(
        default=None, description="A scale the figure is asked in (1e6, million)."
    )
    claim: Claim | None = Field(default=None, description="A figure the question checks.")
    adjusted: bool = Field(
        default=False, description="Adjusted prices asked for: levels use the adjusted close."
    )
    bar_field: Literal["high", "low", "open"] | None = Field(
        default=None, description="A daily bar's field asked for instead of its close."
    )
    chart: ChartType | None = Field(default=None, description="A chart type the user named.")
    chart_options: list[str] = Field(
        default_factory=list, description="Drawing options the user named: log_y, donut."
    )
    plot_asked: bool = False
    table: bool = False
    table_only: bool = False
    frequency: Frequency | None = None
    compare: bool = False
    trough_by: date | None = Field(
        default=None, description="A recovery from a named fall: its trough is on or before this."
    )
    peak_within: tuple[date, date] | None = Field(
        default=None,
        description="A recovery from a peak named by its period: the highest close in these days.",
    )
    basis: bool = Field(
        default=False, description="One period measured over another sets the window."
    )
    rank: bool = False
    ascending: bool = False
    top_k: int | None = None
    question_form: bool = False
    window: int | None = Field(default=None, description="Rolling/indicator window, in rows.")
    ma_windows: list[int] = Field(default_factory=list)
    annualize: bool = False
    absolute: bool = Field(
        default=False, description="Returns taken by their size (their absolute values)."
    )
    normalize: bool = False
    universe: bool = Field(default=False, description="Ranking every bundled stock.")
    members_of: str | None = Field(
        default=None, description="The index whose members the entities are (a loop over a list)."
    )
    members_named: bool = Field(default=False, description="An index's members are asked about.")
    amount: float | None = Field(default=None, description="A sum invested at the start.")
    days: int | None = Field(default=None, description="How many best/worst days were asked for.")
    day_span: int = Field(default=1, description="Sessions one best/worst change spans (5-day).")
    both_ends: bool = Field(default=False, description="The top and the bottom of a ranking.")
    rolling: bool = Field(default=False, description="A rolling (moving-window) measure.")
    model: str = "arima"
    risk_free: float | None = Field(default=None, description="An annual risk-free rate, in %.")
    measure_defaulted: bool = Field(default=False, description="No measure word was read.")
    without_extremes: tuple[str, int] | None = Field(
        default=None, description="Daily returns without the best or worst N days."
    )
    weekdays: list[int] = Field(
        default_factory=list, description="Daily returns kept to these weekdays (Monday = 0)."
    )
    swapped: dict[str, str] = Field(
        default_factory=dict,
        description="Series answered by a sibling of another frequency: the id named → the used.",
    )
    excluded: list[str] = Field(
        default_factory=list, description="Entity ids the question leaves out (except X, 除了X)."
    )
    count_condition: str | None = Field(default=None, description="`count_days`' condition.")
    contributions: tuple[str, str] | None = Field(
        default=None,
        description="Regular buying asked: how often (monthly…) and at which session (first/last).",
    )
    benchmark: str | None = Field(
        default=None,
        description='The name the others are set against ("which beat the S&P 500, by how much '
        "each\"): each one's figure less its.",
    )
    claimed_period: date | None = Field(
        default=None,
        description="A day in the period a claim names as the best (worst): checked beside it.",
    )
    extremes_gap: bool = Field(
        default=False, description="The best period less the worst, asked beside them."
    )
    stats_of_levels: bool = Field(
        default=False,
        description='The statistics asked are of the closes ("its highest and lowest closes"), '
        "beside a return asked over the same window.",
    )
    after_months: int | None = Field(
        default=None,
        description="The window's extreme and its value this many months after it, read from "
        "the data past the window's end.",
    )
    streak_direction: str | None = Field(
        default=None, description="A longest streak asked beside a count of up or down days."
    )
    condition: ConditionAsk | None = Field(
        default=None, description="The periods another name's move picks (`returns_when`)."
    )
    threshold: float | None = Field(default=None, description="A count's level or daily %.")
    count_inclusive: bool = Field(default=False, description="At least / at most: equality counts.")
    counted_also: list[tuple[str, float | None, bool]] = Field(
        default_factory=list,
        description="Further counts asked beside the first (condition, threshold, inclusive): "
        "'how many closed up more than 2%, how many down more than 2%'.",
    )
    level_day: date | None = Field(default=None, description="The day whose close is a level.")
    first_back: bool = Field(default=False, description="A first close back past a level.")
    level_multiple: float = Field(default=1.0, description="A level as a multiple of a close.")
    level_from: date | None = Field(
        default=None,
        description="A level that is a period's peak or trough: the period's first day "
        "(`level_day` its last), `level_extreme` which close of it.",
    )
    level_extreme: Literal["max", "min"] | None = None
    peak_side: str = Field(default="high", description="A distance from the high or the low.")
    period_sides: str = Field(default="both", description="Best, worst or both sub-periods.")
    extreme_of: str = Field(
        default="returns", description="What the extremes are of: period returns, the level, …"
    )
    period_label: str | None = Field(default=None, description="How an extreme's date is named.")
    leverage: float | None = Field(default=None, description="A daily leverage (2 for 2x).")
    basket: tuple[list[str], list[float], str] | None = Field(
        default=None, description="Names held as one buy-and-hold basket: ids, weights, name."
    )
    anchor_day: date | None = Field(
        default=None, description="The day an extreme is measured from (the first when None)."
    )
    ratio: tuple[str, str] | None = Field(
        default=None, description="How many times one name's figure is another's: (over, under)."
    )
    multiple: bool = Field(default=False, description="A growth asked as a multiple (涨了几倍).")
    family_spans: list[tuple[int, int, str]] = Field(
        default_factory=list, description="Words a family rule read, and what it read them as."
    )
    ledger: Ledger | None = None
    parts: list[Part] = Field(default_factory=list, description="A multi-part question's parts.")
    in_part: bool = Field(default=False, description="One part of a multi-part question.")
    needs: WidgetDataRequest | None = None
    trace: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    rewritten: str = ""

    @property
    def price_entities(self) -> list[Entity]:
        return [e for e in self.entities if e.kind in PRICE_KINDS]

    @property
    def history_start(self) -> date | None:
        """The first date any entity has data for: where "all-time" windows start."""
        firsts = [e.first for e in self.entities if e.first is not None]
        return min(firsts) if firsts else None

    @property
    def series_entities(self) -> list[Entity]:
        return [e for e in self.entities if e.kind in SERIES_KINDS]

    def intent(self) -> Intent:
        refs = [e.ref() for e in self.entities]
        refs += [
            EntityRef(id=t.name, kind="table", name=t.description or t.name) for t in self.tables
        ]
        return Intent(
            rewritten=self.rewritten or self.question,
            entities=refs,
            start=self.start,
            end=self.end,
            metrics=list(self.metrics),
            horizon=None,
            frequency=self.frequency,
            chart=self.chart,
            scale=self.scale,
            claim=self.claim,
            table=self.table,
            trace=list(self.trace),
            ledger=self.ledger,
            parts=[p.part for p in self.parts],
        )


# Capitalised words of the calendar ("Friday close vs the previous Friday close"): no names.
_CALENDAR_WORD = re.compile(
    r"(?i)(?:mon|tues|wednes|thurs|fri|satur|sun)days?|january|february|march|april|may|june"
    r"|july|august|september|october|november|december"
)
# What joins names set side by side: "Zorblax and Chevron", "Microsoft with the E Fund …",
# 美孚和雪佛龙, "A vs B".
_JOINED = re.compile(
    r"(?i)^\s*(?:,|&|/|and|or|vs\.?|versus|with|against|to|和|与|跟|同|及|、|还是)\s*(?:the\s+)?$"
)


def _listed_with_a_name(name: str, text: str, parsed: Parsed) -> bool:
    """Whether an unknown name sits in a list beside a known one (joined by "and", "vs", 和)."""
    at = text.find(name)
    if at < 0:
        return False
    end = at + len(name)
    return any(
        (m.span[0] >= end and _JOINED.match(text[end : m.span[0]]))
        or (m.span[1] <= at and _JOINED.match(text[m.span[1] : at]))
        for m in parsed.mentions
    )


# Capitalised words only, between a known name and an unknown one: one longer name ("ICE BofA
# US High Yield OAS" is no Bank of America).
_CAPITALISED_RUN = re.compile(r"(?:\s+[A-Z][\w&.'’-]*)*\s+")


def _inside_a_longer_name(name: str, text: str, parsed: Parsed) -> str | None:
    """The longer name an unknown name of two capitalised words or more forms with a known
    name's words beside it (only capitalised words between), or None."""
    at = text.find(name)
    words = name.split()
    if at < 0 or len(words) < 2 or not all(w[:1].isupper() for w in words):
        return None
    end = at + len(name)
    for mention in parsed.mentions:
        first, last = mention.span
        if first >= end and _CAPITALISED_RUN.fullmatch(text[end:first]):
            return text[at:last]
        if last <= at and _CAPITALISED_RUN.fullmatch(text[last:at]):
            head = re.search(r"(?:[A-Z][\w&.'’-]*\s+)*$", text[:first])
            return text[head.start() if head else first : end]
    return None


# A question setting names against each other: with one of them unknown, nothing answers it.
_COMPARES = re.compile(
    r"(?i)\b(?:which|who|compared?|comparison|vs\.?|versus|better|worse|beat|outperform\w*)\b"
    r"|谁|哪个|哪只|哪一个|比较|对比|相比|比.{1,6}[高低多少好差强弱快慢]|更"
)


def read_question(
    question: str, context: QuestionContext, catalog: Catalog, vocab: Vocab, *, live: bool = False
) -> Reading:
    """Everything the offline brain understands of `question` in its conversation, with the
    ledger of its words. With `live` the readers may fetch what the warehouse lacks, so
    availability is not checked here."""
    reading, parsed = _read(question, context, catalog, vocab, live=live)
    if reading.needs is None:  # read again once the widgets' data is here
        account(reading, parsed, vocab, catalog)
    return reading


# Two names added or taken from each other: "Mkt-RF + RF", "A plus B", 甲加上乙.
_ADDED_TO = re.compile(r"(?i)\+|\bplus\b|加上")


def _around(text: str, name: str) -> tuple[int, int]:
    """The few characters on each side of `name`'s first mention (the whole text if absent)."""
    at = text.find(name)
    if at < 0:
        return 0, 0
    return max(0, at - 6), min(len(text), at + len(name) + 6)


# The periods just listed counted again ("按2001年一季度和2009年一季度两个季度算"): no length.
_COUNT_OF_THE_LISTED = re.compile(
    r"(?<=[度月年])\s*(?:这|那)?(?:两|二|2)个(?:季度|月份?|年份?)(?=\s*(?:来)?(?:算|计算|比较|对比|相比|之间))"
)


# A label the asker heads the question with: "Inflation segment — …", "Oil section: …" (the
# name of their show's part, no measure nor name asked).
_HEADING = re.compile(r"(?i)^\s*(?:[\w'’&-]+\s+){1,3}(?:segment|section|slot|bit|item)\s*[—–:]\s*")


def _read(
    question: str, context: QuestionContext, catalog: Catalog, vocab: Vocab, *, live: bool
) -> tuple[Reading, Parsed]:
    today = context.today
    # In simplified Mandarin for every reader (無風險 as 无风险), each character where it was.
    text = normalise_text(question)
    text = fill_elided_anchor(weekday_dates(holiday_dates(mandarin(text), today), today))
    # (a heading label, and the periods just listed counted again: words that ask nothing)
    text = blanked(
        text, [f.span() for p in (_HEADING, _COUNT_OF_THE_LISTED) for f in p.finditer(text)]
    )
    parsed = parse(text, today, catalog, vocab)
    described = days_described(text)
    if described and not any(s <= m.span[0] < e for m in parsed.mentions for s, e in described):
        # "2020年3月23号疫情跌到最低那天": the date names the day; the words about it ask nothing
        # (unless they hold the name asked about: "苹果暴跌那天（2020年3月16日）以来")
        text = blanked(text, described)
        parsed = parse(text, today, catalog, vocab)
    reading = Reading(question=question, text=text, zh=bool(CJK.search(text)), today=today)
    reading.entities = list(parsed.entities)
    reading.trace.extend(parsed.entity_trace)
    market_asked = asks_open(text) or asks_market_sessions(text)
    unnamed = not market_asked and not parsed.unknown and counts_unnamed_sessions(text)
    if not parsed.entities and unnamed and (market := catalog.get(MARKET)) is not None:
        reading.notes.append(
            f"没有指定市场：按美国股市（{market.name}）的交易日计算。"
            if reading.zh
            else f"No market was named: the US stock market's sessions ({market.name}) are counted."
        )
        market_asked = True
    if not parsed.entities and market_asked and (market := catalog.get(MARKET)) is not None:
        # "Was the market open on Thanksgiving?", 感恩节那天股市开门吗, 美股有几个交易日: the US
        # market's sessions
        parsed = parsed.model_copy(update={"entities": [market], "unknown": []})
        reading.entities = [market]
        reading.trace.append(
            f"问的是市场是否开市：{market.name}（{market.id}）"
            if reading.zh
            else f"whether the market was open: {market.name} ({market.id})"
        )
    if parsed.respelled:  # "Sharp ratio": say what the words were read as
        reading.notes.append(respelling_note(parsed.respelled, vocab, reading.zh))

    entity_ids = [e.id for e in parsed.entities]
    tables, table_trace, claimed = find_tables(text, context.tables, parsed.hits, entity_ids)
    reading.tables = tables
    reading.trace.extend(table_trace)
    if tables:
        reading.columns = table_columns(text, tables[0])
        # A table the user sent, named in the question, is what the name means; a widget's
        # data for an entity wins over bundled data for it.
        names = " ".join(t.name.casefold() for t in tables)
        inside = {m.entity.id for m in parsed.mentions if m.text.casefold() in names} | claimed
        reading.entities = [e for e in reading.entities if e.id not in inside]
        parsed = parsed.model_copy(
            update={"entities": [e for e in parsed.entities if e.id not in inside]}
        )
    # The user's widgets come first: ask for the data of those the question concerns.
    # Words the catalog does not know but a widget's name or description has are about it.
    about = " ".join(f"{w.name} {w.description} {w.widget_id}" for w in context.widgets).casefold()
    unknown = [u for u in parsed.unknown if u.casefold() not in about]
    if context.widgets or context.tables:  # 财年, 一致预期 … ask about their table
        unknown = [u for u in unknown if not table_words_only(u, text)]
    nothing_else = not (parsed.entities or unknown or parsed.has("out_of_scope"))
    wanted, why = widgets_to_fetch(
        text, context.widgets, context.tables, parsed.hits, entity_ids, nothing_else and not tables
    )
    if wanted:
        reading.needs = WidgetDataRequest(
            widgets=wanted, resume_state={"brain": "offline", "question": reading.question}
        )
        reading.trace.extend(why)
        return reading, parsed

    if not parsed.has("out_of_scope"):
        earlier = _earlier(context.history, question, today, catalog, vocab)
        if earlier is not None:
            parsed = _follow_up(reading, parsed, earlier)

    read_forms(reading, parsed, vocab)
    if advice := asks_advice(text, vocab):
        reading.trace.append(f'"{advice}" asks for investment advice, not for data')
        if not asks_data_too(reading, parsed, advice):
            reading.status = "out_of_scope"
            reading.message = advice_message(reading.entities, vocab, reading.zh)
            return reading, parsed
        reading.notes.append(advice_declined_note(reading.zh))  # the data part is answered
    requests = vocab.scope.requests_pattern
    if requests is not None and (found := requests.search(text)) is not None:
        # "Translate this sentence: Apple launched a phone": a name inside is not a data question.
        reading.status = "out_of_scope"
        reading.message = vocab.scope.message.zh if reading.zh else vocab.scope.message.en
        reading.trace.append(
            f"“{found.group(0)}”不是关于数据的请求"
            if reading.zh
            else f'"{found.group(0)}" is not a request about data'
        )
        return reading, parsed
    if reading.entities and parsed.has("out_of_scope") and not asks_data_too(reading, parsed):
        # "Write me a poem about the stock market": a name alone does not make it a data question.
        cue = parsed.first("out_of_scope")
        reading.status = "out_of_scope"
        reading.message = vocab.scope.message.zh if reading.zh else vocab.scope.message.en
        reading.trace.append(f'"{cue.text if cue else ""}" is not about financial data')
        return reading, parsed
    if _scope(reading, parsed, vocab, context, catalog):
        if reading.status == "no_data" and (parsed.time.explicit or parsed.time.horizon):
            _read_window(reading, parsed)  # the window is still worth showing
            reading.notes += episode_notes(parsed.time, vocab.episodes, reading.zh)
            reading.rewritten = _rewritten(reading, parsed)
        return reading, parsed
    if (method := unsupported_method(text, reading.zh)) is not None:
        reading.status, reading.message = "no_data", method
        reading.trace.append("a method the reader does not apply")
        return reading, parsed
    named = {m.text.casefold() for m in parsed.mentions}
    # (Chinese in `listed_unknown` is listed beside a known name already.)
    listed = [n for n in parsed.unnamed if _listed_with_a_name(n, text, parsed)]
    compared = [
        n
        for n in dict.fromkeys([*listed, *parsed.listed_unknown])
        if not _CALENDAR_WORD.fullmatch(n)
        # "Ignore AMD": a known name's words beside an everyday one, not another company
        and not any(word.casefold() in named for word in n.split())
    ]
    if compared and _COMPARES.search(text):
        # "美孚和雪佛龙谁更猛": one side of a comparison unknown, so no comparison to give
        reading.status, reading.message = "no_data", unknown_message(compared, reading.zh)
        reading.trace.append(f"a name compared that the catalog does not know: {compared}")
        return reading, parsed
    nested = (_inside_a_longer_name(name, text, parsed) for name in parsed.unnamed)
    longer = [name for name in nested if name]
    if longer:
        # "ICE BofA US High Yield OAS": a known name's word inside a name nobody knows
        reading.status, reading.message = "no_data", unknown_message(longer, reading.zh)
        reading.trace.append(
            f"a known name inside a longer one the catalog does not know: {longer}"
        )
        return reading, parsed
    glossed = [
        n
        for n in parsed.unnamed
        if any(
            re.match(rf"\s*[(（]\s*{re.escape(n)}\s*[)）]", text[m.span[1] :])
            for m in parsed.mentions
        )
    ]
    if glossed:
        # "the momentum factor (UMD)": the code in brackets says which thing is meant, and the
        # catalog does not know it; the name before it is not another thing to answer with
        reading.status, reading.message = "no_data", unknown_message(glossed, reading.zh)
        reading.trace.append(f"a name glossed by a code the catalog does not know: {glossed}")
        return reading, parsed
    added = [n for n in parsed.unnamed if _ADDED_TO.search(text, *_around(text, n))]
    if added and parsed.entities:
        # "Mkt-RF + RF, compounded": a name unknown added to a known one, so no sum to give
        reading.status, reading.message = "no_data", unknown_message(added, reading.zh)
        reading.trace.append(f"a name added that the catalog does not know: {added}")
        return reading, parsed
    if parsed.unnamed:
        reading.notes.append(left_out_message(parsed.unnamed, reading.zh))
        left_out = ", ".join(parsed.unnamed)
        reading.trace.append(f"names the catalog does not know, left out: {left_out}")
    reading.members_named = members_named(parsed)
    if said_frequency(text) is not None:
        # "in how many months was monthly-average WTI above $100": each series at the frequency
        # said of the data before its measures are read (its averages may be its values) and
        # the families count or rank them
        align_series(reading, text, catalog)
    read_metrics(reading, parsed, vocab)
    reading.claim = read_claim(text)
    said_names = [(m.span[0], m.entity.id) for m in parsed.mentions]
    if (gap := read_gap_claim(text, said_names)) is not None:
        # "Exxon outgained Chevron by over 10 points": the gap between their returns, checked
        reading.claim, gap_said = gap
        reading.family_spans.append((*gap_said, GAP_CLAIMED))
    _claimed_move(reading)
    read_margin(reading, parsed)
    read_risk_free(reading)
    read_members(reading, parsed, catalog)
    _read_window(reading, parsed)
    if exact_future(reading):  # an exact price before its day: no forecast stands in for it
        reading.rewritten = _rewritten(reading, parsed)
        return reading, parsed
    shut_day(reading)
    reading.notes += episode_notes(parsed.time, vocab.episodes, reading.zh)
    if cycle := unknown_cycle(parsed.time, vocab.episodes, parsed.text, reading.zh):
        reading.status, reading.message = "no_data", cycle
        reading.trace.append("a Fed rate cycle no episode dates")
        return reading, parsed
    _rate_moved_on_a_year(reading)
    if not read_contributions(reading, parsed, vocab):
        read_parts(reading, parsed)
        _grow_to_today(reading)
        if not reading.parts:
            read_families(reading, parsed, vocab)
            read_points_beside_extreme(reading, parsed)
    if (averaged := averages_basis(text, reading.zh)) is not None:
        reading.status, reading.message = "no_data", averaged
        reading.trace.append("a change between averages: not computed")
        reading.rewritten = _rewritten(reading, parsed)
        return reading, parsed
    said = (
        None
        if reading.tables
        else live_only_message(reading.metrics, reading.entities, reading.zh, _live_words(parsed))
    )
    # A client table holds its own figures; a live provider has company figures and news, but
    # not what no provider of ours has.
    if said and (not live or set(reading.metrics) & NO_PROVIDER):
        reading.status, reading.message = "no_data", said
        reading.trace.append(
            "内置数据没有公司财务数据或新闻"
            if reading.zh
            else "company figures or news are not in the bundled data"
        )
        reading.rewritten = _rewritten(reading, parsed)
        return reading, parsed
    if not live:  # live readers fetch the latest data, so the window stays as asked
        parsed = parsed.model_copy(update={"time": move_to_latest(reading, parsed.time, vocab)})
    if reading.tables and not parsed.time.explicit:
        # The client's table is read whole: no default window applies to it.
        reading.start = reading.end = None
        reading.trace = [line for line in reading.trace if not line.startswith("no time words")]
    align_series(reading, text, catalog)
    if parsed.time.explicit:  # a series swapped for its sibling may start on its own value
        _start_at_own_observation(reading, parsed.time.clauses)
    if "beta" in reading.metrics:
        add_market(reading, catalog)
    if reading.universe or reading.members_of:
        narrow_universe(reading)
    if not live:  # else the readers fetch what the warehouse lacks
        check_availability(reading, catalog)
        missing = [e.id for e in reading.entities if not e.available]
        extra, because = extra_widget_for(text, context.widgets, missing)
        if reading.status == "no_data" and extra is not None:
            reading.needs = WidgetDataRequest(
                widgets=[extra], resume_state={"brain": "offline", "question": reading.question}
            )
            reading.trace.append(because)
            return reading, parsed
    reading.rewritten = _rewritten(reading, parsed)
    return reading, parsed


# --- conversation ----------------------------------------------------------------------------


_CHAIN = 5  # earlier questions a follow-up may reach back through


def _earlier(
    history: Sequence[ChatMessage], question: str, today: date, catalog: Catalog, vocab: Vocab
) -> Parsed | None:
    """What the conversation had settled before this question: the previous question, with
    what it left out filled in from the ones before it ("their drawdown?" after "compare JPM and
    BAC in 2021"), so follow-ups chain over several turns."""
    asked = [
        m.content for m in history if m.role == "human" and m.content.strip() != question.strip()
    ]
    merged: Parsed | None = None
    for text in reversed(asked[-_CHAIN:]):
        older = parse(normalise_text(text), today, catalog, vocab)
        if merged is None:
            merged = older
            continue
        update: dict[str, object] = {}
        if not merged.entities and older.entities:
            update["entities"] = older.entities
        if not merged.group("metric") and older.group("metric"):
            update["hits"] = [*older.hits, *merged.hits]
        if not (merged.time.explicit or merged.time.horizon) and (
            older.time.explicit or older.time.horizon
        ):
            update["time"] = older.time
        merged = merged.model_copy(update=update)
        if merged.entities and merged.group("metric") and merged.time.explicit:
            break
    return merged


def _follow_up(reading: Reading, parsed: Parsed, earlier: Parsed) -> Parsed:
    """Fill in what this question leaves out from the previous one ("now add Microsoft")."""
    said = bool(parsed.entities or parsed.time.explicit or parsed.time.horizon or parsed.hits)
    if not said or not earlier.entities or reading.tables:
        return parsed
    reused: list[str] = []
    if not reading.entities:
        reading.entities = list(earlier.entities)
        reused.append("entities " + ", ".join(e.id for e in earlier.entities))
    elif parsed.has("cue:add"):
        known = {e.id for e in earlier.entities}
        reading.entities = [*earlier.entities, *(e for e in parsed.entities if e.id not in known)]
        reused.append("entities " + ", ".join(sorted(known)) + " (adding the new ones)")
    hits = list(parsed.hits)
    if not parsed.group("metric"):
        hits = [*earlier.hits, *parsed.hits]
        if earlier.group("metric"):
            reused.append("the measure")
    time = parsed.time
    if not (parsed.time.explicit or parsed.time.horizon) and (
        earlier.time.explicit or earlier.time.horizon
    ):
        time = earlier.time
        reused.append("the time window")
    if reused:
        reading.trace.append(
            "follow-up: reusing " + ", ".join(reused) + " from the previous question"
        )
    return parsed.model_copy(update={"hits": hits, "time": time})


# --- scope -------------------------------------------------------------------------------------


def _scope(
    reading: Reading, parsed: Parsed, vocab: Vocab, context: QuestionContext, catalog: Catalog
) -> bool:
    """Decide out_of_scope / no_data for a question without entities; True when decided."""
    if reading.entities or reading.tables:
        return False
    measures = [m for m, _ in parsed.group("metric") if m != "value"]  # "data" alone is no topic
    finance = bool(measures) or parsed.has("cue:finance") or bool(parsed.foreign)
    if parsed.has("out_of_scope") or not finance:
        reading.status = "out_of_scope"
        reading.message = vocab.scope.message.zh if reading.zh else vocab.scope.message.en
        cue = parsed.first("out_of_scope")
        reading.trace.append(
            f'"{cue.text}" is not about financial data'
            if cue
            else "no entity or financial measure named"
        )
        return True
    if said := live_only_message(measures, [], reading.zh, _live_words(parsed)):
        # "The average P/E of the stocks you have": no bundled list holds company figures.
        reading.status, reading.message = "no_data", said
        reading.trace.append(
            "内置数据没有公司财务数据或新闻"
            if reading.zh
            else "company figures or news are not in the bundled data"
        )
        return True
    stocks = re.search(r"(?i)\bstocks\b|股票|个股", parsed.text) is not None
    listed = any(m in PER_MEMBER for m, _ in parsed.group("metric")) and (
        parsed.has("metric:mean") or parsed.has("metric:median")
    )
    if (reading.rank or (listed and stocks)) and not parsed.unknown:
        universe = sorted(catalog.entities(kind="stock", available=True), key=lambda e: e.id)
        if universe:
            reading.entities = universe
            reading.universe = True
            return False
    reading.status = "no_data"
    if parsed.foreign:
        reading.message = foreign_message(parsed.foreign, reading.zh)
        return True
    reading.message = unknown_message(parsed.unknown, reading.zh)
    reading.trace.append(
        "names the catalog does not know: " + ", ".join(parsed.unknown)
        if parsed.unknown
        else "no entity named"
    )
    return True


def _live_words(parsed: Parsed) -> list[str]:
    """The user's words for measures only a live provider has."""
    return [h.text for m, h in parsed.group("metric") if m in LIVE_ONLY]


# --- window ------------------------------------------------------------------------------------


def _read_window(reading: Reading, parsed: Parsed) -> None:
    time = parsed.time
    reading.horizon, reading.future = time.horizon, time.future
    reading.base = time.base
    reading.basis = time.basis
    for clause in time.clauses:
        if clause.rule == "horizon" and time.horizon is not None:
            reading.trace.append(f'"{clause.text}" → forecast horizon {time.horizon.label()}')
        elif clause.rule == "first":
            continue
        elif clause.start is not None and clause.start > reading.today:
            reading.trace.append(f'"{clause.text}" → a future period {clause.start}..{clause.end}')
        else:
            reading.trace.append(f'"{clause.text}" → {clause.start}..{clause.end}')
    reading.trace.extend(time.notes)
    if "forecast" in reading.metrics:
        if time.explicit and time.start_given:
            reading.start, reading.end = time.start, time.end
            reading.explicit_window = True
            reading.trace.append("the window given is the history the forecast is fitted on")
        return
    if time.future is not None and not time.explicit:
        # A period after today that asks for no forecast: the period itself, which has no data.
        reading.start, reading.end = time.future
        reading.explicit_window = True
        return
    if time.from_first:
        clause = next(c for c in time.clauses if c.rule == "first")
        if reading.history_start is not None:
            reading.start = reading.history_start
            reading.end = time.end or reading.today
            reading.trace.append(f'"{clause.text}" → the first date with data, {reading.start}')
        else:
            reading.start, reading.end = None, time.end or reading.today
        reading.explicit_window = True
        return
    if time.explicit:
        reading.start, reading.end = time.start, time.end
        reading.explicit_window = True
        _end_at_one_observation(reading, time.clauses)
        _start_at_own_observation(reading, time.clauses)
        _the_last_value_named(reading, parsed)
        return
    ever = _EVER.search(reading.text)
    if ever is not None:  # "worst and best daily returns ever": all the data, not the past year
        reading.start, reading.end = reading.history_start, reading.today
        reading.explicit_window = True
        reading.family_spans.append((*ever.span(), "all the data"))
        reading.trace.append(
            "“ever” → 全部数据" if reading.zh else f'"ever" → all the data, to {reading.today}'
        )
        return
    reading.start, reading.end = default_window(reading.today)
    reading.trace.append(f"no time words → the past year, {reading.start}..{reading.end}")


# "ever" with no other time words: over all the data ("ever since" is a "since").
_EVER = re.compile(r"(?i)\bever\b(?!\s+since\b)")


_NATIVE_UNIT = {"monthly": "month", "quarterly": "quarter", "annual": "year"}


def _native(reading: Reading, unit: str | None) -> bool:
    """Whether `unit` (a month, quarter, year) is the one every entity has a value for."""
    return unit is not None and all(_NATIVE_UNIT.get(e.frequency) == unit for e in reading.entities)


def _end_at_one_observation(reading: Reading, clauses: list[Clause]) -> None:
    """ "Unemployment: level in 2009Q3 and how many points it had risen since 2007Q4": a
    quarterly series' quarter is one observation, as a day is a daily close's ("at the end of
    2010, how far below its high since 2000"): the rise since the start runs to it."""
    since = [c for c in clauses if c.rule == "since" and c.end == reading.end]
    points = [c for c in clauses if c.rule == "period" and c.start and c.end]
    if len(since) != 1 or len(points) != 1 or not reading.entities:
        return
    point = points[0]
    start, end, last = since[0].start, point.end, reading.end
    if start is None or end is None or last is None or not start < end < last:
        return
    if _native(reading, calendar_unit(point.start, end)):
        reading.end = end
        reading.trace.append(
            f"“{since[0].text}”算到“{point.text}”那一期"
            if reading.zh
            else f'"{since[0].text}" runs to the one value of "{point.text}"'
        )


def _the_last_value_named(reading: Reading, parsed: Parsed) -> None:
    """ "Baa yield: the Dec 2018 print, and the move over 2018": a monthly series' December is
    the year's last value, which the move over the year ends on and states; not a second
    window inside the year."""
    for span in list(parsed.time.nested):
        said = parsed.text[span[0] : span[1]]
        inner = read_time(said, reading.today)
        if inner.start is None or inner.end != reading.end or not reading.entities:
            continue
        if _native(reading, calendar_unit(inner.start, inner.end)):
            parsed.time.nested.remove(span)
            reading.family_spans.append((*span, "the window's last value"))
            reading.trace.append(
                f"“{said}”是窗口的最后一个值"
                if reading.zh
                else f'"{said}" is the window\'s last value'
            )


def _rate_moved_on_a_year(reading: Reading) -> None:
    """ "Aaa yield last month, and how many bps higher than a year earlier": a rate's change on
    the same period a year before, asked in (basis) points, is the difference of the two
    values, never the rate's % change."""
    start, end = reading.start, reading.end
    if "yoy" not in reading.metrics or start is None or end is None or not reading.entities:
        return
    rates = all((e.units or "").casefold() in ("%", "percent") for e in reading.entities)
    if not rates or not asks_rate_change(reading.text):
        return
    unit = calendar_unit(start, end)
    if unit is None or not _native(reading, unit):
        return  # one value of the series (that month), set against the one a year before
    # (a rate's values over the window: its change in points between the two ends)
    reading.metrics = list(dict.fromkeys("value" if m == "yoy" else m for m in reading.metrics))
    # from the period after the one a year before, so that one is the base
    reading.start = period_holding(start.replace(year=start.year - 1), unit)[1] + timedelta(days=1)
    reading.base = "before"
    reading.trace.append(
        "利率相对一年前同期的变动：两值之差（个百分点/基点）"
        if reading.zh
        else "a rate against the same period a year before: the difference, in points"
    )


def _start_at_own_observation(reading: Reading, clauses: list[Clause]) -> None:
    """ "GDP from Q4 2007 to Q2 2009", "risen since 2007Q4": a quarterly series' Q4 2007 is one
    observation, the window's first end, as a day is a daily close's ("from 2020-03-23"); not
    the quarter before."""
    opens = [c for c in clauses if c.rule in ("range", "since") and c.start == reading.start]
    units = [c.opens_on for c in opens]
    if _periods_counted_or_ranked(reading) and opens and units[0] != "day":
        # "how many quarters from 2007Q1 through 2009Q3 did GDP shrink": each quarter of the
        # span is counted, the first one's change on the quarter before it too
        reading.base = next(c.base for c in opens)
        return
    if not opens and len(clauses) >= 2 and _levels_asked(reading):
        # "GDP levels for 2000Q4 and 2001Q4, and …": periods joined into one window, the first
        # one's own value is asked, never the one before it
        opens = [c for c in clauses if c.rule == "period" and c.start == reading.start]
        units = [calendar_unit(c.start, c.end) for c in opens]
    if not opens or not reading.entities or reading.base == "on_or_before":
        return
    if all(e.measure == "returns" for e in reading.entities):
        return  # a series of returns (a factor's months): its first month is a return, no base
    unit = units[0]
    if unit is not None and _native(reading, unit):
        reading.base = "on_or_before"
        reading.trace.append(
            f"“{opens[0].text}”：从起点那一期自己的数值算起"
            if reading.zh
            else f"measured from the {unit}'s own value: the series has one per {unit}"
        )


def _periods_counted_or_ranked(reading: Reading) -> bool:
    """Whether the window's months or quarters are each measured, counted or ranked by their
    change: then every one of them is in, the first measured on the one before it."""
    moves = {"count_days", "period_extremes"} & set(reading.metrics)
    return bool(moves) and reading.extreme_of != "level" and reading.frequency != "daily"


def _levels_asked(reading: Reading) -> bool:
    """Whether only levels are asked (values, closes, their statistics or extremes), no move."""
    levels = {"value", "close", "stats", "mean", "median"}
    if reading.extreme_of == "level":
        levels.add("period_extremes")
    return bool(reading.metrics) and set(reading.metrics) <= levels


def _grow_to_today(reading: Reading) -> None:
    """Money put in on one day ("five years ago", "on 2020-03-23") grows until today: a value
    over a single day is not what an investment question asks."""
    start, end = reading.start, reading.end
    if "investment_growth" not in reading.metrics or start is None or start != end:
        return
    if start >= reading.today:
        return
    reading.end = reading.today
    reading.base = "on_or_before"  # bought at that day's close
    reading.trace.append(
        f"投入日{start} → 持有至今天{reading.today}"
        if reading.zh
        else f"invested on {start} → its value until today, {reading.today}"
    )


# --- rewriting ---------------------------------------------------------------------------------


def _rewritten(reading: Reading, parsed: Parsed) -> str:
    follow_up = any(line.startswith("follow-up") for line in reading.trace)
    return rewrite(
        reading.text,
        parsed.time.clauses,
        start=reading.start,
        end=reading.end,
        today=reading.today,
        zh=reading.zh,
        refers_to=[e.id for e in reading.entities] if follow_up else (),
    )


# A move said of a claimed figure: "was up 50%", "down 30%", "gained 80%".
_MOVE_BEFORE_FIGURE = re.compile(
    r"(?i)\b(?:up|down|gained|lost|rose|fell|climbed|dropped|higher|lower)\s+(?:by\s+)?"
    r"(?:about\s+|around\s+|roughly\s+|nearly\s+|almost\s+|over\s+|more\s+than\s+)?$"
)


def _claimed_move(reading: Reading) -> None:
    """A claim of a move with no measure said beside it ("A tweet says UnitedHealth was up 50%
    in 2 years … Is that right?"): the move over the window is what the claim is checked by,
    never the closing prices."""
    claim = reading.claim
    if claim is None or not reading.price_entities:
        return
    if not set(reading.metrics) <= {"close", "value"}:
        return
    at = reading.text.find(claim.said)
    if at < 0 or not _MOVE_BEFORE_FIGURE.search(reading.text[:at]):
        return
    reading.metrics = ["return"]
    reading.trace.append(f'"{claim.said}" claimed as a move → return over the window')
