"""Read a sentence into a `WatchSpec`, without a model, with the offline reader's pieces.

    spec = read_watch("alert me if the S&P 500 falls more than 2% in a day", catalog, vocab,
                      today=date(2022, 12, 30))

The sentence's schedule words (`schedule_words`), its alert words (`condition_words`) and the
words that frame a request ("remind me", "tell me when", 提醒我, …时) are read here; names are
resolved by the offline parser (`parse`) and every other word goes through the offline ledger
(`build_ledger`), so a word no reading took is refused by name (`WatchRefused.words`), never
guessed. A report's question (the sentence without its schedule and framing words) is read by
the offline reader itself, as `datapilot ask` would read it, and refused for the same left-over
words. A ticker-like name the data lack ("ZZZQ") is accepted and listed as waiting for data.
"""

from __future__ import annotations

import re
from datetime import date

from datapilot.brains.offline.ledger import build_ledger
from datapilot.brains.offline.parsing import Parsed, normalise_text, parse
from datapilot.brains.offline.phrases import mask, overlaps
from datapilot.brains.offline.reading import Reading, read_question
from datapilot.brains.offline.vocab import Vocab
from datapilot.core.context import QuestionContext
from datapilot.core.intent import EntityRef
from datapilot.core.watches import Condition, WatchLanguage, WatchSpec
from datapilot.data.catalog import Catalog
from datapilot.data.text import CJK
from datapilot.watches.condition_words import read_condition
from datapilot.watches.errors import WatchRefused
from datapilot.watches.schedule_words import read_schedule

Span = tuple[int, int]

_FRAME_EN = re.compile(
    r"(?i)\b(?:please\s+)?(?:(?:remind|tell|alert|notify|warn|ping|email|message|text|send|give|"
    r"show)\s+me(?:\s+(?:know|an?\s+(?:alert|email|message|report|summary)))?|let\s+me\s+know|"
    r"i\s+want\s+to\s+know|keep\s+(?:an\s+eye|watch)\s+on|watch|report\s+(?:on|of)|send)\b"
    r"(?:\s+(?:when(?:ever)?|if|once|as\s+soon\s+as|in\s+case|about|of|on|that|whether))?"
    r"|\b(?:when(?:ever)?|if|once|as\s+soon\s+as)\b"
    r"|\b(?:an?\s+)?(?:alert|report|summary|reminder)\b(?:\s+(?:when(?:ever)?|if|of|on))?"
)
_FRAME_ZH = re.compile(
    r"请|(?:的|之)?时候?|一旦|如果|当|(?:就|请)?(?:提醒|通知|告诉|提示|告知|发给|推送给|发送给|发)(?:我|一下)?"
    r"|给我(?:发|推送)?|(?:发|推送)(?:一份|一下)?(?:报告|提醒)?"
)
_SAFE_FORMS = {"cue:question", "cue:asking", "cue:finance"}
# A name-like word the catalog lacks: upper-case letters (a dot suffix), or an A-share code.
_TICKER = re.compile(r"(?<![\w.$])(?:[A-Z]{2,6}(?:\.[A-Z]{1,2})?|\d{6}\.(?:SH|SZ|SS))(?![\w])")
_NOT_TICKERS = {"UTC", "GMT", "ET", "MA", "SMA", "EMA", "AM", "PM", "ETF", "USD", "CNY", "US"}


def read_watch(
    sentence: str,
    catalog: Catalog,
    vocab: Vocab,
    *,
    today: date,
    timezone: str = "UTC",
) -> WatchSpec:
    """The watch `sentence` asks for; raises `WatchRefused` for anything not read."""
    text = normalise_text(sentence)
    zh = bool(CJK.search(text))
    if not text.strip():
        raise WatchRefused(_say(zh, "一句话也没有：请说要定期报告什么，或在什么情况下提醒。",
                                "Say what to report on a schedule, or when to alert."))  # fmt: skip
    schedule = read_schedule(text, timezone)
    condition = read_condition(mask(text, schedule.spans))
    if condition.condition is None and condition.ambiguous:
        raise WatchRefused(
            _say(
                zh,
                f"“{condition.ambiguous}”没有说是多长时间内的涨跌：请说“单日”或“近N个交易日”。",
                f'"{condition.ambiguous}" does not say over which period: say "in a day", or '
                '"over the past N days".',
            ),
            [condition.ambiguous],
        )
    taken = [*schedule.spans, *condition.spans]
    frames = [
        f.span()
        for f in (_FRAME_ZH if zh else _FRAME_EN).finditer(mask(text, taken))
        if f.group(0).strip()
    ]
    trace = [*schedule.trace, *condition.trace]
    language: WatchLanguage = "zh" if zh else "en"
    if condition.condition is not None:
        return _alert(text, sentence, condition.condition, [*taken, *frames], schedule.schedule,
                      trace, language, catalog, vocab, today)  # fmt: skip
    if schedule.schedule is None:
        parsed = parse(text, today, catalog, vocab)
        left = _unread_words(text, [*taken, *frames], parsed, zh, vocab, catalog, today)
        said = _unread(left, zh) + " " if left else ""
        raise WatchRefused(
            said
            + _say(
                zh,
                "没有读到时间安排或提醒条件：请说“每周一8点…”这样的时间，或“收盘低于150时提醒我”这样的条件。",
                'Found neither a schedule nor an alert condition: say when ("every Monday at 8 '
                '…") or what to watch for ("… closes below 150").',
            ),
            left,
        )
    question = _question(text, [*schedule.spans, *frames])
    if not question:
        raise WatchRefused(_say(zh, "没有读到要报告的问题。", "Found no question to report on."))
    reading = read_question(question, QuestionContext(today=today, offline=True), catalog, vocab)
    left = _left_over(reading)
    if left:
        raise WatchRefused(_unread(left, zh), left)
    if reading.status == "out_of_scope":
        raise WatchRefused(reading.message or "not a question about financial data")
    waiting = [w for w in _tickers(question) if catalog.get(w) is None]
    trace.append(f"question: {reading.rewritten or question}")
    return WatchSpec(
        kind="report",
        text=sentence,
        language=language,
        entities=[e.ref() for e in reading.entities],
        waiting_for_data=waiting,
        question=question,
        schedule=schedule.schedule,
        trace=trace + reading.trace,
    )


def _alert(
    text: str,
    sentence: str,
    condition: Condition,
    spans: list[Span],
    schedule: object,
    trace: list[str],
    language: str,
    catalog: Catalog,
    vocab: Vocab,
    today: date,
) -> WatchSpec:
    zh = language == "zh"
    parsed = parse(text, today, catalog, vocab)
    refs: list[EntityRef] = []
    for mention in parsed.mentions:
        if mention.entity.kind != "table" and mention.entity.id not in {r.id for r in refs}:
            refs.append(mention.entity.ref())
    mentioned = [m.span for m in parsed.mentions]
    waiting = [
        found.group(0)
        for found in _TICKER.finditer(text)
        if found.group(0) not in _NOT_TICKERS
        and not overlaps(found.span(), [*spans, *mentioned])
        and catalog.get(found.group(0)) is None
    ]
    ticker_spans = [f.span() for f in _TICKER.finditer(text) if f.group(0) in waiting]
    left = _unread_words(text, [*spans, *ticker_spans], parsed, zh, vocab, catalog, today)
    if left:
        raise WatchRefused(_unread(left, zh), left)
    if not refs and not waiting:
        raise WatchRefused(
            _say(zh, "没有读到要盯的对象：请说出股票、指数或基金的名称或代码。",
                 "Found nothing to watch: name a stock, index or fund (or its ticker)."),
        )  # fmt: skip
    return WatchSpec(
        kind="alert",
        text=sentence,
        language=language,  # type: ignore[arg-type]
        entities=refs,
        waiting_for_data=waiting,
        condition=condition,
        schedule=schedule,  # type: ignore[arg-type]
        trace=trace + parsed.entity_trace,
    )


def _unread_words(
    text: str,
    read: list[Span],
    parsed: Parsed,
    zh: bool,
    vocab: Vocab,
    catalog: Catalog,
    today: date,
) -> list[str]:
    """The words of `text` outside the `read` spans that the offline ledger does not count as
    names, grammar or a request's framing: each could change what the watch does."""
    stub = Reading(question=text, text=text, zh=zh, today=today, entities=list(parsed.entities))
    stub.family_spans = [(s, e, "watch") for s, e in read]
    ledger = build_ledger(stub, parsed, vocab, catalog)
    left = [
        entry.text
        for entry in ledger.entries
        if not overlaps((entry.start, entry.end), read)
        and not (entry.reading in ("entity", "filler") and entry.meaning != "another name")
        and not (entry.reading == "form" and entry.meaning in _SAFE_FORMS)
    ]
    return list(dict.fromkeys(left))


def _left_over(reading: Reading) -> list[str]:
    if reading.ledger is None:
        return []
    words = [
        e.text
        for e in reading.ledger.entries
        if e.reading in ("unread", "number") and e.text not in _tickers(reading.question)
    ]
    return list(dict.fromkeys(words))


def _tickers(text: str) -> list[str]:
    return [f.group(0) for f in _TICKER.finditer(text) if f.group(0) not in _NOT_TICKERS]


def _question(text: str, spans: list[Span]) -> str:
    """The sentence without its schedule and framing words: what a report asks each time."""
    rest = mask(text, spans).replace("\x00", " ")
    rest = re.sub(r"\s+", " ", rest)
    return rest.strip(" ,，。.:：;；-–—").strip()


def _say(zh: bool, chinese: str, english: str) -> str:
    return chinese if zh else english


def _unread(words: list[str], zh: bool) -> str:
    unique = list(dict.fromkeys(words))
    if zh:
        return "没有读懂：" + "、".join(f"“{w}”" for w in unique) + "。请换个说法，不会猜测。"
    said = ", ".join(f'"{w}"' for w in unique)
    return f"Not read: {said}. Say it another way; a watch is never guessed."
