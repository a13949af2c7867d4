"""Read a question into what the planner needs: entities, window, metrics, forms, and why.

Reading is pure and synchronous: the text, today, the catalog, the vocabulary and the
conversation go in; a `Reading` comes out with a status (`ok`, `no_data`, `out_of_scope`), a
trace of every decision and the question restated with explicit dates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from functools import lru_cache

from pydantic import BaseModel, Field

from datapilot.brains.offline.advice import advice_declined_note, advice_message, asks_advice
from datapilot.brains.offline.availability import check_availability, move_to_latest
from datapilot.brains.offline.client_tables import (
    extra_widget_for,
    find_tables,
    table_columns,
    table_words_only,
    widgets_to_fetch,
)
from datapilot.brains.offline.extreme_days import read_day_ask
from datapilot.brains.offline.measures import (
    PER_MEMBER,
    asks_both_ends,
    live_only_message,
    members,
    qualifying_returns,
    read_amount,
    refine,
)
from datapilot.brains.offline.messages import foreign_message, left_out_message, unknown_message
from datapilot.brains.offline.numbers import ZH_NUMERAL, en_number_pattern, read_number
from datapilot.brains.offline.parsing import CJK, Parsed, normalize_text, parse
from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.phrases import mask
from datapilot.brains.offline.rewrite import rewrite
from datapilot.brains.offline.vocab import Vocab
from datapilot.brains.offline.windows import Base, Horizon, default_window
from datapilot.core.answer import AnswerStatus
from datapilot.core.context import ChatMessage, ClientTable, QuestionContext, WidgetDataRequest
from datapilot.core.intent import ChartType, EntityRef, Frequency, Intent
from datapilot.data.catalog import Catalog, Entity

PRICE_KINDS = ("stock", "etf", "index", "fund")
SERIES_KINDS = ("macro", "commodity", "factor")


@lru_cache(maxsize=4)
def _top_k(numbers: tuple[tuple[str, int], ...]) -> re.Pattern[str]:
    """The count in "top 5", "the 3 best", 前三名, 最好的五只."""
    count = en_number_pattern(dict(numbers))
    best = r"(?:best|worst|top|biggest|largest|strongest|weakest)"
    ranked_zh = r"(?:最好|最佳|最差|最高|最低|最强|最弱|最多|最少|领涨|领跌)的?"
    return re.compile(
        rf"(?i)(?<![a-z])(?:top|best|worst|bottom)\s+({count})(?![a-z])"
        rf"|(?<![a-z])({count})\s+{best}(?![a-z])"
        rf"|前\s*(\d+|{ZH_NUMERAL})\s*(?:名|只|个|位|家|支)"
        # 前二和后二: a count with no measure word, never a time (前三季度, 前两个月)
        rf"|前\s*(\d+|{ZH_NUMERAL})(?=\s*(?:和|与|及|、|以及)\s*(?:后|倒数))"
        rf"|{ranked_zh}\s*(\d+|{ZH_NUMERAL})\s*(?:名|只|个|位|家|支)"
    )


_LENGTH_LIST = re.compile(
    r"(?i)((?:\d{1,3}\s*(?:,|、|，|和|与|及|and|&)\s*)+\d{1,3})\s*[-\s]?(?:day|days|日|天)(?![a-z])"
)
_MA_WINDOW = re.compile(r"(?i)(?<![A-Za-z])(?:MA|SMA|EMA)\s*\(?(\d{1,3})\)?(?!\d)")
_PERIODS = re.compile(r"(?i)(?<![0-9])(\d{1,3})\s*[-\s]?(?:period|periods|周期|期)(?![a-z])")
_OBSERVATIONS = {"trading_day": 1, "day": 1, "week": 5, "month": 21, "quarter": 63, "year": 252}


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
    metrics: list[str] = Field(default_factory=list)
    chart: ChartType | None = Field(default=None, description="A chart type the user named.")
    chart_options: list[str] = Field(
        default_factory=list, description="Drawing options the user named: log_y, donut."
    )
    plot_asked: bool = False
    table: bool = False
    table_only: bool = False
    frequency: Frequency | None = None
    compare: bool = False
    rank: bool = False
    ascending: bool = False
    top_k: int | None = None
    question_form: bool = False
    window: int | None = Field(default=None, description="Rolling/indicator window, in rows.")
    ma_windows: list[int] = Field(default_factory=list)
    annualize: bool = False
    normalize: bool = False
    universe: bool = Field(default=False, description="Ranking every bundled stock.")
    members_of: str | None = Field(
        default=None, description="The index whose members the entities are (a loop over a list)."
    )
    members_named: bool = Field(default=False, description="An index's members are asked about.")
    amount: float | None = Field(default=None, description="A sum invested at the start.")
    days: int | None = Field(default=None, description="How many best/worst days were asked for.")
    both_ends: bool = Field(default=False, description="The top and the bottom of a ranking.")
    rolling: bool = Field(default=False, description="A rolling (moving-window) measure.")
    model: str = "arima"
    needs: WidgetDataRequest | None = None
    trace: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    rewritten: str = ""

    @property
    def price_entities(self) -> list[Entity]:
        return [e for e in self.entities if e.kind in PRICE_KINDS]

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
            table=self.table,
            trace=list(self.trace),
        )


def read_question(
    question: str, context: QuestionContext, catalog: Catalog, vocab: Vocab, *, live: bool = False
) -> Reading:
    """Everything the offline brain understands of `question` in its conversation. With `live`
    the readers may fetch what the warehouse lacks, so availability is not checked here."""
    text = normalize_text(question)
    today = context.today
    reading = Reading(question=question, text=text, zh=bool(CJK.search(text)), today=today)
    parsed = parse(text, today, catalog, vocab)
    reading.entities = list(parsed.entities)
    reading.trace.extend(parsed.entity_trace)

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
        return reading

    if not parsed.has("out_of_scope"):
        earlier = _earlier(context.history, question, today, catalog, vocab)
        if earlier is not None:
            parsed = _follow_up(reading, parsed, earlier)

    _read_forms(reading, parsed, vocab)
    if advice := asks_advice(text, vocab):
        reading.trace.append(f'"{advice}" asks for investment advice, not for data')
        if not _asks_data_too(reading, parsed):
            reading.status = "out_of_scope"
            reading.message = advice_message(reading.entities, vocab, reading.zh)
            return reading
        reading.notes.append(advice_declined_note(reading.zh))  # the data part is answered
    if reading.entities and parsed.has("out_of_scope") and not _asks_data_too(reading, parsed):
        # "Write me a poem about the stock market": a name alone does not make it a data question.
        cue = parsed.first("out_of_scope")
        reading.status = "out_of_scope"
        reading.message = vocab.scope.message.zh if reading.zh else vocab.scope.message.en
        reading.trace.append(f'"{cue.text if cue else ""}" is not about financial data')
        return reading
    if _scope(reading, parsed, vocab, context, catalog):
        if reading.status == "no_data" and (parsed.time.explicit or parsed.time.horizon):
            _read_window(reading, parsed)  # the window is still worth showing
            reading.rewritten = _rewritten(reading, parsed)
        return reading
    if parsed.unnamed:
        reading.notes.append(left_out_message(parsed.unnamed, reading.zh))
        left_out = ", ".join(parsed.unnamed)
        reading.trace.append(f"names the catalog does not know, left out: {left_out}")
    reading.members_named = _members_named(parsed)
    _read_metrics(reading, parsed, vocab)
    _read_members(reading, parsed, catalog)
    _read_window(reading, parsed)
    _grow_to_today(reading)
    said = (
        None if reading.tables else live_only_message(reading.metrics, reading.entities, reading.zh)
    )
    if not live and said:  # a client table holds its own figures
        reading.status, reading.message = "no_data", said
        reading.trace.append(
            "内置数据没有公司财务数据或新闻"
            if reading.zh
            else "company figures or news are not in the bundled data"
        )
        reading.rewritten = _rewritten(reading, parsed)
        return reading
    if not live:  # live readers fetch the latest data, so the window stays as asked
        parsed = parsed.model_copy(update={"time": move_to_latest(reading, parsed.time, vocab)})
    if reading.tables and not parsed.time.explicit:
        # The client's table is read whole: no default window applies to it.
        reading.start = reading.end = None
        reading.trace = [line for line in reading.trace if not line.startswith("no time words")]
    if "beta" in reading.metrics:
        _add_market(reading, catalog)
    if reading.universe or reading.members_of:
        _narrow_universe(reading)
    if not live:  # else the readers fetch what the warehouse lacks
        check_availability(reading)
        missing = [e.id for e in reading.entities if not e.available]
        extra, because = extra_widget_for(text, context.widgets, missing)
        if reading.status == "no_data" and extra is not None:
            reading.needs = WidgetDataRequest(
                widgets=[extra], resume_state={"brain": "offline", "question": reading.question}
            )
            reading.trace.append(because)
            return reading
    reading.rewritten = _rewritten(reading, parsed)
    return reading


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
        older = parse(normalize_text(text), today, catalog, vocab)
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


# --- forms: chart, table, frequency, ranking -------------------------------------------------


def _read_forms(reading: Reading, parsed: Parsed, vocab: Vocab) -> None:
    charts = parsed.group("chart")
    if charts:
        reading.chart = charts[0][0]  # type: ignore[assignment]
        reading.trace.append(f'"{charts[0][1].text}" → {reading.chart} chart')
    reading.plot_asked = bool(charts) or parsed.has("plot")
    for option, hit in parsed.group("chart_option"):
        if option not in reading.chart_options:
            reading.chart_options.append(option)
            reading.trace.append(f'"{hit.text}" → {option.replace("_", " ")}')
    table_hit = parsed.first("table") or parsed.first("table_only")
    if table_hit is not None:
        reading.table = True
        only = parsed.first("table_only")
        reading.table_only = (
            only is not None
            and not reading.plot_asked
            and not _ADDED_CLAUSE.search(parsed.text[: only.start])
        )
        form = "a table only" if reading.table_only else "a table as well"
        reading.trace.append(f'"{table_hit.text}" → {form}')
    freqs = parsed.group("freq")
    if freqs:
        reading.frequency = freqs[0][0]  # type: ignore[assignment]
        reading.trace.append(f'"{freqs[0][1].text}" → {reading.frequency} data')
    reading.compare = parsed.has("cue:compare")
    reading.rank = parsed.has("cue:rank") or parsed.has("cue:worst")
    reading.ascending = parsed.has("cue:worst")
    reading.question_form = parsed.has("cue:question") or bool(_HOW.search(parsed.text))
    reading.annualize = parsed.has("cue:annualize")
    reading.normalize = parsed.has("cue:normalize")
    reading.amount = read_amount(parsed.text)
    # "rolling" said alone or inside a measure's phrase ("rolling volatility", 滚动波动率)
    rolling_words = re.compile(r"(?i)rolling|滚动")
    reading.rolling = parsed.has("cue:rolling") or any(
        rolling_words.search(h.text) for _, h in parsed.group("metric")
    )
    if parsed.has("cue:model_ets"):
        reading.model = "ets"
    elif parsed.has("cue:model_naive"):
        reading.model = "naive"
    counts = {w: n for w, n in vocab.time.numbers.items() if w not in ("a", "an")}
    pattern = _top_k(tuple(sorted(counts.items())))
    for top in pattern.finditer(mask(parsed.text, parsed.time.spans)):
        said = next(g for g in top.groups() if g)
        count = read_number(said, vocab.time.numbers)
        if count and count >= 1:
            reading.top_k = int(count)
            reading.rank = True  # "top 5", 前三名: a ranking even without a ranking word
            reading.trace.append(f'"{top.group(0).strip()}" → keep the top {reading.top_k}')
            break
    # After the count: "前三名和后三名" is a ranking because of its count alone.
    reading.both_ends = reading.rank and asks_both_ends(parsed.text)
    if reading.both_ends:
        reading.trace.append("首尾排名" if reading.zh else "the top and the bottom of the ranking")
    lengths = [
        int(n) for m in _LENGTH_LIST.finditer(parsed.text) for n in re.findall(r"\d+", m.group(1))
    ]
    lengths += [_observations(d) for d in parsed.time.durations]
    lengths += [int(m.group(1)) for m in _MA_WINDOW.finditer(parsed.text)]
    lengths += [int(m.group(1)) for m in _PERIODS.finditer(parsed.text)]
    lengths = [n for n in dict.fromkeys(lengths) if n and n >= 2]
    if lengths:
        reading.window = lengths[0]
        reading.ma_windows = lengths
        reading.trace.append(f"window length: {', '.join(map(str, lengths))} observations")


def _asks_data_too(reading: Reading, parsed: Parsed) -> bool:
    """Beside advice, a data request of its own: dates, a chart or table, or a measure (a price or
    "buy" alone only restates the advice)."""
    weak = {"value", "close", "investment_growth"}
    measures = [m for m, _ in parsed.group("metric") if m not in weak]
    return bool(parsed.time.explicit or reading.plot_asked or reading.table or measures)


# "How volatile was …", "how risky is …": a number is asked for.
_HOW = re.compile(r"(?i)\bhow\s+[a-z]+\s+(?:was|is|were|are|has been|have been)\b")

# "show X … and list the data in a table": the table comes on top of what was asked first.
_ADDED_CLAUSE = re.compile(
    r"(?i)\S.*(?:\band(?:\s+then|\s+also)?|\bthen|\balso|并且?|然后|再|同时)\s*[,，]?\s*$"
)


def _observations(duration: Duration) -> int:
    return round(duration.count * _OBSERVATIONS.get(duration.unit, 1))


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
    if said := live_only_message(measures, [], reading.zh):
        # "The average P/E of the stocks you have": no bundled list holds company figures.
        reading.status, reading.message = "no_data", said
        reading.trace.append("company figures or news are not in the bundled data")
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


# --- metrics -----------------------------------------------------------------------------------

_MODIFIERS = {"mean", "median", "stats", "forecast"}


def _read_metrics(reading: Reading, parsed: Parsed, vocab: Vocab) -> None:
    metrics: list[str] = []
    for metric, hit in parsed.group("metric"):
        if metric not in metrics:
            metrics.append(metric)
            reading.trace.append(f'"{hit.text}" → {_METRIC_WORDS.get(metric, metric)}')
    prices, series = bool(reading.price_entities), bool(reading.series_entities)
    metrics = _drop_qualifiers(metrics, parsed)
    rates = reading.entities and all(e.kind in ("macro", "factor") for e in reading.entities)
    compounding = rates and all(e.measure == "returns" for e in reading.entities)
    if compounding and "return" in metrics and not reading.frequency:
        # A factor's return over a window is its monthly returns compounded, one figure.
        metrics = list(dict.fromkeys("cumulative_return" if m == "return" else m for m in metrics))
        reading.trace.append(
            "收益率序列在区间内复利累计：∏(1 + r) − 1"
            if reading.zh
            else "a series of returns over a window → compounded: ∏(1 + r) − 1"
        )
    elif rates and "return" in metrics:
        # A bond yield (收益率) or a factor's monthly returns: its values are what is asked.
        metrics = list(dict.fromkeys("value" if m == "return" else m for m in metrics))
        reading.trace.append("a yield, rate or return series: its values")
    if "value" in metrics and any(m not in _MODIFIERS | {"value", "close"} for m in metrics):
        metrics.remove("value")  # "data", "series": a weak word beside a real measure
    if (parsed.time.horizon or parsed.time.future) and "forecast" not in metrics:
        metrics.append("forecast")
        reading.trace.append("a future period → forecast")
    if prices and not series and "value" in metrics:
        metrics[metrics.index("value")] = "close"
    if series and not prices and "close" in metrics:
        metrics[metrics.index("close")] = "value"
    if "yoy" in metrics or "spread" in metrics:
        metrics = [m for m in metrics if m not in ("value", "close")]
    several = len(reading.entities) >= 2 or reading.members_named  # members: a list
    if reading.chart == "scatter" and several and "correlation" not in metrics:
        metrics.append("correlation")
        reading.trace.append("a scatter of several entities → their correlation")
    if any(m in metrics for m in ("correlation", "volatility")) and qualifying_returns(parsed):
        # "correlated returns", "volatility of returns": the returns are the input, not a chart.
        metrics = [m for m in metrics if m not in ("return", "cumulative_return")]
    days = read_day_ask(parsed.text, vocab.time.numbers)
    if days is not None:
        reading.days = days.n or days.count
    metrics, refined = refine(
        metrics,
        parsed,
        annualize=reading.annualize,
        zh=reading.zh,
        days=days,
        amount=reading.amount,
    )
    reading.trace.extend(refined)
    plain = [m for m in metrics if m not in _MODIFIERS]
    if not plain and "forecast" not in metrics:
        if reading.rank and several:
            base, why = "return", "a ranking with no measure named → return"
        elif reading.compare and several and not series:
            base, why = (
                "cumulative_return",
                "a comparison with no measure named → cumulative return",
            )
        else:
            base = "value" if series and not prices else "close"
            why = f"no measure named → {_METRIC_WORDS[base]}"
        metrics.insert(0, base)
        reading.trace.append(why)
    if reading.rank and not several and any(m in ("close", "value") for m in metrics):
        reading.rank = False
        if "stats" not in metrics:
            metrics.append("stats")
            reading.trace.append("highest/lowest of one entity → summary statistics")
    side_by_side = reading.question_form or _noun_comparison(parsed)
    if (
        several
        and not reading.rank
        and "return" in metrics
        and not reading.plot_asked
        and side_by_side
    ):
        reading.rank = True
        reading.trace.append("returns of several entities side by side → a cross-section")
    if reading.rank and not several:
        reading.rank = False
    if reading.rank:
        order = "lowest first" if reading.ascending else "highest first"
        reading.trace.append(f"ranking → bar chart, {order}")
    reading.metrics = list(dict.fromkeys(metrics))


# Measures a price word can qualify: "股价表现", "price volatility", "股价相关性".
_QUALIFIED = (
    "return",
    "cumulative_return",
    "correlation",
    "volatility",
    "max_drawdown",
    "drawdown",
)


def _drop_qualifiers(metrics: list[str], parsed: Parsed) -> list[str]:
    """In "股价表现" / "price performance" the price word only qualifies the measure after it."""
    levels = [h for m, h in parsed.group("metric") if m in ("close", "value")]
    changes = [h for m, h in parsed.group("metric") if m in _QUALIFIED]
    qualifying = any(
        0 <= c.start - lv.end <= 2 and not parsed.text[lv.end : c.start].strip(" 的")
        for lv in levels
        for c in changes
    )
    if not qualifying:
        return metrics
    said_alone = {m for m, h in parsed.group("metric") if h not in levels}
    return [m for m in metrics if m not in ("close", "value") or m in said_alone]


def _noun_comparison(parsed: Parsed) -> bool:
    """A noun comparison ("收益率对比", "return comparison") compares numbers, not paths."""
    returns = [h for m, h in parsed.group("metric") if m == "return"]
    compares = {h.start for h in parsed.hits if h.has("cue:compare")}
    # A compare cue starting 0-2 characters after a return word (a set: linear, not pairwise).
    return any(
        r.end + gap in compares and not parsed.text[r.end : r.end + gap].strip(" 的")
        for r in returns
        for gap in range(3)
    )


_METRIC_WORDS = {
    "close": "closing prices",
    "value": "the series' values",
    "return": "return over the window",
    "cumulative_return": "cumulative return",
    "volatility": "volatility",
    "max_drawdown": "maximum drawdown",
    "drawdown": "drawdown",
    "correlation": "correlation",
    "macd": "MACD indicator",
    "rsi": "RSI indicator",
    "kdj": "KDJ indicator",
    "boll": "Bollinger bands",
    "cci": "CCI indicator",
    "ma": "moving averages",
    "ema": "exponential moving averages",
    "volume": "trading volume",
    "yoy": "year-over-year change",
    "forecast": "forecast",
    "mean": "mean",
    "median": "median",
    "stats": "summary statistics",
    "company_info": "company profile",
    "constituents": "index constituents",
    "sharpe": "Sharpe ratio",
    "beta": "beta against the market",
    "qoq": "quarter-over-quarter change",
    "mom": "month-over-month change",
    "pop": "change on the previous period",
    "annualized_return": "annualised return (CAGR)",
    "worst_day": "worst days",
    "best_day": "best days",
    "investment_growth": "growth of an investment",
    "news": "news",
}


# --- window ------------------------------------------------------------------------------------


def _read_window(reading: Reading, parsed: Parsed) -> None:
    time = parsed.time
    reading.horizon, reading.future = time.horizon, time.future
    reading.base = time.base
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
    if time.from_first:
        firsts = [e.first for e in reading.entities if e.first is not None]
        clause = next(c for c in time.clauses if c.rule == "first")
        if firsts:
            reading.start = min(firsts)
            reading.end = time.end or reading.today
            reading.trace.append(f'"{clause.text}" → the first date with data, {reading.start}')
        else:
            reading.start, reading.end = None, time.end or reading.today
        reading.explicit_window = True
        return
    if time.explicit:
        reading.start, reading.end = time.start, time.end
        reading.explicit_window = True
        return
    reading.start, reading.end = default_window(reading.today)
    reading.trace.append(f"no time words → the past year, {reading.start}..{reading.end}")


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


# --- lists -------------------------------------------------------------------------------------


# "the S&P 500 stocks", "stocks in the S&P 500", 标普500里的股票: the index's members.
_STOCKS_AFTER = re.compile(
    r"(?i)^\s*(?:'s\s+)?(?:member\s+|component\s+|constituent\s+)?"
    r"(?:stocks|companies|names|shares|members|constituents|components)\b"
    r"|^\s*(?:里|中|内|里面|当中)?的?(?:股票|公司|个股)"
)
_STOCKS_BEFORE = re.compile(
    r"(?i)\b(?:stocks|companies|names|members|constituents|components)\s+(?:in|of|from)\s+"
    r"(?:the\s+)?$"
)


def _members_named(parsed: Parsed) -> bool:
    """The question names an index's members, in words or as 成分股."""
    if parsed.has("metric:constituents"):
        return True
    text = parsed.text
    return any(
        m.entity.kind == "index"
        and (_STOCKS_AFTER.match(text[m.span[1] :]) or _STOCKS_BEFORE.search(text[: m.span[0]]))
        for m in parsed.mentions
    )


def _read_members(reading: Reading, parsed: Parsed, catalog: Catalog) -> None:
    """ "The S&P 500 members' returns": the index's member list feeds a measure of each member."""
    if not reading.members_named:
        return
    per_member = [m for m in reading.metrics if m in PER_MEMBER or m in ("mean", "median")]
    if not any(m in PER_MEMBER for m in reading.metrics) and (reading.rank or reading.both_ends):
        # "Top 5 performers among the members", 哪只成分股跌得最多: ranked by their return.
        reading.metrics = ["return", *(m for m in reading.metrics if m not in ("close", "value"))]
        per_member = ["return", *per_member]
        reading.trace.append(
            "成分股排名，未指明指标 → 收益率"
            if reading.zh
            else "a ranking of members with no measure named → return"
        )
    if reading.universe:  # 成分股 with no index named: the bundled members already
        reading.metrics = [m for m in reading.metrics if m != "constituents"]
        return
    indices = [e for e in reading.entities if e.kind == "index"]
    if not per_member or len(indices) != 1:
        return
    found = members(indices[0], catalog)
    if not found:
        return  # the constituents step says no member list is bundled
    reading.entities = found
    reading.members_of = indices[0].id
    reading.metrics = [m for m in reading.metrics if m != "constituents"]
    if len(found) >= 2 and not any(m in reading.metrics for m in ("mean", "median")):
        reading.rank = True
    reading.trace.append(
        f"a measure of each member of {indices[0].id}: the {len(found)} members with bundled "
        "data, one by one"
    )


# --- availability ------------------------------------------------------------------------------


def _narrow_universe(reading: Reading) -> None:
    """Keep the bundled stocks with data in the window."""
    start, end = reading.start, reading.end
    covered = [
        e
        for e in reading.entities
        if not (start and e.last and e.last < start) and not (end and e.first and e.first > end)
    ]
    reading.entities = covered or reading.entities
    if reading.members_of:
        reading.trace.append(f"{len(reading.entities)} of them have data in the window")
        return
    reading.trace.append(
        f"no entity named: ranking all {len(reading.entities)} bundled stocks "
        "with data in the window"
    )


MARKET = "^GSPC"


def _add_market(reading: Reading, catalog: Catalog) -> None:
    """Beta is measured against a market: an index the question names, else the S&P 500."""
    if any(e.kind == "index" for e in reading.entities):
        return
    market = catalog.get(MARKET)
    if market is not None:
        reading.entities.append(market)
        reading.trace.append(f"beta needs a market: {market.name} ({market.id})")


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
