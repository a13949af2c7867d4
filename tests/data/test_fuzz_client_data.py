"""Property test: whatever a client sends as widget data becomes well-formed tables or none."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from datapilot.data.client_data import parse_client_data

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5)
    ),
    max_leaves=30,
)
texts = st.one_of(
    values.map(lambda value: json.dumps(value, ensure_ascii=False)),
    st.lists(
        st.lists(st.sampled_from(["a", "a", "", "1", "2.5", "x"]), max_size=4), max_size=5
    ).map(
        lambda rows: (
            "\n".join("| " + " | ".join(row) + " |" for row in rows[:1])
            + "\n|---|---|\n"
            + "\n".join("| " + " | ".join(row) + " |" for row in rows[1:])
        )
    ),
    st.text(max_size=80),
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(text=texts)
# Found by fuzzing: these raised (ragged rows) or made tables with a column twice.
@example(text='{"columns": ["a"], "rows": [[1, 2], [3]]}')
@example(text="[[1], [1, 2, 3]]")
@example(text="| a | a |\n|---|---|\n| 1 | 2 |")
@example(text='{"columns": [], "rows": [[1]]}')
def test_any_client_data_parses_into_rectangular_tables_with_unique_columns(text: str) -> None:
    for table in parse_client_data(text, name="widget"):
        assert table.columns, text
        assert all(name.strip() for name in table.columns), text
        assert len(set(table.columns)) == len(table.columns), (text, table.columns)
        assert all(len(row) == len(table.columns) for row in table.rows), text
        frame = table.to_frame()
        assert list(frame.columns) == table.columns
        json.dumps(table.rows)  # travels in resume state
