"""Bytes stored once per content: named by their SHA-256 under a root directory."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


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


def share_blob(session: Session, digest: str, data: bytes) -> None:
    """On PostgreSQL, which replicas share, keep the bytes in the store too (once per content):
    a replica whose data dir lacks the file reads it from there (`read_blob`)."""
    if session.get_bind().dialect.name != "postgresql":
        return  # SQLite lives beside one data dir: the file is enough
    from sqlalchemy.dialects.postgresql import insert

    from datapilot.store.models import SharedBlob

    session.execute(insert(SharedBlob).values(sha256=digest, data=data).on_conflict_do_nothing())


def read_blob(session: Session, root: Path, path: str, digest: str) -> bytes:
    """The bytes of a stored file: from this data dir, else (a file stored through another
    replica) from the store, kept here from then on. FileNotFoundError when neither has it."""
    try:
        return (root / path).read_bytes()
    except FileNotFoundError:
        if session.get_bind().dialect.name != "postgresql":
            raise
    from datapilot.store.models import SharedBlob

    shared = session.get(SharedBlob, digest)
    if shared is None:
        raise FileNotFoundError(root / path)
    write_blob(root, bytes(shared.data))
    return bytes(shared.data)
