"""Bytes stored once per content: named by their SHA-256 under a root directory."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def write_blob(root: Path, data: bytes) -> tuple[str, str]:
    """Store `data` under `root` (once per content); returns its SHA-256 and relative path."""
    digest = hashlib.sha256(data).hexdigest()
    path = root / digest[:2] / digest
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write aside, then rename: a concurrent upload of the same bytes never sees half.
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".upload-")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    return digest, str(path.relative_to(root))
