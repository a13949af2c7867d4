"""Static files served compressed and cached: text assets (Plotly's 4.8 MB bundle, the page's
modules, Swagger UI) go out gzip-compressed to clients that accept it, compressed once per file
version and kept in memory, with an ETag and the Cache-Control of their mount."""

from __future__ import annotations

import gzip
import mimetypes
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

# Compressing these pays; images and fonts are compressed already.
COMPRESSIBLE = frozenset({".js", ".mjs", ".css", ".json", ".html", ".svg", ".map", ".txt"})
_MIN_BYTES = 1024
# A year, for URLs that change when their content does (a version in the path).
IMMUTABLE = "public, max-age=31536000, immutable"
# Unversioned URLs: kept, but checked with the server (a 304 when unchanged) before each use.
REVALIDATE = "no-cache"


class CompressedStaticFiles(StaticFiles):
    """`StaticFiles` that answers `Accept-Encoding: gzip` with the compressed file."""

    def __init__(self, *args: Any, cache_control: str = REVALIDATE, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cache_control = cache_control

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = compressed_file(
            Path(full_path), Headers(scope=scope), self.cache_control, stat_result
        )
        if response.status_code == 200 and status_code != 200:
            response.status_code = status_code
        return response


def compressed_file(
    path: Path,
    request_headers: Headers,
    cache_control: str,
    stat_result: os.stat_result | None = None,
    media_type: str | None = None,
) -> Response:
    """`path` as a response: gzip-compressed when the client takes it and it pays, a 304 when
    the client's copy is current."""
    stat = stat_result or path.stat()
    etag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"'
    headers = {"Cache-Control": cache_control, "ETag": etag, "Vary": "Accept-Encoding"}
    headers["X-Content-Type-Options"] = "nosniff"
    if etag in request_headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    if (
        path.suffix in COMPRESSIBLE
        and stat.st_size >= _MIN_BYTES
        and "gzip" in request_headers.get("accept-encoding", "")
    ):
        body = _gzipped(str(path), stat.st_mtime_ns, stat.st_size)
        headers["Content-Encoding"] = "gzip"
        kind = media_type or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return Response(body, media_type=kind, headers=headers)
    return FileResponse(path, stat_result=stat, media_type=media_type, headers=headers)


@lru_cache(maxsize=64)
def _gzipped(path: str, mtime_ns: int, size: int) -> bytes:
    """The file compressed once per version (`mtime_ns` and `size` key the cache)."""
    # Level 6: within a few percent of 9's size (1.4 MB for Plotly's bundle), in a third the time.
    return gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)
