"""Integers the store can hold. SQLite's INTEGER and PostgreSQL's BIGINT are 64-bit signed: a
larger id in a path, a query or a body overflowed the driver (a 500), so the request types bound
it with `RowId` (FastAPI's 422)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

INT64_MAX = 2**63 - 1
RowId = Annotated[int, Field(ge=1, le=INT64_MAX)]
"""An integer row id (autoincrement: from 1) as a request may name it."""
