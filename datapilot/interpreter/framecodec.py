"""DataFrames across the `dp` channel, exactly: values, dtypes, index and `attrs` as JSON.

Numeric, boolean and datetime columns travel as the raw bytes of their numpy array (base64), so
every float arrives bit for bit (pandas' own JSON keeps at most 15 digits); text and other
object columns as JSON lists. Decoding builds arrays only from an allow-list of dtypes — never
pickles — since the server decodes what sandboxed code sends.

This module runs on both ends: the server imports it, and its source is also sent into the
kernel (which cannot import Datapilot), so it imports only the standard library, numpy and
pandas.
"""

from __future__ import annotations

import base64
import json
import math
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

# numpy kinds sent as bytes: float, signed and unsigned int, bool, datetime, timedelta.
_RAW_KINDS = frozenset("fiubMm")
_EXTENSION = frozenset({"Int64", "Int32", "Float64", "boolean", "string", "category"})
MAX_COLUMNS = 10_000


class FrameCodecError(ValueError):
    """A frame that cannot be sent, or a payload that is not one; the message says which."""


def encode(frame: pd.DataFrame) -> dict[str, Any]:
    """`frame` as a JSON-ready dict (see the module doc)."""
    if isinstance(frame.columns, pd.MultiIndex) or isinstance(frame.index, pd.MultiIndex):
        raise FrameCodecError("a frame with a MultiIndex cannot be sent; reset_index() it first")
    if frame.columns.has_duplicates:
        raise FrameCodecError("a frame with repeated column names cannot be sent; rename them")
    return {
        "index": _encode_index(frame.index),
        "columns": [[_label(name), _encode_values(frame[name])] for name in frame.columns],
        "columns_name": _label(frame.columns.name),
        "attrs": plain(frame.attrs),
    }


def decode(payload: Any) -> pd.DataFrame:
    """The frame `encode` made; FrameCodecError for anything else."""
    try:
        columns = payload["columns"]
        if not isinstance(columns, list) or len(columns) > MAX_COLUMNS:
            raise FrameCodecError(f"a frame has a list of at most {MAX_COLUMNS} columns")
        index = _decode_index(payload["index"])
        data = {}
        for name, values in columns:
            if not isinstance(name, str | int | float | bool) and name is not None:
                raise FrameCodecError("column names are strings or numbers")
            column = _decode_values(values)
            if len(column) != len(index):
                raise FrameCodecError("a column's length differs from the index's")
            data[name] = column
        frame = pd.DataFrame(data, index=index)
        if not columns:
            frame = pd.DataFrame(index=index)
        frame.columns.name = payload.get("columns_name")
        attrs = payload.get("attrs") or {}
        if not isinstance(attrs, dict):
            raise FrameCodecError("a frame's attrs are an object")
        frame.attrs.update(attrs)
        return frame
    except FrameCodecError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as error:
        raise FrameCodecError(f"not a frame of the dp channel ({type(error).__name__})") from None


def plain(value: Any) -> Any:
    """`value` (attrs) as JSON values: numpy scalars as numbers, dates as ISO text."""
    return json.loads(json.dumps(value, default=_default))


def _default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, datetime | date | pd.Timestamp):
        return value.isoformat()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _label(name: Any) -> Any:
    if name is None or isinstance(name, str | bool):
        return name
    if isinstance(name, np.generic):
        name = name.item()
    if isinstance(name, int) or (isinstance(name, float) and math.isfinite(name)):
        return name
    return str(name)


def _encode_index(index: pd.Index) -> dict[str, Any]:
    name = _label(index.name)
    if isinstance(index, pd.RangeIndex):
        return {"range": [index.start, index.stop, index.step], "name": name}
    return {"values": _encode_values(pd.Series(index)), "name": name}


def _decode_index(payload: dict[str, Any]) -> pd.Index:
    if "range" in payload:
        start, stop, step = (int(v) for v in payload["range"])
        if abs(stop - start) // max(abs(step), 1) > 100_000_000:
            raise FrameCodecError("an index range that long is not a frame of the dp channel")
        return pd.RangeIndex(start, stop, step, name=payload.get("name"))
    return pd.Index(_decode_values(payload["values"]), name=payload.get("name"))


def _encode_values(series: pd.Series) -> dict[str, Any]:
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in _RAW_KINDS:
        array = np.ascontiguousarray(series.to_numpy())
        data = base64.b64encode(array.astype(dtype.newbyteorder("<")).tobytes()).decode()
        return {"dtype": dtype.newbyteorder("<").str, "raw": data}
    if str(dtype) in _EXTENSION:
        values = series.astype(object).where(series.notna(), None).tolist()
        return {"dtype": str(dtype), "list": [_item(v) for v in values]}
    if isinstance(dtype, pd.DatetimeTZDtype):
        return {
            "dtype": str(dtype),
            "list": [None if pd.isna(v) else v.isoformat() for v in series],
        }
    return {"dtype": "object", "list": [_item(v) for v in series.tolist()]}


def _item(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, datetime | date | pd.Timestamp):
        return value.isoformat()
    return str(value)


def _decode_values(payload: dict[str, Any]) -> Any:
    dtype = str(payload["dtype"])
    if "raw" in payload:
        numpy_type = np.dtype(dtype)
        if numpy_type.kind not in _RAW_KINDS or numpy_type.hasobject:
            raise FrameCodecError(f"dtype {dtype!r} is not sent as bytes")
        raw = base64.b64decode(str(payload["raw"]), validate=True)
        if len(raw) % numpy_type.itemsize:
            raise FrameCodecError("a column's bytes do not fit its dtype")
        return np.frombuffer(raw, dtype=numpy_type).astype(numpy_type.newbyteorder("="))
    values = payload["list"]
    if not isinstance(values, list) or not all(
        v is None or isinstance(v, str | bool | int | float) for v in values
    ):
        raise FrameCodecError("a column's values are a list of plain values")
    if dtype == "object":
        array = np.empty(len(values), dtype=object)
        array[:] = values
        return array
    if dtype in _EXTENSION:
        return pd.array(values, dtype=dtype)
    if dtype.startswith("datetime64[") and ", " in dtype:  # timezone-aware
        return pd.DatetimeIndex(pd.to_datetime(values, utc=True)).tz_convert(
            dtype.split(", ", 1)[1].rstrip("]")
        )
    raise FrameCodecError(f"dtype {dtype!r} is not one the dp channel sends")
