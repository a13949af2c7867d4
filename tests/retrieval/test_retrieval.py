"""BM25 retrieval on real text: statsmodels' dataset descriptions (English) and Chinese reports."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
import statsmodels.datasets

from datapilot.retrieval import Index, Passage, tokenize


def _statsmodels_descriptions() -> list[Passage]:
    """Every statsmodels dataset's long description, one passage each (real, shipped text)."""
    passages = []
    for module in pkgutil.iter_modules(statsmodels.datasets.__path__):
        try:
            loaded = importlib.import_module(f"statsmodels.datasets.{module.name}")
        except ImportError:
            continue
        text = " ".join(str(getattr(loaded, "DESCRLONG", "")).split())
        if len(text) > 40:
            passages.append(Passage(text=text, source=module.name, index=len(passages)))
    return passages


@pytest.fixture(scope="module")
def english() -> Index:
    passages = _statsmodels_descriptions()
    assert len(passages) > 15
    return Index.build(passages)


@pytest.mark.parametrize(
    ("query", "source"),
    [
        ("How much water flowed down the Nile each year?", "nile"),
        ("sea surface temperatures of the Pacific Ocean", "elnino"),
        ("households spending on food relative to income", "engel"),
        ("the world copper market", "copper"),
        ("atmospheric CO2 measured at Mauna Loa", "co2"),
        ("highly collinear macroeconomic variables", "longley"),
    ],
)
def test_english_queries_find_the_right_description(
    english: Index, query: str, source: str
) -> None:
    hits = english.search(query, k=3)
    assert hits and hits[0].passage.source == source
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_stemming_and_stopwords() -> None:
    assert tokenize("The temperatures were measured") == tokenize("temperature measure")
    assert tokenize("of the and") == []


CHINESE = [
    "公司2023年实现营业收入383.29亿美元，同比下降2.8%，主要受iPhone销量下滑影响。",
    "报告期内，公司研发投入达到299.15亿美元，占营业收入的7.8%，重点投向芯片设计与人工智能。",
    "董事会建议派发末期股息每股0.24美元，并追加900亿美元股票回购计划。",
    "截至年末，公司现金及有价证券合计1620亿美元，资产负债率保持稳健。",
    "大中华区收入同比下降2%，欧洲市场收入增长4%，服务业务创下历史新高。",
]


@pytest.fixture(scope="module")
def chinese() -> Index:
    return Index.build(
        [Passage(text=t, source="年报.pdf", page=i + 1, index=i) for i, t in enumerate(CHINESE)]
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("公司的研发投入是多少？", 1),
        ("分红和股票回购计划", 2),
        ("现金及有价证券有多少", 3),
        ("大中华区和欧洲的收入", 4),
        ("What drove the decline in 营业收入 and iPhone sales?", 0),  # mixed language
    ],
)
def test_chinese_and_mixed_queries_find_the_right_passage(
    chinese: Index, query: str, expected: int
) -> None:
    hits = chinese.search(query, k=2)
    assert hits and hits[0].passage.index == expected
    assert hits[0].passage.page == expected + 1


def test_an_unrelated_query_finds_nothing(chinese: Index) -> None:
    assert chinese.search("weather in Paris", k=3) == []


def test_an_empty_index_and_large_k() -> None:
    assert Index.build([]).search("anything", k=3) == []
    two = Index.build([Passage(text="bond yields rose", source="a"), Passage(text="x", source="b")])
    assert len(two.search("bond yields", k=50)) == 1


def test_passages_without_a_single_word_find_nothing() -> None:
    # Found by the fuzzing run: a document of only symbols or stopwords crashed the index.
    empty = Index.build([Passage(text="", source="a"), Passage(text="... --- !!!", source="b")])
    assert empty.search("yields", k=3) == []
