"""One plugin mechanism: a third-party package's hooks add interfaces and commands exactly as the
built-ins do, and plugins registered at run time add providers, brains, tools and routes."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import httpx
import pytest
from support import paths

from datapilot import plugins
from datapilot.hookspecs import hookimpl
from datapilot.interfaces.registry import Registry

FIXTURES = paths.FIXTURES
TOY_PLUGIN = FIXTURES / "plugin"
BROKEN_PLUGIN = FIXTURES / "broken_plugin"
CLI = "from datapilot.cli import app; app()"


def _installed(*folders: Path) -> dict[str, str]:
    """The environment of a process with these plugin folders installed (on the path)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [*map(str, folders), env.get("PYTHONPATH")]))
    return env


def _datapilot(*args: str, plugin: bool = True) -> subprocess.CompletedProcess[str]:
    """`datapilot ARGS` in a fresh process, with the toy plugin installed (on the path) or not."""
    env = _installed(TOY_PLUGIN) if plugin else dict(os.environ)
    return subprocess.run(
        [sys.executable, "-c", CLI, *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.slow
def test_an_installed_plugin_adds_its_interface_to_the_library() -> None:
    without = _datapilot("interfaces", plugin=False)
    listed = _datapilot("interfaces")
    assert without.returncode == 0 and listed.returncode == 0, listed.stderr
    assert "scale_values" not in without.stdout
    assert "scale_values(frame: frame, factor?: float=2.0) -> frame" in listed.stdout
    count = int(without.stderr.split()[0])
    assert f"{count + 1} interfaces" in listed.stderr
    schema = _datapilot("interfaces", "scale_values")
    assert schema.returncode == 0 and '"factor"' in schema.stdout


def test_an_installed_plugin_adds_its_command() -> None:
    result = _datapilot("toy-greeting")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "the toy plugin is installed"
    assert "toy-greeting" in _datapilot("--help").stdout
    assert "toy-greeting" not in _datapilot("--help", plugin=False).stdout


def test_a_plugin_comes_after_the_built_ins_and_loads_nothing_heavy_at_start() -> None:
    probe = (
        "import sys, datapilot.cli\n"
        "heavy = [m for m in ('pandas', 'numpy', 'httpx') if m in sys.modules]\n"
        "from datapilot.engine.executor import default_registry\n"
        "names = default_registry().names()\n"
        "print(heavy, names.index('scale_values') == len(names) - 1)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=_installed(TOY_PLUGIN),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == "[] True"


def test_a_broken_plugin_is_skipped_with_a_warning_naming_it() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CLI, "interfaces"],
        capture_output=True,
        text=True,
        env=_installed(BROKEN_PLUGIN, TOY_PLUGIN),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "the Datapilot plugin 'broken' (datapilot_broken_plugin) was not loaded" in result.stderr
    assert "a_library_that_is_not_installed" in result.stderr
    assert "scale_values" in result.stdout  # the working plugin still loads


def test_built_ins_come_through_the_same_hooks() -> None:
    registry = Registry()
    plugins.plugin_manager().hook.register_interfaces(registry=registry)
    assert {"get_prices", "plot_line", "forecast_arima"} <= set(registry.names())
    assert {"yahoo", "fred", "sec", "akshare", "datahub"} <= set(plugins.providers())
    assert {"offline", "llm"} <= set(plugins.brains())


class _Extras:
    """A plugin object registered at run time, as an embedding application would."""

    @hookimpl
    def register_providers(self, register) -> None:  # type: ignore[no-untyped-def]
        register("toyquotes", lambda settings: "a provider")

    @hookimpl
    def register_brains(self, register) -> None:  # type: ignore[no-untyped-def]
        register("toybrain", lambda request: "a brain")

    @hookimpl
    def register_tools(self, register) -> None:  # type: ignore[no-untyped-def]
        register("toytool", lambda request: "a tool")

    @hookimpl
    def register_routes(self, app) -> None:  # type: ignore[no-untyped-def]
        @app.get("/toy")
        async def toy() -> dict[str, str]:
            return {"toy": "yes"}


@pytest.fixture()
def extras():
    plugin = _Extras()
    plugins.register(plugin, name="toy-extras")
    yield plugin
    plugins.unregister(plugin)


async def test_a_registered_plugin_adds_providers_brains_tools_and_routes(extras) -> None:
    from datapilot.data.providers.router import provider_names
    from datapilot.server.app import create_app
    from datapilot.settings import Settings

    assert plugins.providers()["toyquotes"](Settings()) == "a provider"
    assert provider_names(Settings(providers=["bundled", "toyquotes"])) == ["toyquotes"]
    assert plugins.brains()["toybrain"](None) == "a brain"
    assert plugins.tools()["toytool"](None) == "a tool"
    app = create_app(Settings(brain="offline", offline=True), warm_up=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/toy")).json() == {"toy": "yes"}
        assert (await client.get("/agents.json")).status_code == 200  # built-ins still there


def test_two_plugins_claiming_one_name_is_an_error(extras) -> None:
    class Clash:
        @hookimpl
        def register_providers(self, register) -> None:  # type: ignore[no-untyped-def]
            register("yahoo", lambda settings: "another yahoo")

    clash = Clash()
    plugins.register(clash)
    try:
        with pytest.raises(ValueError, match="two plugins register a provider named 'yahoo'"):
            plugins.providers()
    finally:
        plugins.unregister(clash)


def test_a_plugin_interface_runs_in_a_plan(data) -> None:
    sys.path.insert(0, str(TOY_PLUGIN))
    try:
        import datapilot_toy_plugin as toy
    finally:
        sys.path.remove(str(TOY_PLUGIN))
    from datapilot.core.plan import Call, Plan, Step, ref
    from datapilot.engine.check import check_plan
    from datapilot.interfaces.context import InterfaceContext
    from datapilot.interfaces.prices import get_prices

    registry = Registry()
    toy.register_interfaces(registry)
    registry.add(get_prices)
    plan = Plan(
        steps=[
            Step(calls=[Call(interface="get_prices", args={"ids": ["AAPL"]}, output="p")]),
            Step(calls=[Call(interface="scale_values", args={"frame": ref("p")}, output="s")]),
        ]
    )
    assert check_plan(plan, registry).ok
    ctx = InterfaceContext(warehouse=data.warehouse, catalog=data.catalog, today=date(2022, 1, 3))
    prices = get_prices(ctx, ["AAPL"], date(2021, 1, 4), date(2021, 1, 8))
    scaled = registry.get("scale_values").func(ctx, prices, factor=3.0)
    assert (scaled["AAPL"] == prices["AAPL"] * 3.0).all()
