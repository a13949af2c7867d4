"""Chart PNGs of published answers, kept for a day under unguessable names and served at
`/charts/NAME.png` (public, like `/assets/`: platforms that show a plugin's images fetch them
without the caller's key, and a name is a 128-bit random token)."""

from __future__ import annotations

import os
import re
import secrets
import tempfile
import time
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

KEEP_S = 24 * 3600
_NAME = re.compile(r"^[A-Za-z0-9_-]{22}$")
router = APIRouter(include_in_schema=False)


def charts_dir(data_dir: Path) -> Path:
    return data_dir / "charts"


def save_png(data_dir: Path, png: bytes) -> str:
    """Store `png` under a new random name (written whole, then renamed); returns the name.
    Files older than a day are removed on the way."""
    folder = charts_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    _prune(folder)
    name = secrets.token_urlsafe(16)
    handle, temp = tempfile.mkstemp(prefix=".chart-", suffix=".png", dir=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(png)
        os.replace(temp, folder / f"{name}.png")
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return name


def _prune(folder: Path) -> None:
    cutoff = time.time() - KEEP_S
    for path in folder.glob("*.png"):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)
        except OSError:  # another worker removed it first
            continue


@router.get("/charts/{name}.png")
async def chart(name: str, request: Request) -> Response:
    path = charts_dir(request.app.state.settings.data_dir) / f"{name}.png"
    if not _NAME.match(name) or not path.is_file():
        message = "No such chart: chart links last a day; ask again for a new one."
        return JSONResponse(status_code=404, content={"message": message, "code": "not_found"})
    return FileResponse(path, media_type="image/png", headers={"X-Content-Type-Options": "nosniff"})
