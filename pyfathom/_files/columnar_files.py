"""The columnar files of :mod:`pyfathom.columnar`: formats by suffix, the
errors, pyarrow as an extra, and the Parquet / Arrow IPC files read a record
batch at a time and written through :class:`pyfathom._files.output.Output`."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

# Suffix -> format. "arrow" is Arrow IPC: the file format, or the stream
# format for ".arrows" (the suffix decides how it is written; reading tries both).
_SUFFIX_FORMATS = {
    ".parquet": "parquet", ".pq": "parquet",
    ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow", ".arrows": "arrow",
    ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
}
COLUMNAR_FORMATS = ("parquet", "arrow")
FORMAT_NAMES = {"parquet": "Parquet", "arrow": "Arrow IPC"}


def format_of(path: str, default: str) -> str:
    """The format a path's suffix names (``parquet``, ``arrow``, ``csv``,
    ``jsonl``), else ``default``.

    >>> format_of("labels.parquet", "text"), format_of("x.FEN", "text"), format_of("o.arrows", "csv")
    ('parquet', 'text', 'arrow')
    """
    return _SUFFIX_FORMATS.get(os.path.splitext(path)[1].lower(), default)

ARROW_EXTRA = 'pip install "pyfathom-syzygy[arrow]"'

class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra."""


class ColumnarError(ValueError):
    """A columnar input or output that cannot be used (missing column, wrong
    type, unreadable file); the message names the file or the column."""


def require_pyarrow() -> Any:
    """The pyarrow module, or :class:`MissingExtraError` naming the extra."""
    try:
        import pyarrow
    except ImportError as e:
        raise MissingExtraError(
            f"Arrow and Parquet support needs pyarrow, which is not installed: {ARROW_EXTRA}"
        ) from e
    return pyarrow


def _slices(batch: Any, rows: int) -> Iterator[Any]:
    if batch.num_rows <= rows:
        yield batch
        return
    for start in range(0, batch.num_rows, rows):
        yield batch.slice(start, rows)


class _Source:
    """A columnar input file read a record batch at a time."""

    def __init__(self, pa: Any, path: str, fmt: str, batch_rows: int) -> None:
        self.path = path
        self.batch_rows = batch_rows
        self.total_rows = 0
        self._closers: list[Any] = []
        try:
            if fmt == "parquet":
                import pyarrow.parquet as pq

                # Buffered reads: a row group's column chunk is read page by page,
                # not whole (tens of MB for a million rows of distinct FENs).
                parquet = pq.ParquetFile(path, buffer_size=1 << 20)
                self._closers.append(parquet)
                self.schema = parquet.schema_arrow
                self.total_rows = parquet.metadata.num_rows
                # One row group at a time: iter_batches over the whole file keeps
                # what it read (pyarrow 26: 212 MB of Arrow memory after 10 million
                # distinct FENs, against 32 MB flat this way).
                self._reader: Callable[[], Iterator[Any]] = lambda: (
                    batch for group in range(parquet.num_row_groups)
                    for batch in parquet.iter_batches(batch_rows, row_groups=[group]))
            elif path == "-":
                stream = pa.ipc.open_stream(sys.stdin.buffer)
                self.schema = stream.schema
                self._reader = lambda: iter(stream)
            else:
                self._open_ipc(pa, path)
        except (OSError, pa.ArrowException) as e:
            self.close()
            raise ColumnarError(f"cannot read {path} as {FORMAT_NAMES[fmt]}: {_arrow_message(e)}") from None

    def _open_ipc(self, pa: Any, path: str) -> None:
        source = pa.OSFile(path, "rb")
        self._closers.append(source)
        try:
            ipc_file = pa.ipc.open_file(source)
        except pa.ArrowInvalid:
            # Not the file format (no ARROW1 footer): the stream format.
            source.seek(0)
            stream = pa.ipc.open_stream(source)
            self.schema = stream.schema
            self._reader = lambda: iter(stream)
            return
        self.schema = ipc_file.schema  # total_rows stays 0: counting reads every batch
        self._reader = lambda: (ipc_file.get_batch(i) for i in range(ipc_file.num_record_batches))

    def batches(self) -> Iterator[Any]:
        for batch in self._reader():
            yield from _slices(batch, self.batch_rows)

    def close(self) -> None:
        for item in self._closers:
            try:
                item.close()
            except Exception:  # closing a reader that failed to open
                pass
        self._closers.clear()




def _arrow_message(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


class _Sink:
    """A columnar output through :class:`pyfathom._files.output.Output`: a regular
    file appears under its name only when complete, a device, FIFO or
    stdout is written directly."""

    def __init__(self, pa: Any, path: str, fmt: str, schema: Any) -> None:
        from pyfathom._files.output import Output

        self.path = path
        try:
            self._output = Output(path, binary=True)
        except OSError as e:
            raise ColumnarError(f"cannot write {path}: {e.strerror or e}") from None
        try:
            if fmt == "parquet":
                import pyarrow.parquet as pq

                self._writer = pq.ParquetWriter(self._output.file, schema)
            else:
                stream = os.path.splitext(path)[1].lower() == ".arrows"
                self._writer = (pa.ipc.new_stream if stream else pa.ipc.new_file)(
                    self._output.file, schema)
        except (OSError, pa.ArrowException) as e:
            self.abort()
            raise ColumnarError(f"cannot write {path}: {_arrow_message(e)}") from None

    def write(self, batch: Any) -> None:
        self._writer.write_batch(batch)

    def commit(self) -> None:
        self._writer.close()
        self._output.commit()

    def abort(self) -> None:
        writer = getattr(self, "_writer", None)
        if writer is not None:
            try:
                writer.close()
            except Exception:  # already failing: the temporary file goes anyway
                pass
        self._output.discard()
