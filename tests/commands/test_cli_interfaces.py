import json

from typer.testing import CliRunner

from datapilot.cli import app

runner = CliRunner()


def test_lists_every_category_and_at_least_forty_interfaces() -> None:
    result = runner.invoke(app, ["interfaces"])
    assert result.exit_code == 0
    lines = [line for line in result.stdout.splitlines() if "(" in line and " -> " in line]
    assert len(lines) >= 40
    for category in ("acquisition", "processing", "prediction", "visualization"):
        assert f"# {category}" in result.stdout


def test_one_interface_schema_names_its_arguments() -> None:
    result = runner.invoke(app, ["interfaces", "cross_section_returns"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert {"ids", "start", "end"} <= set(schema["properties"])
    assert schema["required"] == ["ids"]


def test_unknown_interface_says_how_to_list() -> None:
    result = runner.invoke(app, ["interfaces", "get_everything"])
    assert result.exit_code == 2
    assert "datapilot interfaces" in result.output
