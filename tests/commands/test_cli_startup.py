"""The `datapilot` command starts fast and its help is complete."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from datapilot.cli import app

runner = CliRunner()

# A JSON ask of a question the bundled data answers, as the probes below set it up.
_ASK_JSON = "sys.argv = ['datapilot', 'ask', \"Plot Apple's closing price in 2021\", '--json']\n"


def _probe(code: str, marker: str, env: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """Runs `code` in a fresh interpreter, which must exit 0: what it printed before the last
    `marker`, and the words after it."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert marker in out, out
    head, tail = out.rsplit(marker, 1)
    return head, tail.split()


def _loaded(modules: tuple[str, ...]) -> str:
    """An expression naming those of `modules` the probe's process has imported."""
    return f"' '.join(m for m in {modules!r} if m in sys.modules)"


# What a user waits for on every command, even `datapilot version`, if it loads at start-up.
HEAVY = ("pandas", "numpy", "httpx", "datapilot.data.providers.live", "datapilot.engine.summary")


def test_starting_the_command_loads_no_data_stack() -> None:
    _, loaded = _probe(f"import sys, datapilot.cli; print('LOADED', {_loaded(HEAVY)})", "LOADED")
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
    # The commands' own modules: `--help` lists them from their help lines (lazy commands).
    "datapilot.commands.ask",
    "datapilot.commands.data",
    "datapilot.commands.accounts",
    "datapilot.commands.design",
)


def test_help_imports_no_store_models_or_data_stack() -> None:
    # Runs the real command as a user would and lists what `--help` left loaded: a plugin
    # that imports its heavy dependencies at module level shows up here by name.
    probe = (
        "import sys\n"
        "sys.argv = ['datapilot', '--help']\n"
        "from datapilot.cli import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', {_loaded(NOT_FOR_HELP)})"
    )
    out, loaded = _probe(probe, "LOADED")
    assert "Usage" in out
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
    # The terminal's renderer: a JSON answer prints no progress bar, panel or table (~20 ms).
    "rich",
    # Other commands' modules: only the command that runs is imported and built.
    "datapilot.commands.data",
    "datapilot.commands.accounts",
    "datapilot.commands.assistants",
    "datapilot.commands.serve",
    "datapilot.commands.design",
    # The chats' message shapes: a terminal question arrives with no conversation.
    "datapilot.core.messages",
    # DuckDB's Python API (~40-50 ms): the warehouse runs SQL on its engine (`_duckdb`) alone.
    "duckdb",
    # The user's tools and their result models: tried only when the data cannot answer.
    "datapilot.tools.base",
    # BLAS's threads are limited before numpy loads, not by inspecting every loaded library.
    "threadpoolctl",
)


def test_ask_json_loads_no_chart_store_or_forecast_libraries(data) -> None:  # type: ignore[no-untyped-def]
    probe = (
        "import atexit, sys\n"
        + _ASK_JSON
        # At exit, not after `app()`: an answered ask ends inside it (see the quick exit below).
        + f"atexit.register(lambda: print('LOADED', {_loaded(NOT_FOR_A_JSON_ASK)}))\n"
        "from datapilot.cli import app\n"
        "app()\n"
    )
    answer, loaded = _probe(probe, "LOADED")
    assert '"AAPL"' in answer  # the question was answered, not refused
    assert loaded == []


# What a JSON ask must not spend at start-up beyond its imports: compiling one regex of every
# vocabulary phrase (~1,000 phrases, over 50,000 characters of pattern: 0.1-0.2 s per process;
# the matcher compares phrases literally now), and the cyclic collector walking the freshly
# imported libraries ~290 times (0.12-0.18 s; the command line and `ask` raise its threshold).
LONGEST_PATTERN = 20_000
# 13-14 with the user's pattern cache warm, whether it holds one ask's patterns or thousands
# more (a user's many questions), importing and parsing the command at a raised threshold,
# `ask` higher still, no pass before a quick exit; ~290 at the default threshold, which is what
# this guards against, and 30-40 when the kept patterns were read back at the default threshold.
MOST_COLLECTIONS = 25


def _many_kept_patterns(cache: Path) -> None:
    """The `ask` pattern cache as a user who asked many questions has it: thousands of
    patterns of earlier questions (their names'), as the stored programs of distinct patterns."""
    import marshal

    (path,) = cache.glob("datapilot/re-cache-ask-*.marshal")
    kept = marshal.loads(path.read_bytes())
    pattern, flags, *stored = kept[0]
    earlier = [(f"{pattern}|earlier{i}", flags, *stored) for i in range(3_000)]
    path.write_bytes(marshal.dumps(earlier + kept))


def test_ask_json_compiles_no_giant_pattern_and_collects_rarely(data, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The probe's own cache folder (another test's concurrent ask must not change it).
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    # A user's asks after their first: the first after a change of the reader's patterns
    # compiles them all (and fills the user's cache), which is not what is counted here.
    subprocess.run(
        [sys.executable, "-c", f"import sys\n{_ASK_JSON}from datapilot.cli import app\napp()\n"],
        capture_output=True,
        check=True,
        env=env,
    )
    _many_kept_patterns(tmp_path)
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
        + _ASK_JSON
        # At exit, not after `app()`: an answered ask ends inside it (see the quick exit below).
        + "import atexit\n"
        "atexit.register(lambda: print('PROBE', longest[0], passes[0]))\n"
        "from datapilot.cli import app\n"
        "app()\n"
    )
    answer, figures = _probe(probe, "PROBE", env=env)
    assert '"AAPL"' in answer
    longest, passes = (int(n) for n in figures)
    assert 0 < longest < LONGEST_PATTERN
    assert 0 < passes < MOST_COLLECTIONS


# A one-shot `ask` ends without Python's teardown (a final collection and freeing every
# module: 0.15-0.2 s) once its answer is written, yet does everything a normal exit does first.
# The probe's canary reports teardown: a normal exit clears `__main__` and calls its `__del__`.
_EXIT_PROBE = (
    "import atexit, os, sys, threading, time\n"
    "class Canary:\n"
    "    def __del__(self, write=os.write):\n"
    "        write(1, b'TEARDOWN\\n')\n"
    "canary = Canary()\n"
    "atexit.register(lambda: print('ATEXIT', flush=True))\n"
    "def late(path=sys.argv[1]):\n"
    "    time.sleep(0.3)\n"
    "    open(path, 'w').write('done')\n"
    "threading.Thread(target=late).start()  # a normal exit waits for it: so must this one\n"
    "sys.argv = ['datapilot', *sys.argv[2:]]\n"
    "from datapilot.cli import app\n"
    "app()\n"
)


def _exit_probe(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    marker = tmp_path / "late.txt"
    done = subprocess.run(
        [sys.executable, "-c", _EXIT_PROBE, str(marker), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert marker.read_text() == "done"  # the other thread finished before the process ended
    return done


def test_ask_json_ends_without_teardown_and_its_output_whole(data, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    done = _exit_probe(tmp_path, "ask", "Plot Apple's closing price in 2021", "--json")
    assert done.returncode == 0, done.stderr
    body, tail = done.stdout.rsplit("}", 1)
    answer = json.loads(body + "}")  # one whole JSON object, nothing cut
    assert answer["status"] == "ok"
    assert [e["id"] for e in answer["intent"]["entities"]] == ["AAPL"]
    assert tail.split() == ["ATEXIT"]  # atexit handlers ran; no teardown (no TEARDOWN line)
    assert "Traceback" not in done.stderr


def test_a_quick_exit_leaves_the_read_only_warehouse_to_the_system(data, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Closing DuckDB's read-only files cost ~4 ms of an ask's exit, and there is nothing in them
    # to write: the process ends with them open, and the file is as it was, ready for the next.
    from datapilot.settings import get_settings

    path = get_settings().warehouse_path
    before = (path.stat().st_size, path.stat().st_mtime_ns)
    watch = (
        "import sys\n"
        "from datapilot.data import warehouse_file\n"
        "closing = warehouse_file._Database.close\n"
        "def close(self):\n"
        "    print('CLOSED', flush=True)\n"
        "    closing(self)\n"
        "warehouse_file._Database.close = close\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", watch + _ASK_JSON + "from datapilot.cli import app\napp()\n"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert '"AAPL"' in done.stdout
    assert "CLOSED" not in done.stdout
    assert (path.stat().st_size, path.stat().st_mtime_ns) == before
    _, figures = _probe(
        "from datapilot.data.seeding import is_seeded\n"
        "from datapilot.settings import get_settings\n"
        "print('PROBE', is_seeded(get_settings().warehouse_path))",
        "PROBE",
    )
    assert figures == ["True"]


def test_a_quick_exit_waits_for_a_warehouse_write_under_way(tmp_path) -> None:
    # A thread that does not hold the exit back (a daemon) may be writing: its transaction is
    # committed and its file closed before the process ends, as a normal exit would wait for.
    path = tmp_path / "w.duckdb"
    probe = (
        "import threading, time\n"
        "from pathlib import Path\n"
        "from datapilot.commands import quick_exit\n"
        "from datapilot.data.warehouse_file import database\n"
        "started = threading.Event()\n"
        "def write():\n"
        f"    with database(Path({str(path)!r})).writer() as connection:\n"
        "        started.set()\n"
        "        time.sleep(0.5)\n"
        "        connection.execute(\"INSERT INTO meta VALUES ('late', 'written')\")\n"
        "threading.Thread(target=write, daemon=True).start()\n"
        "started.wait()\n"
        "with quick_exit.entry_point():\n"
        "    quick_exit.allow_quick_exit()\n"
        "    quick_exit.quick_exit(0)\n"
        "print('DECLINED')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "DECLINED" not in done.stdout
    _, figures = _probe(
        "from pathlib import Path\n"
        "from datapilot.data.warehouse_file import database\n"
        f"print('PROBE', database(Path({str(path)!r})).meta('late'))",
        "PROBE",
    )
    assert figures == ["{'late':", "'written'}"]


@pytest.mark.slow
def test_ask_out_of_scope_exits_3_quickly_and_a_usage_error_2_normally(  # type: ignore[no-untyped-def]
    data, tmp_path
) -> None:
    refused = _exit_probe(tmp_path, "ask", "Tell me a joke about cats", "--json")
    assert refused.returncode == 3, refused.stderr
    assert '"status": "out_of_scope"' in refused.stdout
    assert "TEARDOWN" not in refused.stdout and "ATEXIT" in refused.stdout
    # A usage error is not a written answer: Python's own exit, teardown included.
    bad = _exit_probe(tmp_path, "ask", "Apple in 2021", "--plan", str(tmp_path / "missing.json"))
    assert bad.returncode == 2
    assert "TEARDOWN" in bad.stdout and "ATEXIT" in bad.stdout


def test_ask_out_files_are_whole_after_a_quick_exit(data, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    out = tmp_path / "out"
    done = _exit_probe(
        tmp_path, "ask", "Plot Apple's closing price in 2021", "--json", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "TEARDOWN" not in done.stdout
    written = json.loads((out / "answer.json").read_text())
    printed = json.loads(done.stdout.rsplit("}", 1)[0] + "}")
    assert written["outputs"] == printed["outputs"]
    chart = written["outputs"][0]
    assert chart["kind"] == "chart"
    png = out / Path(chart["png"]).name
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / png.with_suffix(".html").name).read_text().rstrip().endswith("</html>")
    assert not list(out.glob(".*partial*"))


def test_help_lines_of_lazy_commands_are_their_own_help() -> None:
    # `--help` lists built-in commands from precomputed lines: each must be what the command,
    # once built, says of itself (the first paragraph of its help), and every one must build.
    import inspect

    from datapilot.commands.lazy import LazyGroup, build

    group_class = app.info.cls
    assert isinstance(group_class, type) and issubclass(group_class, LazyGroup)
    assert len(group_class.lazy) >= 16
    for entry in group_class.lazy:
        built = build(entry)
        assert built.name == entry.name
        assert inspect.cleandoc(built.help or "").split("\n\n")[0] == entry.help, entry.name
        assert hasattr(built, "list_commands") is entry.group, entry.name


def test_help_listing_is_the_same_with_every_command_built() -> None:
    import click

    from datapilot.commands.lazy import LazyGroup

    def listing() -> str:
        result = runner.invoke(app, ["--help"], terminal_width=120)
        assert result.exit_code == 0
        return result.output

    lazy = listing()

    class Built(app.info.cls):  # type: ignore[misc, name-defined]
        def __init__(self, **attrs: object) -> None:
            super().__init__(**attrs)
            for name in list(self.commands):
                self.get_command(click.Context(self), name)  # builds each lazy command

    original = app.info.cls
    app.info.cls = Built
    try:
        eager = listing()
    finally:
        app.info.cls = original
    assert issubclass(Built, LazyGroup)
    assert eager == lazy
    assert "version" in lazy and "interpreter" in lazy and "design" in lazy


def test_ask_in_a_callers_process_leaves_the_collector_as_it_was(data) -> None:  # type: ignore[no-untyped-def]
    # A test runner (or any program) that runs `ask` in its own process carries on afterwards:
    # no quick exit there, and the collector's threshold is the caller's again.
    import gc

    before = gc.get_threshold()
    result = runner.invoke(app, ["ask", "Plot Apple's closing price in 2021", "--json"])
    assert result.exit_code == 0
    assert '"AAPL"' in result.output
    assert gc.get_threshold() == before


def test_a_declined_quick_exit_restores_the_collector(data) -> None:  # type: ignore[no-untyped-def]
    # With a database server's engine made the quick exit declines (its connections deserve a
    # goodbye): the process then ends as usual, with the collector as it was before the command.
    probe = (
        "import gc, sys\n"
        "from datapilot.store.database import get_engine, normalise_url\n"
        "get_engine(normalise_url('postgresql://probe@127.0.0.1:9/none'))\n"
        "before = gc.get_threshold()\n" + _ASK_JSON + "from datapilot.cli import app\n"
        "try:\n    app()\nexcept SystemExit as done:\n    code = done.code\n"
        "print('PROBE', code, gc.get_threshold() == before)"
    )
    answer, figures = _probe(probe, "PROBE")
    assert '"AAPL"' in answer
    assert figures == ["0", "True"]


def test_other_commands_run_at_the_processs_own_collector_threshold(data) -> None:  # type: ignore[no-untyped-def]
    # Only importing and parsing a command is done with fewer passes: a command that runs on
    # (a server, a chat) runs at Python's usual threshold, as it did before.
    probe = (
        "import gc, sys\n"
        "import datapilot.commands.interfaces as module\n"
        "def interfaces() -> None:\n"
        "    print('THRESHOLD', gc.get_threshold()[0])\n"
        "module.interfaces = interfaces\n"
        "before = gc.get_threshold()[0]\n"
        "sys.argv = ['datapilot', 'interfaces']\n"
        "from datapilot.cli import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "print('BEFORE', before)"
    )
    out, (before,) = _probe(probe, "BEFORE")
    inside = out.split("THRESHOLD", 1)[1].split()[0]
    assert inside == before == "700"


# A command compiles only the regular expressions the last one did not: the rest (~400 of the
# offline brain's, its modules' and its libraries') come compiled from the user's cache folder,
# and the TOML files it reads come parsed from there too while they are unchanged.
# A few dozen (~700 uncached): the standard library's first imports, before the cache is read.
MOST_COMPILES_WHEN_CACHED = 60


def test_a_second_ask_compiles_few_patterns(data, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os

    probe = (
        "import atexit, re, sys\n"
        "compiled = [0]\n"
        "original = re._compiler.compile\n"
        "def counting(pattern, flags=0):\n"
        "    compiled[0] += 1\n"
        "    return original(pattern, flags)\n"
        "re._compiler.compile = counting\n"
        "import tomllib\n"
        "parsed, parse = [0], tomllib.loads\n"
        "def parsing(text):\n"
        "    parsed[0] += 1\n"
        "    return parse(text)\n"
        "tomllib.loads = parsing\n"
        + _ASK_JSON
        + "atexit.register(lambda: print('COMPILED', compiled[0], parsed[0]))\n"
        "from datapilot.cli import app\n"
        "app()\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def compiles() -> tuple[int, int]:
        """Patterns compiled, and TOML files parsed, by one ask."""
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr
        assert '"AAPL"' in done.stdout
        compiled, parsed = done.stdout.rsplit("COMPILED", 1)[1].split()[:2]
        return int(compiled), int(parsed)

    (first, parsed), (second, parsed_again), (third, _) = compiles(), compiles(), compiles()
    assert first > 200  # the cache was empty
    # Nor does it parse the offline reader's vocabulary again (eight TOML files, ~60 KB).
    assert parsed >= 8
    assert parsed_again == 0
    # An ask uses more patterns than `re` keeps by default (512): the preloaded ones must not
    # be dropped for those compiled first, in the second ask or any later one.
    assert second < MOST_COMPILES_WHEN_CACHED
    assert third < MOST_COMPILES_WHEN_CACHED
    # Once the cache holds what an ask uses, a later ask does not write the file back (~20 ms
    # each time it did: it kept 1,500 patterns of the ~1,520 an ask had in `re`'s cache).
    (saved,) = (tmp_path / "cache" / "datapilot").glob("re-cache-ask-*.marshal")
    before = saved.stat().st_mtime_ns, saved.read_bytes()
    fourth, _ = compiles()
    assert fourth < MOST_COMPILES_WHEN_CACHED
    assert (saved.stat().st_mtime_ns, saved.read_bytes()) == before


def test_checking_the_warehouse_builds_no_data_frame(data, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Every process that reads data first checks that its warehouse is built: that check reads
    # two rows of metadata, with DuckDB alone (pandas: ~0.35 s to import where nothing else
    # needs it, and a frame per row where it is loaded).
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_bytes(b"not a database" * 100)
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from datapilot.data.seeding import is_seeded\n"
        "from datapilot.settings import get_settings\n"
        "seeded = is_seeded(get_settings().warehouse_path)\n"
        f"damaged = is_seeded(Path({str(garbage)!r}))\n"
        f"missing = is_seeded(Path({str(tmp_path / 'none.duckdb')!r}))\n"
        "print('PROBE', seeded, damaged, missing, 'pandas' in sys.modules)"
    )
    _, figures = _probe(probe, "PROBE")
    assert figures == ["True", "False", "False", "False"]


def test_a_second_ask_reads_no_installed_packages_entry_points(data, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Finding the plugins (Datapilot's, and pydantic's at its first model) read every installed
    # package's metadata, ~15-20 ms each time; what they found is kept until a package changes.
    import os

    probe = (
        "import atexit, importlib.metadata, sys\n"
        "scans, listing = [0], importlib.metadata.distributions\n"
        "def counting(*args, **kwargs):\n"
        "    scans[0] += 1\n"
        "    return listing(*args, **kwargs)\n"
        "importlib.metadata.distributions = counting\n"
        + _ASK_JSON
        + "atexit.register(lambda: print('SCANS', scans[0]))\n"
        "from datapilot.cli import app\n"
        "app()\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def scans() -> int:
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr
        assert '"AAPL"' in done.stdout
        return int(done.stdout.rsplit("SCANS", 1)[1].split()[0])

    assert scans() > 0  # nothing kept yet
    assert scans() == 0


def test_ask_json_reads_the_type_hints_of_the_interfaces_its_plan_calls_only(data) -> None:  # type: ignore[no-untyped-def]
    # The library's ~80 interfaces are registered by name and signature; their type hints
    # (evaluating every annotation: most of building the library) are read when a plan
    # checks or calls one. The question's plan calls two.
    probe = (
        "import atexit, sys, typing\n"
        "read, hints = [], typing.get_type_hints\n"
        "def reading(obj, *args, **kwargs):\n"
        "    if getattr(obj, '__module__', '').startswith('datapilot.interfaces.'):\n"
        "        read.append(obj.__name__)\n"
        "    return hints(obj, *args, **kwargs)\n"
        "typing.get_type_hints = reading\n"
        + _ASK_JSON
        + "atexit.register(lambda: print('HINTS', *read))\n"
        "from datapilot.cli import app\n"
        "app()\n"
    )
    answer, read = _probe(probe, "HINTS")
    assert '"AAPL"' in answer
    assert sorted(read) == ["get_prices", "plot_line"]


# What every BLAS library of the process runs on, printed at exit (after the answer).
_BLAS_THREADS = (
    "import atexit\n"
    "def threads():\n"
    "    from threadpoolctl import threadpool_info\n"
    "    print('BLAS', *sorted({i['num_threads'] for i in threadpool_info()"
    " if i['user_api'] == 'blas'}))\n"
    "atexit.register(threads)\n"
)


@pytest.mark.parametrize("numpy_first", [False, True])
def test_ask_json_runs_blas_on_one_thread(data, numpy_first) -> None:  # type: ignore[no-untyped-def]
    # Calls run in parallel threads on small matrices: BLAS threads would only oversubscribe
    # the cores. The command sets that up before numpy loads; a process that loaded numpy
    # first (a program embedding the command line) has its libraries limited when the
    # interface library is built.
    probe = (
        "import os, sys\n"
        "os.environ.pop('OPENBLAS_NUM_THREADS', None)\n"
        "os.environ.pop('MKL_NUM_THREADS', None)\n"
        + ("import numpy\n" if numpy_first else "")
        + _BLAS_THREADS
        + _ASK_JSON
        + "from datapilot.cli import app\n"
        "app()\n"
    )
    answer, threads = _probe(probe, "BLAS")
    assert '"AAPL"' in answer
    assert threads == ["1"]


def test_ask_json_makes_no_collector_pass_once_the_command_line_is_imported(
    data, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    # A one-shot command is parsed, built and run at its raised threshold throughout: lowering
    # it in between (after parsing the group's options, after building the command) started a
    # pass over everything imported meanwhile (~2-7 ms each) just before raising it again.
    # A user's asks after their first, in the probe's own cache folder: the first ask after a
    # change of the reader's patterns compiles them all, which is not what is counted here
    # (and another test's concurrent ask must not change the folder).
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    subprocess.run(
        [sys.executable, "-c", f"import sys\n{_ASK_JSON}from datapilot.cli import app\napp()\n"],
        capture_output=True,
        check=True,
        env=env,
    )
    probe = (
        "import atexit, gc, sys\n" + _ASK_JSON + "from datapilot.cli import app\n"
        "passes = [0]\n"
        "def count(phase, info):\n"
        "    passes[0] += phase == 'start'\n"
        "gc.callbacks.append(count)\n"
        "atexit.register(lambda: print('PASSES', passes[0]))\n"
        "app()\n"
    )
    answer, passes = _probe(probe, "PASSES", env)
    assert '"AAPL"' in answer
    assert passes == ["0"]
