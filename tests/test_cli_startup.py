"""The `datapilot` command starts fast and its help is complete."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from datapilot.cli import app

runner = CliRunner()

# What a user waits for on every command, even `datapilot version`, if it loads at start-up.
HEAVY = ("pandas", "numpy", "httpx", "datapilot.data.providers.live", "datapilot.engine.summary")


def test_starting_the_command_loads_no_data_stack() -> None:
    probe = f"import sys, datapilot.cli; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert loaded == []


# Libraries no command needs just to print its help: the store's (SQLAlchemy, Alembic), the
# models' (pydantic), the data stack's. Each of these alone costs tens of ms to import.
NOT_FOR_HELP = (
    "sqlalchemy",
    "alembic",
    "pydantic",
    "pandas",
    "numpy",
    "duckdb",
    "httpx",
    "fastapi",
    "datapilot.store",
    "datapilot.settings",
    "datapilot.tools.base",
    "datapilot.core.answer",
)


def test_help_imports_no_store_models_or_data_stack() -> None:
    # Runs the real command as a user would and lists what `--help` left loaded: a plugin
    # that imports its heavy dependencies at module level shows up here by name.
    probe = (
        "import sys\n"
        "sys.argv = ['datapilot', '--help']\n"
        "from datapilot.cli import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', ' '.join(m for m in {NOT_FOR_HELP!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert "Usage" in out
    loaded = out.rsplit("LOADED", 1)[1].split()
    assert loaded == []


def test_help_lists_every_command_and_data_subcommand() -> None:
    top = runner.invoke(app, ["--help"], terminal_width=200)
    assert top.exit_code == 0
    for command in ("serve", "ask", "data", "eval", "interfaces", "version"):
        assert command in top.output
    data = runner.invoke(app, ["data", "--help"], terminal_width=200)
    for command in ("fetch", "search", "import"):
        assert command in data.output


def test_serve_help_says_when_to_raise_workers() -> None:
    result = runner.invoke(app, ["serve", "--help"], terminal_width=200)
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "--workers" in text
    assert "stateless" in text
    assert "core" in text
    assert "[default: 1]" in text


def test_interfaces_category_choices_are_the_registry_categories() -> None:
    from datapilot.commands.interfaces import CategoryOption
    from datapilot.interfaces.registry import CATEGORIES

    assert tuple(c.value for c in CategoryOption) == CATEGORIES


def test_interfaces_category_filter_lists_only_that_category() -> None:
    from datapilot.engine.executor import default_registry

    registry = default_registry()
    result = runner.invoke(app, ["interfaces", "--category", "prediction"])
    assert result.exit_code == 0
    listed = {line.split("(")[0] for line in result.stdout.splitlines() if "(" in line}
    expected = {name for name in registry.names() if registry.get(name).category == "prediction"}
    assert listed == expected


# What `ask --json` must not load: no chart is drawn as an image (matplotlib, kaleido), no
# Plotly figure is built for JSON, nothing touches the store (SQLAlchemy), the offline brain's
# common words ship with the package (wordfreq: ~0.3 s), and the question needs no forecast
# (statsmodels, scipy).
NOT_FOR_A_JSON_ASK = (
    "plotly",
    "matplotlib",
    "kaleido",
    "statsmodels",
    "scipy",
    "sqlalchemy",
    "alembic",
    "wordfreq",
    "fastapi",
)


def test_ask_json_loads_no_chart_store_or_forecast_libraries(data) -> None:  # type: ignore[no-untyped-def]
    probe = (
        "import sys, json\n"
        "sys.argv = ['datapilot', 'ask', \"Plot Apple's closing price in 2021\", '--json']\n"
        "from datapilot.cli import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', ' '.join(m for m in {NOT_FOR_A_JSON_ASK!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    answer, loaded = out.rsplit("LOADED", 1)
    assert '"AAPL"' in answer  # the question was answered, not refused
    assert loaded.split() == []


# What a JSON ask must not spend at start-up beyond its imports: compiling one regex of every
# vocabulary phrase (~1,000 phrases, over 50,000 characters of pattern: 0.1-0.2 s per process;
# the matcher compares phrases literally now), and the cyclic collector walking the freshly
# imported libraries ~290 times (0.12-0.18 s; the command line and `ask` raise its threshold).
LONGEST_PATTERN = 20_000
MOST_COLLECTIONS = 80  # ~40 now, ~290 before


def test_ask_json_compiles_no_giant_pattern_and_collects_rarely(data) -> None:  # type: ignore[no-untyped-def]
    probe = (
        "import gc, re, sys\n"
        "longest, passes = [0], [0]\n"
        "original = re._compile\n"
        "def compile(pattern, flags):\n"
        "    longest[0] = max(longest[0], len(getattr(pattern, 'pattern', pattern)))\n"
        "    return original(pattern, flags)\n"
        "re._compile = compile\n"
        "def count(phase, info):\n"
        "    passes[0] += phase == 'start'\n"
        "gc.callbacks.append(count)\n"
        "sys.argv = ['datapilot', 'ask', \"Plot Apple's closing price in 2021\", '--json']\n"
        "from datapilot.cli import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "print('PROBE', longest[0], passes[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    answer, figures = out.rsplit("PROBE", 1)
    assert '"AAPL"' in answer
    longest, passes = (int(n) for n in figures.split())
    assert 0 < longest < LONGEST_PATTERN
    assert 0 < passes < MOST_COLLECTIONS
