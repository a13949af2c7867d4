from datetime import date
from typing import Annotated, Literal

import pytest

from datapilot.interfaces.registry import Frame, Registry, interface


@pytest.fixture()
def reg() -> Registry:
    target = Registry()

    @interface("acquisition", "frame", target=target)
    def get_prices(
        ctx,
        ids: Annotated[list[str], "entity ids"],
        start: date | None = None,
        freq: Literal["daily", "weekly"] = "daily",
    ):
        """Prices of entities.

        Details that stay out of the catalog."""

    @interface("processing", "frame", target=target)
    def merge(ctx, frames: list[Frame], how: str = "outer"):
        """Merge frames on their index."""

    return target


def test_valid_arguments_are_coerced(reg: Registry) -> None:
    args, problems = reg.get("get_prices").validate({"ids": ["AAPL"], "start": "2020-01-31"})
    assert problems == []
    assert args["start"] == date(2020, 1, 31)


def test_each_problem_is_named(reg: Registry) -> None:
    _, problems = reg.get("get_prices").validate({"ids": "AAPL", "start": "soon", "bogus": 1})
    text = "\n".join(problems)
    assert "unknown argument 'bogus'" in text
    assert "'ids'" in text and "'start'" in text
    _, problems = reg.get("get_prices").validate({})
    assert problems == ["missing argument 'ids'"]


def test_frame_arguments_must_reference_earlier_frames(reg: Registry) -> None:
    spec = reg.get("merge")
    _, problems = spec.validate({"frames": [{"$ref": "a"}, {"$ref": "b"}]}, frame_outputs=["a"])
    assert len(problems) == 1 and "'b'" in problems[0]
    _, problems = spec.validate({"frames": [[1, 2]]})
    assert "reference" in problems[0]


def test_catalog_and_schema(reg: Registry) -> None:
    catalog = reg.catalog()
    assert "# acquisition" in catalog and "# processing" in catalog
    assert "get_prices(ids: list[str]" in catalog and "Details" not in catalog
    schema = reg.get("merge").json_schema()
    assert schema["required"] == ["frames"]
    assert schema["properties"]["frames"]["items"]["required"] == ["$ref"]


def test_duplicate_names_are_refused(reg: Registry) -> None:
    with pytest.raises(ValueError, match="twice"):

        @interface("processing", "frame", target=reg, name="merge")
        def merge_again(ctx, frames: list[Frame]):
            """Again."""


def test_an_interfaces_argument_model_is_built_when_first_needed(
    reg: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Registering the library builds no pydantic model: a one-question process validates only
    # the interfaces its plan calls.
    import datapilot.interfaces.registry as registry

    built: list[str] = []
    create = registry.create_model

    def counting(name: str, **kwargs: object) -> object:
        built.append(name)
        return create(name, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(registry, "create_model", counting)

    @interface("processing", "frame", target=reg)
    def scale(ctx, frame: Frame, by: float = 1.0):  # type: ignore[no-untyped-def]
        """Scale a frame."""

    assert built == []
    spec = reg.get("scale")
    _, problems = spec.validate({"frame": {"$ref": "result1"}, "by": "2"})
    assert problems == [] and built == ["scale_args"]
    assert spec.validate({"frame": {"$ref": "result1"}, "by": "x"})[1]  # the same model
    assert built == ["scale_args"]
