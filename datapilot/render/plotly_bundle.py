"""One copy of Plotly's 4.8 MB `plotly.min.js` for every folder of chart pages: the pages read
`plotly.min.js` beside them (so they work offline and can be moved together), and that file is
a hard link to a copy in the user cache, not another 4.8 MB each time."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

BUNDLE = "plotly.min.js"


def shared_bundle() -> Path:
    """The user's one copy of this plotly version's bundle (made on first use)."""
    import plotly
    from platformdirs import user_cache_dir

    shared = Path(user_cache_dir("datapilot")) / f"plotly-{plotly.__version__}.min.js"
    if not shared.exists():
        shared.parent.mkdir(parents=True, exist_ok=True)
        source = Path(plotly.__file__).parent / "package_data" / BUNDLE
        handle, temp = tempfile.mkstemp(prefix=".plotly-", dir=shared.parent)
        os.close(handle)
        try:
            shutil.copyfile(source, temp)
            os.chmod(temp, 0o644)  # read by every page that links it
            os.replace(temp, shared)  # two processes at once: either copy wins whole
        finally:
            Path(temp).unlink(missing_ok=True)
    return shared


def link_plotly_js(folder: Path) -> Path:
    """`folder/plotly.min.js`: a hard link to the shared copy, or a copy where the two are on
    different file systems (a link cannot cross them)."""
    target = folder / BUNDLE
    if target.exists():
        return target
    shared = shared_bundle()
    try:
        os.link(shared, target)
    except FileExistsError:
        pass  # another writer made it meanwhile
    except OSError:
        shutil.copyfile(shared, target)
    return target
