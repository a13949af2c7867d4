"""The reader's ledger: every content word of a question is read, or the answer says it was not.

Over every corpus question the offline brain answers `ok`, no left-over word goes unsaid; a
word nobody knows planted in corpus questions ("… and Zorblax") is always named, never dropped;
and the ledger travels in the intent, so a reader of the answer sees which words were read as
what.
"""

from __future__ import annotations

import json
from datetime import date

import pytest
from support import paths

from datapilot.brains.offline import OfflineBrain
from datapilot.core.context import QuestionContext
from datapilot.core.intent import Ledger, LedgerEntry
from datapilot.engine.brain import Understanding

TODAY = date(2022, 12, 28)
CORPORA = [*sorted(paths.CORPUS.glob("*.jsonl")), paths.FIXTURES / "corpus" / "queries.jsonl"]
PLANTED = "Zorblax"
PLANTED_ZH = "佐布拉克斯"


def _cases() -> list[dict[str, str]]:
    cases = []
    for path in CORPORA:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                if not case.get("history"):  # a follow-up's words come from earlier turns too
                    cases.append(case)
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def brain(data) -> OfflineBrain:  # type: ignore[no-untyped-def]
    return OfflineBrain(catalog=data.catalog)


def _understand(brain: OfflineBrain, question: str, today: str | date) -> Understanding:
    day = date.fromisoformat(today) if isinstance(today, str) else today
    return brain.understand_sync(question, QuestionContext(today=day))


def _said(u: Understanding) -> str:
    """Everything the answer says in words before any figure: the message and the notes."""
    return " ".join([u.message or "", *u.notes])


def test_every_content_word_of_an_answered_corpus_question_is_read_or_declared(
    brain: OfflineBrain,
) -> None:
    assert len(CASES) > 700
    silent = []
    answered = 0
    for case in CASES:
        u = _understand(brain, case["query"], case["today"])
        if u.status != "ok":
            continue
        answered += 1
        ledger = u.intent.ledger if u.intent else None
        assert ledger is not None, case["query"]
        unsaid = [w for w in ledger.left_over if w not in _said(u)]
        if ledger.silent or unsaid:
            silent.append((case["id"], case["query"], ledger.silent or unsaid))
    assert answered > 500
    assert silent == []


def _variants() -> list[tuple[str, str, str]]:
    """50 corpus questions (English, then Chinese) with a name nobody knows added to them."""
    english = [c for c in CASES if c.get("lang") == "en" and c["expect"].get("status") == "ok"]
    chinese = [c for c in CASES if c.get("lang") == "zh" and c["expect"].get("status") == "ok"]
    picked = english[::7][:35] + chinese[::7][:15]
    variants = []
    for case in picked:
        question = case["query"].rstrip("?.!？。！ ")
        if case["lang"] == "en":
            variants.append((case["id"], f"{question} and {PLANTED}", case["today"]))
        else:
            variants.append((case["id"], f"{question}和{PLANTED_ZH}", case["today"]))
    return variants


VARIANTS = _variants()


def test_fifty_planted_variants() -> None:
    assert len(VARIANTS) == 50
    assert len({q for _, q, _ in VARIANTS}) == 50


@pytest.mark.parametrize(("case_id", "question", "today"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_a_planted_unknown_word_is_never_dropped(
    brain: OfflineBrain, case_id: str, question: str, today: str
) -> None:
    u = _understand(brain, question, today)
    planted = PLANTED if PLANTED in question else PLANTED_ZH
    # Declared in the notes of an answer, or in the message of one that is not given.
    assert planted in _said(u), f"{case_id} {question!r} ({u.status}): {_said(u)!r}"
    if u.intent is not None and u.intent.ledger is not None:
        assert planted not in u.intent.ledger.silent


def test_the_ledger_shows_what_each_word_was_read_as(brain: OfflineBrain) -> None:
    u = _understand(brain, "Returns of Apple and Zorblax in 2020", TODAY)
    assert u.status == "ok"
    ledger = u.intent.ledger
    read = {e.text: (e.reading, e.meaning) for e in ledger.entries}
    assert read["Apple"] == ("entity", "AAPL")
    assert read["Returns"][0] == "measure"
    assert read["in 2020"] == ("window", "2020-01-01..2020-12-31")
    assert ledger.left_over == ["Zorblax"] and ledger.declared == ["Zorblax"]
    # The ledger is part of the Answer's intent as JSON.
    dumped = u.intent.model_dump(mode="json")["ledger"]
    unread = [e for e in dumped["entries"] if e["reading"] == "unread"]
    assert [(e["text"], e["start"]) for e in unread] == [("Zorblax", 21)]


def test_a_later_reader_can_mark_words_read() -> None:
    """A user's tool chosen by its words takes them off the left-overs (no note needed)."""
    ledger = Ledger(
        entries=[LedgerEntry(text="Zorblax", start=0, end=7, reading="unread")],
        declared=["Zorblax"],
    )
    ledger.mark_read(["zorblax"], "tool", "zorblax_quotes")
    assert ledger.left_over == [] and ledger.declared == []
    assert ledger.entries[0].meaning == "zorblax_quotes"


def test_a_misspelt_second_name_is_named_with_the_closest_match(brain: OfflineBrain) -> None:
    u = _understand(brain, "强生和辉端2020年的收益率", TODAY)
    assert u.status == "ok" and [e.id for e in u.intent.entities] == ["JNJ"]
    assert any("辉端" in n and "辉瑞" in n and "PFE" in n for n in u.notes), u.notes


def test_a_number_no_reader_takes_is_declared(brain: OfflineBrain) -> None:
    u = _understand(brain, "Apple with 3x leverage in 2020", TODAY)
    assert u.status == "ok"
    assert any("3x" in n and "leverage" in n for n in u.notes), u.notes


def test_numbers_that_were_read_are_not_declared(brain: OfflineBrain) -> None:
    for question in (
        "Top 3 and bottom 3 by return in 2020 among JPM, BAC, KO, PEP, XOM, CVX, PFE and MRK",
        "2018年以来投资1万美元买微软，现在值多少钱？",
        "Show me the CCI(20) for the Nasdaq in H2 2017",
        "Apple's 2019 Sharpe ratio at a 1.5% risk-free rate",
    ):
        u = _understand(brain, question, TODAY)
        assert u.status == "ok"
        assert u.intent.ledger.left_over == [], (question, u.intent.ledger.left_over)


def test_a_place_is_not_swallowed_by_a_time_phrase(brain: OfflineBrain) -> None:
    china = _understand(brain, "过去十年中国的GDP", date(2022, 7, 11))
    assert china.status == "no_data" and "中国" in (china.message or "")
    assert (china.intent.start, china.intent.end) == (date(2012, 7, 11), date(2022, 7, 11))
    us = _understand(brain, "过去十年中美国的实际GDP", date(2009, 7, 1))
    assert us.status == "ok" and [e.id for e in us.intent.entities] == ["GDPC1"]


def test_a_name_keeps_its_digits_from_a_month(brain: OfflineBrain) -> None:
    u = _understand(brain, "标普500月度收益率，2021年", TODAY)
    assert u.status == "ok" and [e.id for e in u.intent.entities] == ["^GSPC"]
    assert (u.intent.start, u.intent.end) == (date(2021, 1, 1), date(2021, 12, 31))


def test_a_misspelt_measure_is_read_as_the_measure(brain: OfflineBrain) -> None:
    u = _understand(brain, "Microsoft's max drawdwn in 2020", TODAY)
    assert u.intent.metrics == ["max_drawdown"]
    assert any('"max drawdwn" read as "max drawdown"' in line for line in u.intent.trace)
    # One letter off, never the first: "leverage" is no "average".
    lever = _understand(brain, "Apple with 3x leverage in 2020", TODAY)
    assert "mean" not in lever.intent.metrics


@pytest.mark.parametrize(
    "question",
    [
        "How did the valuations of Apple and Microsoft move in 2021?",
        "苹果和微软2021年的估值变化",
        "今年北上资金的净流入情况",
        "Describe Walmart's business",
    ],
)
def test_an_unbundled_measure_is_no_data_naming_it(brain: OfflineBrain, question: str) -> None:
    u = _understand(brain, question, TODAY)
    assert u.status == "no_data"
    named = {"valuations", "估值", "北上资金", "business"}
    assert any(word in (u.message or "") for word in named), u.message
    assert "DATAPILOT_PROVIDERS" in (u.message or "")  # which provider has it


@pytest.mark.parametrize("live", [False, True])
@pytest.mark.parametrize(
    "question",
    [
        "易方达旗下的那个名叫张坤的基金经理他管理的基金有几只",
        "Which funds does Cathie Wood run as a fund manager?",
    ],
)
def test_fund_managers_are_no_data_with_or_without_live_providers(
    brain: OfflineBrain, question: str, live: bool
) -> None:
    """No provider we ship has fund managers: live data is no help, so the advice is the
    user's own file or a model, never `data fetch` or another provider, and nothing else runs."""
    from datapilot.brains.offline.reading import read_question

    context = QuestionContext(today=TODAY)
    reading = read_question(question, context, brain.catalog, brain.vocab, live=live)
    assert reading.status == "no_data"
    message = reading.message or ""
    assert "基金经理" in message or "fund manager" in message, message
    assert "data import" in message
    assert "data fetch" not in message and "DATAPILOT_PROVIDERS" not in message


def test_a_multi_part_question_keeps_each_window(brain: OfflineBrain) -> None:
    for question in (
        "Coca-Cola's return in 2018 and its volatility in 2020",
        "可口可乐2018年的收益率和2020年的波动率",
    ):
        u = _understand(brain, question, TODAY)
        assert u.status == "ok"
        parts = [(p.metrics, p.start, p.end) for p in u.intent.parts]
        assert parts == [
            (["return"], date(2018, 1, 1), date(2018, 12, 31)),
            (["volatility"], date(2020, 1, 1), date(2020, 12, 31)),
        ]
        # Beside them, start and end span both parts.
        assert (u.intent.start, u.intent.end) == (date(2018, 1, 1), date(2020, 12, 31))
        # Nothing is measured over the merged 2018–2020.
        ends = {c.args.get("end") for s in u.plan.steps for c in s.calls if "end" in c.args}
        assert ends == {"2018-12-31", "2020-12-31"}, ends
        fetched = [c.args for s in u.plan.steps for c in s.calls if c.interface == "get_prices"]
        assert all(a["start"] > "2018-06-30" or a["end"] < "2019-01-01" for a in fetched)
