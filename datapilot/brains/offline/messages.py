"""What the offline brain says when it cannot answer: unknown names, missing data, coverage.

Every message names what was asked, says what is (or is not) bundled and how to get it, in the
question's language. Nothing is ever substituted for what the user named.
"""

from __future__ import annotations

from datetime import date

from datapilot.data.catalog import Entity


def foreign_message(names: list[str], zh: bool) -> str:
    if zh:
        return (
            f"我没有{'、'.join(names)}的数据：内置的宏观序列都是美国的，不会拿来代替。"
            "联网时可用 `datapilot data fetch <代码>` 从实时数据源获取，"
            "或用 `datapilot data import` 导入您自己的文件。"
        )
    listed = ", ".join(f'"{n}"' for n in names)
    return (
        f"I have no data for {listed}: the bundled macro series are for the United States, and "
        "I won't substitute them. With a live provider you can fetch it "
        "(`datapilot data fetch <ID>`), or import your own file (`datapilot data import`)."
    )


def unknown_message(names: list[str], zh: bool) -> str:
    if names:
        listed = "、".join(names) if zh else ", ".join(f'"{n}"' for n in names)
        if zh:
            return (
                f"我的数据目录里没有{listed}，无法回答，也不会用别的数据代替。"
                "联网时可用 `datapilot data fetch <代码>` 从实时数据源获取，"
                "或用 `datapilot data import` 导入您自己的文件。"
            )
        return (
            f"I don't know {listed}: it is not in my catalog, so I won't substitute anything else. "
            "With a live provider you can fetch it (`datapilot data fetch <TICKER>`), "
            "or import your own file (`datapilot data import`)."
        )
    if zh:
        return "请告诉我您想看哪只股票、哪个指数或哪个宏观序列，例如：苹果、标普500、美国失业率。"
    return (
        "Which company, index or series do you mean? For example: Apple, the S&P 500, "
        "US unemployment."
    )


def left_out_message(names: list[str], zh: bool) -> str:
    """Names the catalog does not know, beside names it does: answered without them."""
    if zh:
        return f"我不认识{'、'.join(f'“{n}”' for n in names)}，回答里没有包含。"
    listed = ", ".join(f'"{n}"' for n in names)
    return f"I don't know {listed}, so the answer leaves it out; check the spelling or the ticker."


def missing_message(missing: list[Entity], zh: bool) -> str:
    ids = " ".join(e.id for e in missing)
    if zh:
        names = "、".join(f"{e.name}（{e.id}）" for e in missing)
        return (
            f"我认识{names}，但本地没有它的数据，所以无法回答，也不会用别的数据代替。"
            f"联网时可用 `datapilot data fetch {ids}` 从实时数据源获取，"
            "或用 `datapilot data import` 导入您自己的文件。"
        )
    names = ", ".join(f"{e.name} ({e.id})" for e in missing)
    return (
        f"I know {names}, but I have no bundled data for it, and I won't substitute anything "
        f"else. Fetch it with a live provider (`datapilot data fetch {ids}`) or import your own "
        "file (`datapilot data import`)."
    )


def coverage_message(entity: Entity, start: date, end: date, zh: bool) -> str:
    """An entity with data, but none in the window asked for."""
    if zh:
        return (
            f"{entity.name}（{entity.id}）的数据范围是 {entity.first} 至 {entity.last}，"
            f"{start} 至 {end} 期间没有数据。"
        )
    return (
        f"{entity.name} ({entity.id}) has data from {entity.first} to {entity.last}; "
        f"there is none between {start} and {end}."
    )
