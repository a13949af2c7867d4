"""A report-shaped spreadsheet attached to a chat (CSV or XLSX: a blank first row, a unit row,
years under a spanning title, section rows, `$1,571.7`, `(3.1)`, `—`, footnote marks) is the
table the chat's next question is answered from, in English and in Chinese: the figure first,
then the cells used and the formula. Expected figures are computed with pandas from the same
file."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pytest
from support.platform_app import app_for, client_of, platform_settings

BALANCE = [
    ["", "", ""],
    ["(In millions)", "", ""],
    ["", "December 31,", ""],
    ["", "2019", "2018"],
    ["Current assets:", "", ""],
    ["Cash and equivalents", "$1,571.7", "$1,498.3"],
    ["Accounts receivable, net", "1,298(a)", "1,102"],
    ["Other current assets", "(3.1)", "—"],
    ["Total assets", "$12,345.6", "$11,020.4"],
    ["Current liabilities:", "", ""],
    ["Accounts payable", "2,210.9", "2,034.5"],
]
INCOME_ZH = [
    ["", "", ""],
    ["单位：万元", "", ""],
    ["", "合并利润表", ""],
    ["项目", "2019年", "2018年"],
    ["一、营业总收入", "", ""],
    ["营业收入", "12,500.5", "10,200.0"],
    ["营业成本", "(8,300.2)", "(7,100.4)"],
    ["二、利润", "", ""],
    ["净利润", "1,850.3*", "1,420.8"],
]


def as_csv(rows: list[list[str]], encoding: str = "utf-8") -> bytes:
    return pd.DataFrame(rows).to_csv(header=False, index=False).encode(encoding)


def as_xlsx(rows: list[list[str]]) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append([cell or None for cell in row])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def printed(data: bytes, name: str, encoding: str = "utf-8") -> pd.DataFrame:
    """The attached file read back with pandas: labels as the index, the printed cells as
    numbers (brackets negative, footnote marks and `$` dropped, `—` missing)."""
    if name.endswith(".xlsx"):
        frame = pd.read_excel(io.BytesIO(data), header=None, dtype=str)
    else:
        frame = pd.read_csv(io.BytesIO(data), header=None, dtype=str, encoding=encoding)
    frame = frame.dropna(how="all").set_index(0)
    text = frame.fillna("").astype(str)
    text = text.replace({r"\((\d[\d,.]*)\)": r"-\1", r"[$,*]|\([a-z]\)$": ""}, regex=True)
    return text.apply(pd.to_numeric, errors="coerce")


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.。])\s", text.strip(), maxsplit=1)[0]


def upload(name: str, data: bytes) -> dict[str, str]:
    return {"name": name, "content_base64": base64.b64encode(data).decode()}


async def ask_with_file(tmp_path: Path, name: str, data: bytes, question: str) -> str:
    app = app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}"))
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()["id"]
        attached = await client.post(f"/api/v1/chats/{chat}/files", json=upload(name, data))
        assert attached.status_code == 201, attached.text
        sent = await client.post(
            f"/api/v1/chats/{chat}/messages", json={"content": question, "stream": False}
        )
    assert sent.status_code == 200, sent.text
    reply: str = sent.json()["replies"][-1]["content"]
    return reply


@pytest.mark.parametrize("name", ["balance.csv", "balance.xlsx"])
async def test_a_balance_sheet_attached_to_a_chat_answers_a_percentage_change(
    tmp_path: Path, data: Any, name: str
) -> None:
    content = as_xlsx(BALANCE) if name.endswith(".xlsx") else as_csv(BALANCE)
    question = "What was the percentage change in total assets from 2018 to 2019?"
    reply = await ask_with_file(tmp_path, name, content, question)
    frame = printed(content, name)
    total = frame.loc["Total assets"]
    change = (total.iloc[0] / total.iloc[1] - 1) * 100
    assert f"{change:.2f}%" in first_sentence(reply), reply
    # The trace: the cells as printed, the formula and its result.
    assert "$12,345.6" in reply and "$11,020.4" in reply, reply
    assert f"(12,345.6 − 11,020.4) / 11,020.4 × 100 = {change:.2f}%" in reply, reply


@pytest.mark.parametrize(
    ("name", "encoding"),
    [("利润表.xlsx", "utf-8"), ("利润表.csv", "utf-8"), ("利润表.csv", "gb18030")],
)
async def test_a_chinese_income_statement_attached_to_a_chat_answers_the_growth(
    tmp_path: Path, data: Any, name: str, encoding: str
) -> None:
    content = as_xlsx(INCOME_ZH) if name.endswith(".xlsx") else as_csv(INCOME_ZH, encoding)
    reply = await ask_with_file(tmp_path, name, content, "2019年营业收入比2018年增长了多少？")
    frame = printed(content, name, encoding)
    revenue = frame.loc["营业收入"]
    growth = revenue.iloc[0] - revenue.iloc[1]
    assert f"{growth:,.1f}万元" in first_sentence(reply), reply
    cells = [f"{value:,.1f}" for value in revenue]
    assert f"营业收入, 2019: {cells[0]}" in reply and f"营业收入, 2018: {cells[1]}" in reply, reply
    assert f"{cells[0]} − {cells[1]} = {growth:,.1f}" in reply, reply


async def test_a_figure_with_a_footnote_mark_is_read_as_its_number(
    tmp_path: Path, data: Any
) -> None:
    content = as_csv(BALANCE)
    question = "What is the average accounts receivable, net for 2018 and 2019?"
    reply = await ask_with_file(tmp_path, "balance.csv", content, question)
    average = printed(content, "balance.csv").loc["Accounts receivable, net"].mean()
    assert f"${average:,.0f} million" in first_sentence(reply), reply
    assert "(1,102 + 1,298) / 2" in reply, reply


async def test_a_line_the_attached_sheet_lacks_is_declined_naming_lines_not_sections(
    tmp_path: Path, data: Any
) -> None:
    content = as_csv(BALANCE)
    reply = await ask_with_file(
        tmp_path, "balance.csv", content, "What was goodwill impairment in 2019?"
    )
    assert "could not find" in reply and "closest" in reply, reply
    assert "Current assets" not in reply and "Current liabilities" not in reply, reply


async def test_a_change_from_a_dash_cell_is_not_answered_as_a_figure(
    tmp_path: Path, data: Any
) -> None:
    content = as_csv(BALANCE)
    question = "What was the change in other current assets from 2018 to 2019?"
    reply = await ask_with_file(tmp_path, "balance.csv", content, question)
    assert "holds no number ('—')" in reply, reply


# --- the OpenAI-compatible face: a `file` content part sent inline ---------------------------


async def complete(tmp_path: Path, parts: list[dict[str, Any]]) -> Any:
    app = app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}"))
    body = {"model": "datapilot", "messages": [{"role": "user", "content": parts}]}
    async with client_of(app) as client:
        return await client.post("/v1/chat/completions", json=body)


async def test_an_openai_file_part_holding_a_workbook_is_answered_from_its_table(
    tmp_path: Path, data: Any
) -> None:
    content = as_xlsx(INCOME_ZH)
    encoded = base64.b64encode(content).decode()
    media = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    file = {"filename": "利润表.xlsx", "file_data": f"data:{media};base64,{encoded}"}
    parts = [
        {"type": "text", "text": "2019年营业收入比2018年增长了多少？"},
        {"type": "file", "file": file},
    ]
    response = await complete(tmp_path, parts)
    assert response.status_code == 200, response.text
    reply = response.json()["choices"][0]["message"]["content"]
    revenue = printed(content, "利润表.xlsx").loc["营业收入"]
    growth = revenue.iloc[0] - revenue.iloc[1]
    assert f"{growth:,.1f}万元" in first_sentence(reply), reply
    assert f"{revenue.iloc[0]:,.1f} − {revenue.iloc[1]:,.1f} = {growth:,.1f}" in reply, reply


async def test_an_openai_file_part_named_only_by_a_file_id_is_refused(
    tmp_path: Path, data: Any
) -> None:
    parts = [{"type": "text", "text": "Summarise"}, {"type": "file", "file": {"file_id": "f-1"}}]
    response = await complete(tmp_path, parts)
    assert response.status_code == 400, response.text
    assert "file_data" in response.text and "file_id" in response.text
