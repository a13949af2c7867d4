"""A Chinese question about another company of the same kind as the one a note names (星辰科技
beside 蓝湾科技's call) gets "not mentioned" first, never the note's figures for its company; the
note's own company is answered, and an English note's body named in Chinese is not refused."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library

NOTES = {
    "蓝湾科技2023年三季度业绩说明会.md": """# 蓝湾科技2023年三季度业绩说明会

## 经营概况

蓝湾科技第三季度实现营业收入48.6亿元，同比增长12.4%；归母净利润5.2亿元，同比增长8.7%。

## 分业务情况

云计算业务收入21.3亿元，同比增长27%，占总收入的43.8%。
""",
    "harbour_bank_statement.txt": """Harbour Bank monetary policy statement

The Board of Harbour Bank raised its policy rate by 25 basis points to 4.5%. Seven members
voted for the increase and two preferred to hold.
""",
}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), NOTES)


def test_another_company_of_the_same_kind_is_not_mentioned(library: NotesLibrary) -> None:
    question = "星辰科技2023年第三季度归母净利润同比增长了多少？"
    status, summary = library_answer(question, library)
    assert status == "no_data" and summary.startswith(not_mentioned_opening(question)), summary


def test_the_notes_own_company_is_answered(library: NotesLibrary) -> None:
    status, summary = library_answer("蓝湾科技第三季度归母净利润同比增长了多少？", library)
    assert status == "ok" and "8.7%" in summary, summary


def test_an_english_notes_body_named_in_chinese_is_answered(library: NotesLibrary) -> None:
    _status, summary = library_answer("港湾银行这次把政策利率提高到多少？", library)
    assert not summary.startswith(not_mentioned_opening("港湾银行这次把政策利率提高到多少？"))
