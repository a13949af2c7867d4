"""The offline brain's vocabulary: metric, chart, frequency, cue, scope, time and group words.

The words live in `vocab/*.toml` beside this module. A user extends them without code by putting
files of the same names in `<data dir>/vocab/`: lists are appended, single values replaced.
Every file is validated when first loaded; a bad file raises `VocabError` naming the file and key.
"""

from __future__ import annotations

import re
import tomllib
from datetime import date
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from datapilot.brains.offline.phrases import PhraseMatcher
from datapilot.core.intent import ChartType, Frequency
from datapilot.core.parsed_toml import read_toml

MetricId = Literal[
    "close",
    "return",
    "cumulative_return",
    "volatility",
    "max_drawdown",
    "drawdown",
    "correlation",
    "macd",
    "rsi",
    "kdj",
    "boll",
    "cci",
    "ma",
    "ema",
    "volume",
    "value",
    "yoy",
    "qoq",
    "mom",
    "pop",
    "annualized_return",
    "worst_day",
    "best_day",
    "investment_growth",
    "news",
    "forecast",
    "mean",
    "median",
    "stats",
    "company_info",
    "constituents",
    "fundamentals",
    "fund_managers",
    "market_views",
    "index_weights",
    "options",
    "intraday",
    "spread",
    "ratio",
    "range",
    "sharpe",
    "beta",
]
METRICS: tuple[str, ...] = get_args(MetricId)
INDICATORS = ("macd", "rsi", "kdj", "boll", "cci", "ma", "ema")
CueName = Literal[
    "absolute",
    "compare",
    "rank",
    "worst",
    "add",
    "question",
    "client_table",
    "annualize",
    "not_annualized",
    "rolling",
    "normalize",
    "adjusted",
    "finance",
    "model_ets",
    "model_naive",
    "filler",
    "country",
    "asking",
]
Unit = Literal["trading_day", "day", "week", "month", "quarter", "year", "decade"]
Marker = Literal[
    "past",
    "next",
    "since",
    "since_after",
    "until",
    "before",
    "range",
    "after_duration",
    "duration_after",
    "duration_before",
    "duration_through",
    "around",
    "prepositions",
    "parameter",
]
TimeWord = Literal[
    "today",
    "yesterday",
    "this_year",
    "last_year",
    "year_before_last",
    "this_month",
    "last_month",
    "this_quarter",
    "last_quarter",
    "this_week",
    "last_week",
    "past_year",
    "next_year",
    "next_quarter",
    "next_month",
    "next_week",
    "tomorrow",
    "first_available",
]

VOCAB_DIR = Path(__file__).with_name("vocab")
FILES = ("metrics", "charts", "frequency", "cues", "scope", "time", "groups", "episodes")


class VocabError(ValueError):
    """A vocabulary file is missing, not TOML, or has a bad key or value."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Phrases(_Strict):
    """Words in English (case-insensitive) and Chinese."""

    en: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)

    @field_validator("en", "zh")
    @classmethod
    def _non_empty(cls, words: list[str]) -> list[str]:
        for word in words:
            if not word.strip():
                raise ValueError("phrases must not be empty strings")
        return words

    @property
    def all(self) -> list[str]:
        return [*self.en, *self.zh]


class MetricsFile(_Strict):
    metrics: dict[MetricId, Phrases]
    implies: dict[str, MetricId] = Field(default_factory=dict)


ChartOption = Literal["log_y", "donut"]


class ChartsFile(_Strict):
    charts: dict[ChartType, Phrases]
    options: dict[ChartOption, Phrases] = Field(default_factory=dict)
    plot: Phrases
    table: Phrases
    table_only: Phrases


class FrequencyFile(_Strict):
    frequency: dict[Frequency, Phrases]


class CuesFile(_Strict):
    cues: dict[CueName, Phrases]


class ScopeMessage(_Strict):
    en: str
    zh: str


class ScopeFile(_Strict):
    out_of_scope: Phrases
    message: ScopeMessage
    advice: Phrases = Field(
        default_factory=Phrases, description="Regular expressions that ask for investment advice."
    )
    advice_message: ScopeMessage | None = None
    requests: Phrases = Field(
        default_factory=Phrases,
        description="Regular expressions for requests that are not about data (translate, write "
        "a letter): `out_of_scope` even beside a name, matched on the whole text.",
    )

    @field_validator("advice", "requests")
    @classmethod
    def _patterns_compile(cls, advice: Phrases) -> Phrases:
        for pattern in advice.all:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"scope pattern {pattern!r}: {error}") from None
        return advice

    @cached_property
    def requests_pattern(self) -> re.Pattern[str] | None:
        patterns = self.requests.all
        return re.compile("|".join(f"(?:{p})" for p in patterns), re.I) if patterns else None

    @cached_property
    def advice_pattern(self) -> re.Pattern[str] | None:
        patterns = self.advice.all
        return re.compile("|".join(f"(?:{p})" for p in patterns), re.I) if patterns else None


class Group(Phrases):
    """Several entities named at once: their catalog ids and the words for all of them."""

    ids: list[str] = Field(min_length=1)


class GroupsFile(_Strict):
    groups: dict[str, Group] = Field(default_factory=dict)


class TimeFile(_Strict):
    months: dict[int, list[str]]
    numbers: dict[str, int]
    units: dict[Unit, Phrases]
    markers: dict[Marker, Phrases]
    words: dict[TimeWord, list[str]]
    periods: dict[str, tuple[date, date]] = Field(default_factory=dict)

    @field_validator("months")
    @classmethod
    def _twelve_months(cls, months: dict[int, list[str]]) -> dict[int, list[str]]:
        if sorted(months) != list(range(1, 13)):
            raise ValueError("months must have the keys 1 to 12")
        return months

    @field_validator("markers")
    @classmethod
    def _every_marker(cls, markers: dict[str, Phrases]) -> dict[str, Phrases]:
        missing = sorted(set(get_args(Marker)) - set(markers))
        if missing:
            raise ValueError(f"missing markers: {', '.join(missing)}")
        return markers

    @field_validator("units")
    @classmethod
    def _every_unit(cls, units: dict[str, Phrases]) -> dict[str, Phrases]:
        missing = sorted(set(get_args(Unit)) - set(units))
        if missing:
            raise ValueError(f"missing units: {', '.join(missing)}")
        return units


class Episode(Phrases):
    """A named episode ("the financial crisis"): its first and last day and why those days."""

    start: date
    end: date
    why: str
    why_zh: str
    # The day of its high and of its low, where the episode is dated by them ("the COVID crash
    # bottom"); an edge the episode has no day for is not read.
    high: date | None = None
    low: date | None = None


class EpisodesFile(_Strict):
    episodes: dict[str, Episode] = Field(default_factory=dict)

    def named(self, text: str) -> tuple[str, Episode] | None:
        """The episode whose name `text` holds (the longest name wins), and the name as said."""
        lowered = text.casefold()
        found = [
            (name, e)
            for e in self.episodes.values()
            for name in e.all
            if re.search(_bounded(name.casefold()), lowered)
        ]
        if not found:
            return None
        name, episode = max(found, key=lambda f: len(f[0]))
        at = lowered.index(name.casefold())
        return text[at : at + len(name)], episode


def _bounded(phrase: str) -> str:
    """A pattern for `phrase` as a whole word where it begins or ends with a Latin letter or
    digit (Chinese has no spaces to bound a word by)."""
    head = r"(?<![A-Za-z0-9-])" if phrase[:1].isascii() and phrase[:1].isalnum() else ""
    tail = r"(?![A-Za-z0-9-])" if phrase[-1:].isascii() and phrase[-1:].isalnum() else ""
    return head + re.escape(phrase) + tail


class Vocab(BaseModel):
    """All vocabulary files, validated, with matchers built once."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    metrics: MetricsFile
    charts: ChartsFile
    frequency: FrequencyFile
    cues: CuesFile
    scope: ScopeFile
    time: TimeFile
    groups: GroupsFile
    episodes: EpisodesFile

    @cached_property
    def matcher(self) -> PhraseMatcher:
        """Every non-time phrase, labelled `metric:…`, `chart:…`, `chart_option:…`, `plot`,
        `table`, `freq:…`, …"""
        labelled: list[tuple[str, list[str]]] = []
        labelled += [(f"metric:{k}", v.all) for k, v in self.metrics.metrics.items()]
        labelled += [(f"chart:{k}", v.all) for k, v in self.charts.charts.items()]
        labelled += [(f"chart_option:{k}", v.all) for k, v in self.charts.options.items()]
        labelled += [
            ("plot", self.charts.plot.all),
            ("table", self.charts.table.all),
            ("table_only", self.charts.table_only.all),
        ]
        labelled += [(f"freq:{k}", v.all) for k, v in self.frequency.frequency.items()]
        # `asking` words are the ledger's alone: matched as phrases they would change readings.
        labelled += [(f"cue:{k}", v.all) for k, v in self.cues.cues.items() if k != "asking"]
        labelled.append(("out_of_scope", self.scope.out_of_scope.all))
        labelled += [(f"group:{k}", g.all) for k, g in self.groups.groups.items()]
        return PhraseMatcher(labelled)


@lru_cache(maxsize=4)
def load_vocab(user_dir: Path | None = None) -> Vocab:
    """The bundled vocabulary, extended by same-named files in `user_dir` when given."""
    data: dict[str, Any] = {}
    for name in FILES:
        bundled = VOCAB_DIR / f"{name}.toml"
        content = _read(bundled)
        extra = user_dir / f"{name}.toml" if user_dir else None
        if extra is not None and extra.is_file():
            content = _merge(content, _read(extra))
            bundled = extra
        data[name] = _validate(name, content, bundled)
    # An episode's names are periods of the time grammar ("since COVID").
    for episode in data["episodes"].episodes.values():
        for name in episode.all:
            data["time"].periods.setdefault(name, (episode.start, episode.end))
    return Vocab(**data)


def default_vocab(data_dir: Path) -> Vocab:
    """The vocabulary for a data dir: bundled words plus `<data dir>/vocab/*.toml`."""
    user_dir = data_dir / "vocab"
    return load_vocab(user_dir if user_dir.is_dir() else None)


_MODELS: dict[str, type[BaseModel]] = {
    "metrics": MetricsFile,
    "charts": ChartsFile,
    "frequency": FrequencyFile,
    "cues": CuesFile,
    "scope": ScopeFile,
    "time": TimeFile,
    "groups": GroupsFile,
    "episodes": EpisodesFile,
}


def _read(path: Path) -> dict[str, Any]:
    try:
        return read_toml(path)  # parsed once per change of the file (`core.parsed_toml`)
    except FileNotFoundError:
        raise VocabError(f"{path.name}: vocabulary file is missing ({path})") from None
    except tomllib.TOMLDecodeError as error:
        raise VocabError(f"{path}: not valid TOML: {error}") from None


def _validate(name: str, content: dict[str, Any], path: Path) -> BaseModel:
    try:
        return _MODELS[name].model_validate(content)
    except ValidationError as error:
        problems = "; ".join(
            f"key {'.'.join(str(p) for p in item['loc'])!r}: {item['msg']}"
            for item in error.errors()
        )
        raise VocabError(f"{path}: {problems}") from None


def _merge(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        merged = dict(base)
        for key, value in extra.items():
            merged[key] = _merge(base[key], value) if key in base else value
        return merged
    if isinstance(base, list) and isinstance(extra, list):
        return base + [item for item in extra if item not in base]
    return extra
