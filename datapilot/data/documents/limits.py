"""Bounds on reading one document, so that a decompression bomb, or a document far too costly to
read, is refused within seconds and with bounded memory, by an error naming the limit and the
setting that raises it.

- Zip-based documents (XLSX, DOCX): the members' declared sizes and compression ratios are
  checked before a reader opens the archive (`zipfile` never inflates a member beyond the size
  it declares).
- PDF: every stream pdfminer decodes (page contents, forms, fonts, object and cross-reference
  streams, encrypted or not) is first inflated in bounded steps, its output counted and thrown
  away, so an oversized one is refused before pdfminer inflates it whole. Pages are counted up to
  the limit and a page's characters and shapes as it is read (see `reading.read_pdf`).
- Table cells and chunks are counted as they are made.
- The whole read runs under a wall-clock budget, checked as it goes: between pages, rows,
  chunks and streams, and every 256 objects a page draws. A parser can still spend long in one
  call of its own (pdfminer on a page of a million cheap operators, pdfplumber's table finder on
  a page of ten thousand rules), and none of them can be cancelled; so a read that reaches no
  check within `GRACE_S` after its budget is interrupted by an asynchronous exception in its
  thread (`PyThreadState_SetAsyncExc`), delivered only while that thread runs a parser's own
  code.
"""

from __future__ import annotations

import ctypes
import io
import os
import sys
import threading
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from datapilot.settings import Settings, get_settings

T = TypeVar("T")
RATIO_FLOOR = 1_000_000  # parts that inflate to less are not judged by their ratio
GRACE_S = 2.0  # after the budget, how long a read may run without a check before it is stopped
_STEP = 1 << 16  # bytes inflated at a time while measuring
_PARSERS = (  # the packages whose code a read may be interrupted in
    *("pdfminer", "pdfplumber", "openpyxl", "docx", "lxml"),
    *("datapilot.data.documents", "datapilot.knowledge"),
)


class DocumentError(ValueError):
    """A document that cannot be read; the message says why and what to do."""


class DocumentTooLarge(DocumentError):
    """A document over a reading limit; `setting` names the `Settings` field that sets it."""

    def __init__(self, message: str, setting: str) -> None:
        super().__init__(message)
        self.setting = setting


@dataclass(frozen=True)
class ReadLimits:
    """What reading one document may cost (from the `kb_*` settings)."""

    inflated_mb: float
    compression_ratio: float
    pages: int
    page_objects: int
    cells: int
    chunks: int
    seconds: float

    @classmethod
    def of(cls, settings: Settings) -> ReadLimits:
        return cls(
            inflated_mb=settings.kb_max_inflated_mb,
            compression_ratio=settings.kb_max_compression_ratio,
            pages=settings.kb_max_pages,
            page_objects=settings.kb_max_page_objects,
            cells=settings.kb_max_cells,
            chunks=settings.kb_max_chunks,
            seconds=settings.kb_read_timeout_s,
        )

    @classmethod
    def default(cls) -> ReadLimits:
        """The process-wide settings' limits."""
        return cls.of(get_settings())


class Reading:
    """One document being read: its limits, and what it has cost so far."""

    def __init__(self, name: str, limits: ReadLimits) -> None:
        self.name = name
        self.limits = limits
        self.inflated = 0
        self.cells = 0
        self._ends = time.monotonic() + limits.seconds

    def refuse(
        self, what: str, setting: str, limit: str, advice: str = "split it or raise the setting"
    ) -> NoReturn:
        raise DocumentTooLarge(
            f"{self.name} {what}, over DATAPILOT_{setting.upper()} ({limit}); {advice}", setting
        )

    def check_time(self) -> None:
        if time.monotonic() > self._ends:
            self.refuse_time()

    def refuse_time(self) -> NoReturn:
        seconds = f"{self.limits.seconds:g} s"
        self.refuse(f"took more than {seconds} to read", "kb_read_timeout_s", seconds)

    def count_cells(self, count: int) -> None:
        self.check_time()
        self.cells += count
        if self.cells > self.limits.cells:
            limit = self.limits.cells
            self.refuse(f"has more than {limit} table cells", "kb_max_cells", str(limit))

    def check_chunks(self, count: int) -> None:
        self.check_time()
        if count > self.limits.chunks:
            limit = self.limits.chunks
            self.refuse(f"cuts into more than {limit} chunks", "kb_max_chunks", str(limit))

    def check_page_objects(self, page: int, count: int) -> None:
        self.check_time()
        if count > self.limits.page_objects:
            limit = self.limits.page_objects
            self.refuse(
                f"has more than {limit} characters and shapes on page {page}",
                "kb_max_page_objects",
                str(limit),
            )

    def inflate(self, part: str, stored: int, pieces: Iterable[bytes]) -> None:
        """Count what `part` (`stored` bytes compressed) inflates to, piece by piece; refuse it
        as soon as it passes the ratio or the document's inflated total."""
        size = 0
        try:
            for piece in pieces:
                size += len(piece)
                self._check_inflated(part, stored, size)
                self.check_time()
        except _TooMuch:
            self._refuse_inflated()
        self.inflated += size

    def declare_inflated(self, part: str, stored: int, size: int) -> None:
        """Count a part whose inflated size is known (a zip member's)."""
        self._check_inflated(part, stored, size)
        self.inflated += size

    def inflated_room(self) -> int:
        return max(0, int(self.limits.inflated_mb * 1_000_000) - self.inflated)

    def _check_inflated(self, part: str, stored: int, size: int) -> None:
        ratio = self.limits.compression_ratio
        if size > RATIO_FLOOR and size > ratio * max(stored, 1):
            self.refuse(
                f"has a compressed part ({part}) that inflates more than {ratio:g} times its "
                f"{stored}-byte stored size",
                "kb_max_compression_ratio",
                f"{ratio:g}",
                "a decompression bomb? If the document is genuine, raise the setting",
            )
        if size > self.inflated_room():
            self._refuse_inflated()

    def _refuse_inflated(self) -> NoReturn:
        mb = self.limits.inflated_mb
        self.refuse(
            f"inflates to more than {mb:g} MB when read",
            "kb_max_inflated_mb",
            f"{mb:g} MB",
            "a decompression bomb? If the document is genuine, raise the setting",
        )


_CURRENT: ContextVar[Reading | None] = ContextVar("datapilot_document_reading", default=None)


def within(name: str, limits: ReadLimits | None, work: Callable[[Reading], T]) -> T:
    """`work` reading the document `name` under `limits` (default: the settings') and its time
    budget; inside a read already under way (a PDF read while parsing it), that read's."""
    current = _CURRENT.get()
    if current is not None:
        return work(current)
    reading = Reading(name, limits or ReadLimits.default())
    token = _CURRENT.set(reading)
    deadline = _Deadline(reading.limits.seconds + GRACE_S)
    try:
        try:
            deadline.arm()
            result = work(reading)
        finally:
            deadline.disarm()
    except _OutOfTime:
        pass
    except BaseException:
        if not deadline.fired:
            raise
    finally:
        while True:  # one more interruption may land here, before it is withdrawn
            try:
                deadline.disarm()
                _CURRENT.reset(token)
                break
            except _OutOfTime:
                continue
    if deadline.fired:  # raised, or turned into another error by the parser, or withdrawn
        reading.refuse_time()
    return result


class _OutOfTime(BaseException):
    """Raised asynchronously in a reading thread past its budget. A BaseException, so that
    parsers' `except Exception` clauses let it through."""


class _Deadline:
    """Interrupts the thread that arms it once `seconds` have passed, until it is disarmed; only
    while that thread runs a parser's own code (not a finalizer or a weakref callback run by
    the garbage collector there), and again while the read goes on (a parser may swallow it).
    Disarming withdraws an interruption that has not landed yet."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._thread = threading.get_ident()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._armed = False
        self.fired = False

    def arm(self) -> None:
        self._armed = True
        threading.Thread(target=self._watch, name="document-deadline", daemon=True).start()

    def disarm(self) -> None:
        self._stop.set()
        with self._lock:
            if self._armed and self.fired:
                _async_raise(self._thread, None)
            self._armed = False

    def _watch(self) -> None:
        pause = self._seconds
        while not self._stop.wait(pause):
            with self._lock:
                if not self._armed:
                    return
                if not _in_parser(self._thread):
                    pause = 0.005
                    continue
                self.fired = True
                _async_raise(self._thread, _OutOfTime)
            pause = 0.5


def _in_parser(thread: int) -> bool:
    """Whether `thread` is running code of a document parser (`_PARSERS`) right now."""
    frame = sys._current_frames().get(thread)
    if frame is None:
        return False
    roots = tuple(
        os.path.dirname(module.__file__) + os.sep
        for name in _PARSERS
        if (module := sys.modules.get(name)) is not None and module.__file__
    )
    return frame.f_code.co_filename.startswith(roots)


def _async_raise(thread: int, error: type[BaseException] | None) -> None:
    exception = None if error is None else ctypes.py_object(error)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), exception)


# ---- zip-based documents ----------------------------------------------------------------------


def check_zip(data: bytes, reading: Reading) -> None:
    """Refuse an archive whose members declare more than the limits allow, before it is opened
    (a broken archive is left to its reader to report)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        return
    with archive:
        for info in archive.infolist():
            reading.declare_inflated(info.filename, info.compress_size, info.file_size)


# ---- PDF streams --------------------------------------------------------------------------------


class _TooMuch(Exception):
    """A stage's whole input would pass the inflated limit."""


def guard_pdf_streams() -> None:
    """Make pdfminer measure each stream (`Reading.inflate`) before it decodes it, whenever a
    read is under way in the thread; elsewhere decoding is unchanged. Idempotent."""
    from pdfminer.pdftypes import PDFStream

    with _PATCH_LOCK:
        if getattr(PDFStream.decode, "measured", False):
            return
        decode = PDFStream.decode

        def measured_decode(stream: PDFStream) -> None:
            reading = _CURRENT.get()
            if reading is not None and stream.rawdata is not None:
                _measure(stream, reading)
            decode(stream)

        measured_decode.measured = True  # type: ignore[attr-defined]
        PDFStream.decode = measured_decode  # type: ignore[method-assign,assignment]


_PATCH_LOCK = threading.Lock()


def measure_pdf_streams(data: bytes, reading: Reading) -> None:
    """Measure every stream of the PDF `data` as pdfminer finds them (decrypted when it is
    encrypted), before another reader (pdfium) inflates them: a bomb is refused here. Raises
    pdfminer's errors for a file that is not a PDF or needs a password."""
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import PDFObjectNotFound, PDFStream

    guard_pdf_streams()  # object and cross-reference streams are measured as they are decoded
    document = PDFDocument(PDFParser(io.BytesIO(data)))
    seen: set[int] = set()
    for xref in document.xrefs:
        for objid in xref.get_objids():
            if objid in seen:
                continue
            seen.add(objid)
            reading.check_time()
            try:
                found = document.getobj(objid)
            except PDFObjectNotFound:
                continue
            if isinstance(found, PDFStream) and found.rawdata is not None:
                _measure(found, reading)


def _measure(stream: Any, reading: Reading) -> None:
    from pdfminer import pdftypes

    filters = [name for name, _ in stream.get_filters()]
    expanding = (
        *pdftypes.LITERALS_FLATE_DECODE,
        *pdftypes.LITERALS_LZW_DECODE,
        *pdftypes.LITERALS_RUNLENGTH_DECODE,
    )
    if not any(name in expanding for name in filters):
        return  # stored as is, or only in ASCII: no larger than the file
    data = stream.rawdata
    if stream.decipher and stream.objid is not None and stream.genno is not None:
        data = stream.decipher(stream.objid, stream.genno, data, stream.attrs)
    part = f"stream {stream.objid} {stream.genno} R" if stream.objid is not None else "a stream"
    reading.inflate(part, len(data), _decoded(data, filters, reading.inflated_room()))


def _decoded(data: bytes, filters: list[Any], room: int) -> Iterator[bytes]:
    """The stream's decoded bytes in pieces (as pdfminer decodes them), made as they are read.
    A stage that needs its whole input at once gets it only when it is within `room`."""
    from pdfminer import pdftypes
    from pdfminer.ascii85 import ascii85decode, asciihexdecode
    from pdfminer.lzw import LZWDecoder

    pieces: Iterator[bytes] = iter((data,))
    for name in filters:
        if name in pdftypes.LITERALS_FLATE_DECODE:
            pieces = _inflated(pieces)
        elif name in pdftypes.LITERALS_LZW_DECODE:
            pieces = LZWDecoder(io.BytesIO(_whole(pieces, room))).run()
        elif name in pdftypes.LITERALS_RUNLENGTH_DECODE:
            pieces = _run_length(_whole(pieces, room))
        elif name in pdftypes.LITERALS_ASCII85_DECODE:
            pieces = iter((ascii85decode(_whole(pieces, room)),))
        elif name in pdftypes.LITERALS_ASCIIHEX_DECODE:
            pieces = iter((asciihexdecode(_whole(pieces, room)),))
        else:
            break  # image codecs, which pdfminer leaves encoded
    yield from pieces


def _inflated(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """zlib-inflated `pieces`, at most `_STEP` bytes at a time; up to an error, like pdfminer."""
    inflater = zlib.decompressobj()
    for piece in pieces:
        while piece:
            try:
                out = inflater.decompress(piece, _STEP)
            except zlib.error:
                return
            yield out
            if inflater.eof:
                return
            piece = inflater.unconsumed_tail


def _whole(pieces: Iterable[bytes], room: int) -> bytes:
    joined = bytearray()
    for piece in pieces:
        joined += piece
        if len(joined) > room:
            raise _TooMuch
    return bytes(joined)


def _run_length(data: bytes) -> Iterator[bytes]:
    at = 0
    while at < len(data):
        length = data[at]
        if length == 128:
            return
        if length < 128:
            yield data[at + 1 : at + length + 2]
            at += length + 2
        else:
            yield data[at + 1 : at + 2] * (257 - length)
            at += 2
