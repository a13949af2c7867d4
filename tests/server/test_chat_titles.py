"""A chat's name says what its first answer resolved — entities, measure, window — in the
question's language, so that several chats about similar questions are told apart."""

from __future__ import annotations

from datetime import date

from datapilot.core.answer import Answer
from datapilot.core.intent import EntityRef, Intent
from datapilot.server.chat_titles import chat_title
from datapilot.settings import Settings

APPLE = EntityRef(id="AAPL", kind="stock", name="Apple Inc.")
MICROSOFT = EntityRef(id="MSFT", kind="stock", name="Microsoft")


def answer(query: str, entities: list[EntityRef], start: date, end: date, metric: str) -> Answer:
    intent = Intent(rewritten=query, entities=entities, start=start, end=end, metrics=[metric])
    return Answer(query=query, today=date(2022, 12, 28), status="ok", intent=intent)


def test_names_in_english_and_in_chinese(data: object) -> None:
    year = (date(2021, 1, 1), date(2021, 12, 31))
    both = [APPLE, MICROSOFT]
    english = answer("Compare the returns of Apple and Microsoft in 2021", both, *year, "return")
    chinese = answer("比较苹果和微软2021年的收益率", both, *year, "return")
    assert chat_title(english, Settings()) == "Apple, Microsoft · return · 2021"
    assert chat_title(chinese, Settings()) == "苹果、微软 · 收益率 · 2021年"


def test_windows_that_are_not_whole_years_keep_their_dates(data: object) -> None:
    window = (date(2021, 3, 1), date(2021, 6, 30))
    named = chat_title(answer("Plot Apple's price", [APPLE], *window, "close"), Settings())
    assert named == "Apple · price · 2021-03-01 – 2021-06-30"


def test_a_question_that_resolved_no_entity_keeps_its_own_name() -> None:
    empty = Answer(query="hello", today=date(2022, 12, 28), status="out_of_scope")
    assert chat_title(empty, Settings()) is None
