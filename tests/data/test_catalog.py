"""Catalog: ids, English and Chinese names, tickers, fuzzy names, and the vocabulary files."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from support import paths

from datapilot.data.catalog import Catalog, Entity
from datapilot.data.vocabulary import VocabularyError, load_vocabulary, shipped_files

CORPUS = paths.FIXTURES / "corpus" / "queries.jsonl"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def ids(catalog: Catalog, question: str) -> list[str]:
    return [m.entity.id for m in catalog.mentions(question)]


def test_get_is_case_insensitive_and_unknown_is_none(catalog: Catalog) -> None:
    assert catalog.get("aapl").id == "AAPL"
    assert catalog.get(" ^gspc ").id == "^GSPC"
    assert catalog.get("600519.sh").id == "600519.SH"
    assert catalog.get("NOPE123") is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Plot Apple's closing price", ["AAPL"]),
        ("Compare JPMorgan and Bank of America", ["JPM", "BAC"]),
        (
            "Rank Apple, Microsoft, Exxon, Coca-Cola and Walmart",
            ["AAPL", "MSFT", "XOM", "KO", "WMT"],
        ),
        ("Show Google's RSI", ["GOOG"]),
        ("Meta Platforms since its IPO", ["FB"]),
        ("Which of Pfizer, Merck and Eli Lilly did best", ["PFE", "MRK", "LLY"]),
        ("Home Depot and Best Buy prices", ["HD", "BBY"]),
        ("Procter and Gamble vs UnitedHealth", ["PG", "UNH"]),
        ("画一下苹果公司2019年的股价走势", ["AAPL"]),
        ("比较微软和苹果今年以来的累计收益率", ["MSFT", "AAPL"]),
        ("去年埃克森美孚、雪佛龙和Range Resources的收益率对比", ["XOM", "CVX", "RRC"]),
        ("标普500指数近三年的走势", ["^GSPC"]),
        ("纳斯达克指数2018年的收盘价", ["^IXIC"]),
        ("恐慌指数和WTI原油", ["^VIX", "DCOILWTICO"]),
        ("美国1980年代的失业率", ["UNRATE"]),
        ("预测美国未来4个季度的实际GDP", ["GDPC1"]),
        ("US CPI and M1 money supply", ["CPIAUCSL", "M1SL"]),
        ("核心CPI和布伦特原油", ["CPILFESL", "MCOILBRENTEU"]),
        ("T-bill rate and Moody's Baa yield", ["TB3MS", "BAA"]),
        ("贵州茅台、五粮液和宁德时代", ["600519.SH", "000858.SZ", "300750.SZ"]),
        ("沪深300和恒生指数", ["000300.SS", "^HSI"]),
        ("特斯拉今年的股价", ["TSLA"]),
        ("What's the weather like in Tokyo tomorrow?", []),
    ],
)
def test_mentions_find_every_named_entity(
    catalog: Catalog, question: str, expected: list[str]
) -> None:
    assert sorted(ids(catalog, question)) == sorted(expected)


def test_corpus_questions_name_the_expected_entities(catalog: Catalog) -> None:
    wrong = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        expected = set(case["expect"].get("ids") or [])
        found = set(ids(catalog, case["query"]))
        if found != expected:
            wrong.append((case["id"], case["query"], sorted(found), sorted(expected)))
    assert not wrong


def test_longest_name_wins_and_spans_do_not_overlap(catalog: Catalog) -> None:
    question = "Nasdaq Composite vs S&P 500 ETF"
    matches = catalog.mentions(question)
    assert [(m.entity.id, m.matched) for m in sorted(matches, key=lambda m: m.start)] == [
        ("^IXIC", "Nasdaq Composite"),
        ("SPY", "S&P 500 ETF"),
    ]
    for match in matches:
        assert question[match.start : match.end] == match.matched


def test_tickers_match_only_as_written_tokens(catalog: Catalog) -> None:
    question = "it is a GE day and a ge day"
    matches = catalog.mentions(question)
    assert [(m.entity.id, m.start) for m in matches] == [("GE", question.index("GE"))]
    assert ids(catalog, "msft and aapl") == ["MSFT", "AAPL"]  # four letters: any case
    assert ids(catalog, "the hd and ko of it") == []  # shorter ids: upper case only
    # SIZE is a word in lower case. (This used to expect no name at all; "the market" is now an
    # alias of the S&P 500, as in "what did the market do in 2008?", so only SIZE is checked.)
    assert ids(catalog, "the size of the market") == ["^GSPC"]
    assert ids(catalog, "BRK.B and $NVDA") == ["BRK-B", "NVDA"]
    # Abbreviations that happen to be tickers: MA (Mastercard), PM, CI.
    assert ids(catalog, "Apple with the 50-day MA at 3 PM, 95% CI") == ["AAPL"]
    assert ids(catalog, "Mastercard") == ["MA"]


def test_bare_a_share_code_matches_when_unambiguous(catalog: Catalog) -> None:
    assert ids(catalog, "600519近一年走势") == ["600519.SH"]
    # 000001 is both Ping An Bank (.SZ) and the Shanghai Composite (.SS): no guess.
    assert ids(catalog, "000001走势") == []


def test_everyday_words_need_factor_context(catalog: Catalog) -> None:
    assert ids(catalog, "What's the value of Apple?") == ["AAPL"]
    assert sorted(ids(catalog, "momentum, quality and min-volatility factor ETFs")) == [
        "MTUM",
        "QUAL",
        "USMV",
    ]


def test_names_of_several_words_match_in_the_plural(catalog: Catalog) -> None:
    assert ids(catalog, "Baa corporate bond yields") == ["BAA"]
    assert ids(catalog, "the size factor ETFs") == ["SIZE"]
    assert ids(catalog, "analysts' price targets") == []  # one-word names stay singular (Target)


def test_misspelt_names_match_with_a_lower_score(catalog: Catalog) -> None:
    (microsoft,) = catalog.mentions("What is the price of Microsfot?")
    assert microsoft.entity.id == "MSFT" and 80 <= microsoft.score < 100
    (jnj,) = catalog.mentions("Jonson & Jonson returns")
    assert jnj.entity.id == "JNJ" and jnj.score < microsoft.score  # two typos score lower
    assert ids(catalog, "being careful with prices") == []  # not Boeing
    assert ids(catalog, "micro caps") == []  # not Micron


def test_a_name_beats_an_id_on_the_same_words(catalog: Catalog) -> None:
    # "GDP" is an alias of real GDP (bundled); the FRED id GDP is nominal GDP (not bundled).
    assert ids(catalog, "US GDP growth") == ["GDPC1"]
    assert catalog.get("GDP").name == "US nominal GDP"


def test_lookup_ranks_exact_before_fuzzy(catalog: Catalog) -> None:
    assert [(m.entity.id, m.score) for m in catalog.lookup("苹果", limit=1)] == [("AAPL", 100.0)]
    assert catalog.lookup("aapl")[0].entity.id == "AAPL"
    fuzzy = catalog.lookup("Microsfot")
    assert fuzzy[0].entity.id == "MSFT" and fuzzy[0].score < 100
    assert all(a.score >= b.score for a, b in itertools.pairwise(fuzzy))
    assert catalog.lookup("  ") == []


def test_every_entity_has_english_and_chinese_names(catalog: Catalog) -> None:
    def chinese(text: str) -> bool:
        return any("\u4e00" <= c <= "\u9fff" for c in text)

    lacking = [
        e.id
        for e in catalog.entities()
        if e.kind not in ("factor",)
        and e.id not in {"RRC", "GOOGL", "IVV", "VTI", "EFA", "VWO", "MCHI", "IEF", "BND", "CVS"}
        and not (any(chinese(a) for a in e.aliases) and any(not chinese(a) for a in e.aliases))
    ]
    assert not lacking
    directory = {
        e.id for e in catalog.entities() if e.kind == "stock" and e.id.endswith((".SH", ".SZ"))
    }
    assert len(directory) >= 60
    assert {"SPY", "QQQ", "^DJI", "^RUT", "^HSI", "000001.SS", "000300.SS", "000016.SS"} <= {
        e.id for e in catalog.entities()
    }
    assert {"GDP", "PAYEMS", "FEDFUNDS", "DGS10", "DGS2", "M2SL", "HOUST", "PCEPI"} <= {
        e.id for e in catalog.entities(kind="macro")
    }


def test_availability_and_dates_come_from_the_warehouse(data) -> None:
    catalog = data.catalog
    tesla = catalog.get("TSLA")
    assert tesla is not None and not tesla.available and tesla.first is None
    moutai = catalog.mentions("贵州茅台")[0].entity
    assert moutai.id == "600519.SH" and not moutai.available
    coverage = data.warehouse.coverage("^GSPC")
    gspc = catalog.get("^GSPC")
    assert gspc.available
    assert gspc.first == coverage["first"].min().date()
    assert gspc.last == coverage["last"].max().date()
    assert gspc.source == "arch, skfolio"
    assert catalog.get("GDPC1").frequency == "quarterly"
    assert catalog.get("DCOILWTICO").frequency == "daily"
    available = {e.id for e in catalog.entities(available=True)}
    assert available == set(data.warehouse.coverage()["id"])


def test_add_registers_new_names(catalog: Catalog) -> None:
    local = Catalog(catalog.entities())
    local.add(Entity(id="ACME", kind="stock", name="Acme Rockets", aliases=["Acme", "阿克米"]))
    assert ids(local, "阿克米 and Apple") == ["ACME", "AAPL"]
    with pytest.raises(VocabularyError, match="claimed by both"):
        local.add(Entity(id="FAKE", kind="stock", name="Fake", aliases=["苹果"]))
    assert local.get("FAKE") is None


def write(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    return path


def test_user_files_extend_the_vocabulary(tmp_path: Path) -> None:
    folder = tmp_path / "entities"
    folder.mkdir()
    write(
        folder / "mine.toml",
        'entity = [{ id = "MYFUND", kind = "fund", name = "My Fund", aliases = ["我的基金"] }]\n'
        '[aliases]\nAAPL = ["果子公司"]\n',
    )
    catalog = Catalog.load(data_dir=tmp_path)
    assert ids(catalog, "我的基金和果子公司") == ["MYFUND", "AAPL"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('entity = [{ id = "AAPL", kind = "stock", name = "Again" }]', "already defined"),
        (
            'entity = [{ id = "NEWCO", kind = "stock", name = "New", aliases = ["微软"] }]',
            "'微软' is claimed by both",
        ),
        ('entity = [{ id = "X1", kind = "stock", name = "X", colour = "red" }]', "unknown field"),
        ('entity = [{ id = "X2", kind = "planet", name = "X" }]', "kind"),
        ('[aliases]\nNOPE = ["nope"]', "unknown entity id 'NOPE'"),
        ("entity = [", "not valid TOML"),
    ],
)
def test_bad_vocabulary_files_are_refused_with_the_file_named(
    tmp_path: Path, body: str, message: str
) -> None:
    bad = write(tmp_path / "bad.toml", body)
    with pytest.raises(VocabularyError, match=message) as error:
        load_vocabulary([*shipped_files(), bad])
    assert "bad.toml" in str(error.value)


@pytest.mark.perf
def test_mentions_are_fast() -> None:
    """Nothing is built per question: a question's mentions cost a small part of the first
    call, which builds the catalog's matcher. This thread's CPU time, a ratio measured here."""
    import time

    catalog = Catalog.load()
    started = time.thread_time()
    catalog.mentions("warm up")
    first = time.thread_time() - started
    started = time.thread_time()
    for _ in range(20):
        catalog.mentions("Compare the cumulative returns of JPMorgan and Bank of America in 2020")
    each = (time.thread_time() - started) / 20
    # About 1/20 of the first call on an idle machine.
    assert each < first / 4, (each, first)
