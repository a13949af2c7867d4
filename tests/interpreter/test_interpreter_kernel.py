"""The sandboxed kernel: outputs as LMC (the chunk stream rebuilds into the message list a user
expects), the read-only `dp` helper against the source datasets, limits that a user notices."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import date

import pytest
from support.interpreter import console_text, process_chunks, report, wire

from datapilot.core.context import QuestionContext
from datapilot.engine.context import RequestContext
from datapilot.interpreter.channel import data_channel
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.settings import Settings


@pytest.fixture(scope="module")
def kernel(data) -> Iterator[SandboxKernel]:  # type: ignore[no-untyped-def]
    settings = Settings(interpreter_timeout_s=60, interpreter_output_chars=5000)
    request = RequestContext.for_request(QuestionContext(today=date(2022, 12, 28)), settings)
    started = SandboxKernel(settings, data_channel(request)).start()
    yield started
    started.close()


def run(kernel: SandboxKernel, code: str) -> list[dict]:
    return wire(list(kernel.run(code)))


def test_console_output_rebuilds_into_one_console_message(kernel: SandboxKernel) -> None:
    chunks = run(kernel, "print('a')\nprint('b')\n6 * 7")
    assert process_chunks(chunks) == [
        {"role": "computer", "type": "console", "format": "output", "content": "a\nb\n42\n"}
    ]
    # The running line is marked between the deltas: lines 1, 2 and 3 in order.
    lines = [c["content"] for c in chunks if c.get("format") == "active_line"]
    assert lines == [1, 2, 3]
    assert report(chunks)["status"] == "ok"


def test_figure_table_html_and_error_come_as_their_own_messages(kernel: SandboxKernel) -> None:
    code = (
        "import matplotlib.pyplot as plt\n"
        "plt.plot([1, 2, 3]); plt.show()\n"
        "from IPython.display import HTML, display\n"
        "display(HTML('<b>hi</b>'))\n"
        "import pandas as pd\n"
        "display(pd.DataFrame({'x': [1, 2], 'y': ['a', 'b']}))\n"
        "print('before the error')\n"
        "raise ValueError('boom')\n"
    )
    chunks = run(kernel, code)
    messages = process_chunks(chunks)
    kinds = [(m["type"], m["format"]) for m in messages]
    assert kinds == [
        ("image", "base64.png"),
        ("code", "html"),
        ("table", "json"),
        ("console", "output"),
    ]
    assert base64.b64decode(messages[0]["content"]).startswith(b"\x89PNG")
    assert messages[1]["content"] == "<b>hi</b>"
    assert messages[2]["content"]["columns"] == ["index", "x", "y"]
    assert messages[2]["content"]["rows"] == [[0, 1, "a"], [1, 2, "b"]]
    assert messages[3]["content"].startswith("before the error\n")
    assert "ValueError: boom" in messages[3]["content"]
    assert report(chunks)["status"] == "error"


def test_every_result_reports_its_isolation(kernel: SandboxKernel) -> None:
    isolation = report(run(kernel, "x = 1"))["isolation"]
    assert isolation["level"] == "namespace"
    assert isolation["network"].startswith("namespace")
    assert isolation["limits"]["wall_s"] == 60
    assert "uid" in isolation["user"] and "uid 0 " not in isolation["user"]


def test_variables_live_on_between_runs(kernel: SandboxKernel) -> None:
    run(kernel, "kept = 41")
    assert console_text(run(kernel, "print(kept + 1)")) == "42\n"


def test_dp_prices_match_the_source_dataset(kernel: SandboxKernel) -> None:
    from skfolio.datasets import load_sp500_dataset

    source = load_sp500_dataset()["AAPL"]
    expected = source[(source.index >= "2021-01-01") & (source.index <= "2021-12-31")]
    code = (
        "frame = dp.prices('AAPL', '2021-01-01', '2021-12-31', field='adj_close')\n"
        "print(len(frame), round(float(frame['AAPL'].iloc[0]), 4), "
        "round(float(frame['AAPL'].iloc[-1]), 4), str(frame.index[-1].date()))"
    )
    out = console_text(run(kernel, code)).split()
    assert out == [
        str(len(expected)),
        str(round(float(expected.iloc[0]), 4)),
        str(round(float(expected.iloc[-1]), 4)),
        str(expected.index[-1].date()),
    ]


def test_dp_series_and_interfaces(kernel: SandboxKernel) -> None:
    from statsmodels.datasets import macrodata

    macro = macrodata.load_pandas().data
    code = (
        "gdp = dp.series('GDPC1')\n"
        "print(len(gdp), round(float(gdp['GDPC1'].iloc[-1]), 3))\n"
        "print('get_prices' in dir(dp.interfaces))\n"
        "same = dp.interfaces.get_prices(ids=['AAPL'], start='2021-01-04', end='2021-01-04', "
        "field='adj_close')\n"
        "print(len(same))"
    )
    lines = console_text(run(kernel, code)).splitlines()
    assert lines == [f"{len(macro)} {round(float(macro['realgdp'].iloc[-1]), 3)}", "True", "1"]


def test_a_bad_data_request_is_an_error_the_code_can_read(kernel: SandboxKernel) -> None:
    code = (
        "try:\n    dp.prices('NOSUCHTICKER', '2021-01-01', '2021-12-31')\n"
        "except dp.DataError as error:\n    print('refused:', str(error)[:200])"
    )
    text = console_text(run(kernel, code))
    assert text.startswith("refused:") and "NOSUCHTICKER" in text


def test_output_is_capped_and_says_so(kernel: SandboxKernel) -> None:
    chunks = run(kernel, "for i in range(2000):\n    print('x' * 50)")
    assert len(console_text(chunks)) == 5000
    assert any("cut at 5000" in note for note in report(chunks)["notes"])


def test_input_is_refused_not_hung(kernel: SandboxKernel) -> None:
    chunks = run(kernel, "try:\n    input('name? ')\nexcept EOFError:\n    print('no input')")
    assert console_text(chunks).endswith("no input\n")
