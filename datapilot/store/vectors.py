"""The column type of embedding vectors: pgvector's `vector` on PostgreSQL, float32 bytes (a
BLOB) on SQLite. Python sees a float32 numpy array either way.

The column has no fixed dimension (one store serves any embeddings model), so a `dim` column
beside it says how long each vector is: searches and indexes are per dimension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import LargeBinary
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

if TYPE_CHECKING:  # numpy loads with the first vector read or written, not with the models
    import numpy as np

VECTOR_INDEX_PREFIX = "ix_vec_"  # indexes made at run time, one per dimension (not in models)
HNSW_MAX_DIM = 2000  # pgvector indexes `vector` columns of at most this many dimensions


class Embedding(TypeDecorator["np.ndarray"]):
    """A float32 vector of any length."""

    impl = LargeBinary
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(VECTOR())
        return dialect.type_descriptor(LargeBinary())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        import numpy as np

        array = np.asarray(value, dtype=np.float32).reshape(-1)
        return array if dialect.name == "postgresql" else array.tobytes()

    def process_result_value(self, value: Any, dialect: Dialect) -> np.ndarray | None:
        if value is None:
            return None
        import numpy as np

        if isinstance(value, bytes | bytearray | memoryview):
            return np.frombuffer(bytes(value), dtype=np.float32)
        return np.asarray(value, dtype=np.float32)
