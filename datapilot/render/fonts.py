"""The fonts of PNG charts: DejaVu Sans, then one with Chinese glyphs (an installed one, else
the one mplfonts ships). Apart from the charts, so that telling whether Chinese can be drawn
(`datapilot doctor`, `datapilot serve`'s notes) imports neither pandas nor matplotlib."""

from __future__ import annotations

import functools
import importlib.util
import logging
from pathlib import Path

# Fonts with Chinese glyphs, tried in order after DejaVu Sans (matplotlib falls back per glyph).
_CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "SimHei",
    "Arial Unicode MS",
)
_SHIPPED_CJK_FONT = "NotoSansCJKsc-Regular.otf"
logger = logging.getLogger(__name__)


def has_chinese_font() -> bool:
    """Whether PNG charts can draw Chinese. The font mplfonts ships answers without importing
    matplotlib (0.3-0.8 s with its font list), which only a missing one needs to look further."""
    if _shipped_cjk_font() is not None:
        return True
    return len(font_families()) > 1


def _shipped_cjk_font() -> Path | None:
    # Found from the package's spec: importing mplfonts would import matplotlib.
    spec = importlib.util.find_spec("mplfonts")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        shipped = Path(folder) / "fonts" / _SHIPPED_CJK_FONT
        if shipped.is_file():
            return shipped
    return None


@functools.cache
def font_families() -> list[str]:
    """DejaVu Sans, then a font with Chinese glyphs: an installed one, else mplfonts' one."""
    from matplotlib import font_manager

    # CJK fonts lack a bold face; matplotlib's fallback to regular is fine, its warning is noise.
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    installed = {font.name for font in font_manager.fontManager.ttflist}
    family = next((name for name in _CJK_FAMILIES if name in installed), None)
    shipped = _shipped_cjk_font() if family is None else None
    if shipped is not None:
        font_manager.fontManager.addfont(str(shipped))
        family = font_manager.FontProperties(fname=str(shipped)).get_name()
    if family is None:
        logger.warning(
            "No font with Chinese glyphs found: Chinese text in PNG charts will show as boxes. "
            "Install the mplfonts package or a CJK system font (e.g. fonts-noto-cjk)."
        )
        return ["DejaVu Sans"]
    return ["DejaVu Sans", family]
