"""Arrow, Parquet and pandas in and out of the batch probes.

Two ways in:

- :func:`probe_columns`: a pyarrow ``Table`` / ``RecordBatch``, a pandas
  ``DataFrame``, or a single column of FENs (pyarrow array, pandas
  ``Series``) in; the result columns ``wdl``, ``dtz`` (with ``dtz=True``) and
  ``status`` out, in the same kind of container.
- ``pyfathom batch FILE.parquet -o OUT.parquet`` (or Arrow IPC files,
  ``.arrow`` / ``.feather`` / ``.arrows``): the input's columns plus the result
  columns, streamed a record batch at a time, so memory stays flat whatever
  the file size (:func:`run_columnar_batch`).

The positions are a string column of FENs or EPD lines (``fen`` unless
named otherwise), parsed by the core's C FEN parser straight from Arrow's
string buffer, or the ten columns of
:meth:`pyfathom.Tablebase.probe_wdl_bitboards` (``white``, ``black``,
``kings``, ``queens``, ``rooks``, ``bishops``, ``knights``, ``pawns``: 64-bit
bitboards, ``ep``: en-passant square 0..63 with 0 for none, ``turn``: 1 for
white).  Rows are probed with the batch calls (GIL released); no
python-chess board is built.

Result columns: ``wdl`` (int8) and ``dtz`` (int16) are null where a row
could not be probed; ``status`` (dictionary of strings) is one of
``pyfathom.batch_files.STATUS_NAMES``: ``ok``, ``invalid_fen``, ``castling``,
``too_many_pieces``, ``missing_table``, ``invalid_position``,
``corrupt_table``, ``failed``, ``line_too_long``.  Rows of the bitboard
layout with a null, an ``ep`` outside 0..63 or a ``turn`` other than 0/1 are
``invalid_position``.

pyarrow comes with the ``arrow`` extra (``pip install "pyfathom-syzygy[arrow]"``);
without it every function here raises :class:`MissingExtraError`, which says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._files.batch_core import (MAX_LINE, BatchStats, Chunk, Parsed, Pipeline, ProbedChunk, parse_chunk,
                                probe_parsed, run_pipeline)
# The formats, errors and files (pyfathom._files.columnar_files), named here too.
from ._files.columnar_files import COLUMNAR_FORMATS as COLUMNAR_FORMATS
from ._files.columnar_files import FORMAT_NAMES as FORMAT_NAMES
from ._files.columnar_files import ColumnarError, MissingExtraError, _arrow_message, _Sink, _Source
from ._files.columnar_files import format_of
from ._files.columnar_files import require_pyarrow as require_pyarrow
from ._files.output import output_over_input
from ._types import FAILED, FAILED_DTZ, STATUS_NAME_OF_CODE, STATUS_NAMES, Status
from .batch_files import CHUNK_LINES

if TYPE_CHECKING:
    from ._files.format_bridge import TextSink, TextSource

__all__ = [
    "BITBOARD_COLUMNS",
    "MissingExtraError",
    "ColumnarError",
    "probe_columns",
    "run_columnar_batch",
    "format_of",
]

BITBOARD_COLUMNS = ("white", "black", "kings", "queens", "rooks", "bishops", "knights",
                    "pawns", "ep", "turn")
"""The bitboard layout's columns, in the order of ``probe_wdl_bitboards``."""

# --- turning Arrow columns into probed rows -------------------------------------


@dataclass
class _Layout:
    """Where the positions are in a schema: a FEN column, or the bitboard columns."""

    fen_column: str | None  # None: the bitboard layout

    def columns(self) -> list[str]:
        return [self.fen_column] if self.fen_column is not None else list(BITBOARD_COLUMNS)


def _layout(names: Sequence[str], fen_column: str, where: str) -> _Layout:
    if fen_column in names:
        return _Layout(fen_column)
    missing = [c for c in BITBOARD_COLUMNS if c not in names]
    if not missing:
        return _Layout(None)
    shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    raise ColumnarError(
        f"{where}: no FEN column {fen_column!r} (choose another with --fen-column / fen_column=) "
        f"and not the bitboard layout (missing {', '.join(missing)}); its columns: {shown or 'none'}")


def _plain_strings(pa: Any, column: Any, name: str) -> Any:
    """A string/binary array with offsets (string views and dictionaries decoded)."""
    t = column.type
    if pa.types.is_dictionary(t):
        column = column.dictionary_decode()
        t = column.type
    is_view = getattr(pa.types, "is_string_view", None)  # pyarrow >= 16
    if is_view is not None and (is_view(t) or pa.types.is_binary_view(t)):
        column = column.cast(pa.large_string() if is_view(t) else pa.large_binary())
        t = column.type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)
            or pa.types.is_binary(t) or pa.types.is_large_binary(t)):
        raise ColumnarError(f"column {name!r} holds {t}, not strings of FENs")
    return column


def _text_chunk(pa: Any, column: Any, name: str, first_row: int) -> tuple[Chunk, np.ndarray]:
    """The rows of a string column as a batch_files Chunk (the C parser reads the
    bytes as they are), and which rows are null."""
    column = _plain_strings(pa, column, name)
    n = len(column)
    large = pa.types.is_large_string(column.type) or pa.types.is_large_binary(column.type)
    _, offsets_buffer, data_buffer = column.buffers()
    if n == 0:
        empty = np.zeros(0, dtype=np.uintp)
        return Chunk(first_row, b"", empty, empty, np.zeros(0, dtype=bool), 0), np.zeros(0, dtype=bool)
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if large else np.int32,
                            count=column.offset + n + 1)[column.offset:].astype(np.int64)
    start, stop = int(offsets[0]), int(offsets[-1])
    data = data_buffer.slice(start, stop - start).to_pybytes() if data_buffer is not None else b""
    relative = offsets - start
    lengths = np.diff(relative)
    nulls = column.is_null().to_numpy(zero_copy_only=False) if column.null_count else np.zeros(n, dtype=bool)
    lengths[nulls] = 0
    too_long = lengths > MAX_LINE
    lengths = np.minimum(lengths, MAX_LINE)
    chunk = Chunk(first_row, data, relative[:-1].astype(np.uintp), lengths.astype(np.uintp),
                  too_long, stop - start)
    return chunk, nulls


def _bitboard_parsed(pa: Any, batch: Any, first_row: int) -> tuple[Chunk, Parsed, dict[int, str]]:
    """The bitboard columns as a Parsed chunk; rows with a null or an out of
    range ep/turn are returned with their reason (and empty masks)."""
    n = batch.num_rows
    bad: dict[int, str] = {}
    arrays: dict[str, np.ndarray] = {}
    for name in BITBOARD_COLUMNS:
        column = batch.column(name)
        t = column.type
        small = name in ("ep", "turn")
        # ep / turn may come as floats from pandas (a column with a NaN in it).
        if not (pa.types.is_integer(t) or (small and (pa.types.is_boolean(t) or pa.types.is_floating(t)))):
            raise ColumnarError(f"column {name!r} holds {t}, not integers")
        if column.null_count:
            nulls = column.is_null().to_numpy(zero_copy_only=False)
            for i in np.flatnonzero(nulls)[:n].tolist():
                bad.setdefault(i, f"{name} is null")
            column = column.fill_null(0)
        values = column.to_numpy(zero_copy_only=False)
        if small:
            top = 63 if name == "ep" else 1
            if values.dtype == np.uint64:
                out_of_range = values > top
            else:
                wide = values.astype(np.float64 if values.dtype.kind == "f" else np.int64)
                out_of_range = (wide < 0) | (wide > top) | (wide != np.floor(wide))
            for i in np.flatnonzero(out_of_range).tolist():
                bad.setdefault(i, f"{name} {values[i]} is not in 0..{top}")
            arrays[name] = np.where(out_of_range, 0, values).astype(np.uint8)
        else:
            if values.dtype.itemsize == 8:
                values = values.view(np.uint64)  # int64 holds the same 64 bits
            arrays[name] = np.ascontiguousarray(values.astype(np.uint64, copy=False))
    status = np.zeros(n, dtype=np.int8)
    if bad:
        rows = np.fromiter(bad, dtype=np.intp)
        for name in BITBOARD_COLUMNS[:8]:
            arrays[name] = arrays[name].copy()
            arrays[name][rows] = 0
    zeros = np.zeros(n, dtype=np.uintp)
    parsed = Parsed({name: arrays[name] for name in BITBOARD_COLUMNS[:8]}, arrays["ep"],
                    arrays["turn"], np.zeros(n, dtype=np.uint8), zeros, zeros, status)
    chunk = Chunk(first_row, b"", zeros, zeros, np.zeros(n, dtype=bool), 0)
    return chunk, parsed, bad


@dataclass
class ProbedRows:
    """One probed slice of rows: the results and how to explain bad rows."""

    probed: ProbedChunk
    bad_reasons: dict[int, str]  # reasons decided before probing (nulls, ranges)
    layout: _Layout
    batch: Any  # the input record batch (its columns are written back)

    @property
    def first_row(self) -> int:
        return self.probed.chunk.first_line

    def __len__(self) -> int:
        return len(self.probed.status)

    def reason(self, i: int) -> str:
        return self.bad_reasons.get(i) or self.probed.reason(i)

    def row_text(self, i: int) -> str:
        if self.layout.fen_column is not None:
            return self.probed.line_text(i)
        # The row as it came in (the masks of a refused row were emptied);
        # ep and turn first, as messages cut long texts.
        names = ["ep", "turn"] + list(BITBOARD_COLUMNS[:8])
        row = self.batch.select(names).slice(i, 1).to_pylist()[0]
        return " ".join(f"{name}={value:#x}" if isinstance(value, int) and name not in ("ep", "turn")
                        else f"{name}={value}" for name, value in row.items())


def _probe_batch(pa: Any, tb: Any, batch: Any, layout: _Layout, first_row: int, *,
                 dtz: bool, threads: int | None) -> ProbedRows:
    if layout.fen_column is not None:
        chunk, nulls = _text_chunk(pa, batch.column(layout.fen_column), layout.fen_column, first_row)
        # probe_parsed, not probe_chunk: an empty or "#" string is a bad row
        # here (invalid_fen), not a skipped line.
        probed = probe_parsed(tb, chunk, parse_chunk(chunk), dtz=dtz, threads=threads)
        reasons = {i: f"{layout.fen_column} is null" for i in np.flatnonzero(nulls).tolist()}
    else:
        chunk, parsed, reasons = _bitboard_parsed(pa, batch, first_row)
        probed = probe_parsed(tb, chunk, parsed, dtz=dtz, threads=threads)
        if reasons:
            probed.status[np.fromiter(reasons, dtype=np.intp)] = Status.INVALID_POSITION
    return ProbedRows(probed, reasons, layout, batch)


def _result_arrays(pa: Any, rows: ProbedRows, dtz: bool) -> list[Any]:
    """wdl, [dtz,] status as Arrow arrays (nulls where a value is missing)."""
    probed = rows.probed
    arrays = [_with_nulls(pa, pa.int8(), probed.wdl, FAILED)]
    if dtz:
        assert probed.dtz is not None
        arrays.append(_with_nulls(pa, pa.int16(), probed.dtz, FAILED_DTZ))
    codes = pa.Array.from_buffers(pa.int8(), len(probed.status),
                                  [None, pa.py_buffer(_NAME_INDEX_OF_CODE[probed.status])])
    arrays.append(pa.DictionaryArray.from_arrays(codes, _status_names(pa)))
    return arrays


# A row's status code -> the position of its name in STATUS_NAMES, the
# dictionary of the status column.
# (Only text lines are ever "skipped", which is not a row status: never here.)
_NAME_INDEX_OF_CODE = np.array([STATUS_NAMES.index(name) if name in STATUS_NAMES else -1
                                for name in STATUS_NAME_OF_CODE], dtype=np.int8)


def _status_names(pa: Any) -> Any:
    """STATUS_NAMES as an Arrow string array, built from buffers: ``pa.array``
    of a list imports pandas (over a second and ~50 MB in the batch command)."""
    data = "".join(STATUS_NAMES).encode()
    offsets = np.cumsum([0] + [len(name) for name in STATUS_NAMES], dtype=np.int32)
    return pa.Array.from_buffers(pa.string(), len(STATUS_NAMES),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _with_nulls(pa: Any, arrow_type: Any, values: np.ndarray, failed: int) -> Any:
    """An Arrow array over a numpy array, null where it holds ``failed``.
    Built from buffers, as :func:`_status_names`."""
    missing = values == failed
    validity = None
    if missing.any():
        validity = pa.py_buffer(np.packbits(~missing, bitorder="little"))
    return pa.Array.from_buffers(arrow_type, len(values), [validity, pa.py_buffer(values)],
                                 null_count=int(missing.sum()))


def _result_fields(pa: Any, dtz: bool) -> list[Any]:
    fields = [pa.field("wdl", pa.int8())]
    if dtz:
        fields.append(pa.field("dtz", pa.int16()))
    fields.append(pa.field("status", pa.dictionary(pa.int8(), pa.string())))
    return fields


# --- the Python API -------------------------------------------------------------------


def probe_columns(tb: Any, data: Any, *, fen_column: str = "fen", dtz: bool = False,
                  threads: int | None = None) -> Any:
    """Probe every row of a pyarrow Table / RecordBatch, a pandas DataFrame,
    or one column of FENs (a pyarrow Array / ChunkedArray or a pandas Series).

    The positions are the ``fen_column`` column (FEN or EPD strings, parsed
    in C) or, without it, the bitboard columns (:data:`BITBOARD_COLUMNS`).
    Returns the result columns ``wdl``, ``dtz`` (with ``dtz=True``) and
    ``status``, row for row: a pyarrow Table (RecordBatch for a RecordBatch)
    for Arrow input, a DataFrame with the input's index for pandas input
    (``wdl``/``dtz`` as nullable ``Int8``/``Int16``, ``status`` categorical).
    Bad rows get a null value and their status; they never raise.

    >>> import pyarrow as pa
    >>> from pyfathom.columnar import probe_columns
    >>> with pyfathom.open_tablebase(TABLES) as tb:
    ...     fens = pa.table({"fen": ["8/8/8/8/8/8/2Rk4/1K6 b - - 0 1", "not a fen",
    ...                              "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"]})
    ...     result = probe_columns(tb, fens, dtz=True)
    >>> result.to_pydict()
    {'wdl': [-2, None, None], 'dtz': [-32, None, None], 'status': ['ok', 'invalid_fen', 'castling']}
    """
    pa = require_pyarrow()
    kind = type(data).__module__.split(".")[0]
    if kind == "pandas":
        return _probe_pandas(pa, tb, data, fen_column=fen_column, dtz=dtz, threads=threads)
    if isinstance(data, (pa.Array, pa.ChunkedArray)):
        return probe_columns(tb, pa.table({fen_column: data}), fen_column=fen_column, dtz=dtz,
                             threads=threads)
    if isinstance(data, pa.RecordBatch):
        table = probe_columns(tb, pa.Table.from_batches([data]), fen_column=fen_column, dtz=dtz,
                              threads=threads)
        return pa.RecordBatch.from_arrays([c.combine_chunks() for c in table.columns],
                                          schema=table.schema)
    if not isinstance(data, pa.Table):
        raise TypeError(f"probe_columns takes a pyarrow Table, RecordBatch or Array or a pandas "
                        f"DataFrame or Series, not {type(data).__name__}")
    layout = _layout(data.column_names, fen_column, "the table")
    schema = pa.schema(_result_fields(pa, dtz))
    batches = []
    done = 0
    for batch in data.select(layout.columns()).to_batches(max_chunksize=CHUNK_LINES):
        rows = _probe_batch(pa, tb, batch, layout, done, dtz=dtz, threads=threads)
        batches.append(pa.RecordBatch.from_arrays(_result_arrays(pa, rows, dtz), schema=schema))
        done += batch.num_rows
    return pa.Table.from_batches(batches, schema=schema)


def _probe_pandas(pa: Any, tb: Any, data: Any, *, fen_column: str, dtz: bool,
                  threads: int | None) -> Any:
    import pandas as pd

    if isinstance(data, pd.Series):
        data = data.to_frame(fen_column)
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame or Series, not {type(data).__name__}")
    layout = _layout([str(c) for c in data.columns], fen_column, "the DataFrame")
    columns = {name: pa.array(data[name], from_pandas=True) for name in layout.columns()}
    result = probe_columns(tb, pa.table(columns), fen_column=fen_column, dtz=dtz, threads=threads)
    return result_frame(result, data.index)


def result_frame(result: Any, index: Any) -> Any:
    """A pandas DataFrame of the result columns of :func:`probe_columns`
    (nullable Int8/Int16, categorical status with every status name)."""
    import pandas as pd

    out = {}
    for name in result.column_names:
        column = result.column(name).combine_chunks()
        if name == "status":
            codes = column.indices.to_numpy(zero_copy_only=False)
            out[name] = pd.Categorical.from_codes(codes, categories=list(STATUS_NAMES))
        else:
            values = column.fill_null(0).to_numpy(zero_copy_only=False)
            mask = column.is_null().to_numpy(zero_copy_only=False)
            out[name] = pd.arrays.IntegerArray(values, mask)
    return pd.DataFrame(out, index=index)


def output_schema(pa: Any, schema: Any, dtz: bool, path: str) -> Any:
    """The input's schema plus the result columns (refusing a name clash)."""
    for name in ("wdl", "dtz", "status") if dtz else ("wdl", "status"):
        if name in schema.names:
            raise ColumnarError(f"{path} already has a column {name!r}, which the results would "
                                f"replace; rename or drop it first")
    return pa.schema(list(schema) + _result_fields(pa, dtz), metadata=schema.metadata)


# The keyword options are pyfathom.batch_files.run_batch's (see the comment
# there: one loop, two public signatures).
def run_columnar_batch(
    tb: Any,
    input_path: str,
    output_path: str,
    *,
    input_format: str,
    output_format: str,
    fen_column: str = "fen",
    dtz: bool = False,
    threads: int | None = None,
    strict: bool = False,
    batch_rows: int = CHUNK_LINES,
    on_bad: Callable[[int, str, str], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BatchStats:
    """Probe every row of a Parquet / Arrow IPC file and write the input's
    columns plus the results to another; either side may also be text
    (``input_format="text"``: a FEN/EPD file; ``output_format`` ``csv`` or
    ``jsonl``), see :mod:`pyfathom._files.format_bridge`.

    Read, probed and written ``batch_rows`` rows at a time; while one slice
    is written the next is read and probed in a worker thread, so at most two
    slices are in memory.  ``on_bad(row, text, reason)`` is called for each
    bad row (0-based row number), ``progress(rows_done, total_rows)`` after
    each slice (total 0 when unknown).  With strict, the run stops at the
    first bad row; the rows before it are written.
    """
    pa = require_pyarrow()
    refusal = output_over_input(input_path, output_path, "the output")
    if refusal is not None:
        raise ColumnarError(refusal)
    from ._files.format_bridge import TextSink, TextSource

    # Text on either side (pyfathom._files.format_bridge): every format to every format.
    source = (TextSource(pa, input_path, batch_rows) if input_format == "text"
              else _Source(pa, input_path, input_format, batch_rows))
    try:
        layout = _layout(source.schema.names, fen_column if input_format != "text" else "fen",
                         input_path)
        schema = output_schema(pa, source.schema, dtz, input_path)
        sink = (TextSink(pa, output_path, output_format, schema)
                if output_format in ("csv", "jsonl")
                else _Sink(pa, output_path, output_format, schema))
        try:
            stats = _stream(pa, tb, source, sink, schema, layout, dtz=dtz, threads=threads,
                            strict=strict, on_bad=on_bad, progress=progress)
        except BaseException:
            sink.abort()
            raise
        sink.commit()
        return stats
    finally:
        source.close()


def _stream(pa: Any, tb: Any, source: _Source | TextSource, sink: _Sink | TextSink, schema: Any,
            layout: _Layout, *,
            dtz: bool, threads: int | None, strict: bool,
            on_bad: Callable[[int, str, str], None] | None,
            progress: Callable[[int, int], None] | None) -> BatchStats:
    batches = source.batches()
    done = 0

    def next_rows() -> ProbedRows | None:
        nonlocal done
        try:
            batch = next(batches, None)
        except (OSError, pa.ArrowException) as e:
            raise ColumnarError(f"cannot read {source.path}: {_arrow_message(e)}") from None
        if batch is None:
            return None
        rows = _probe_batch(pa, tb, batch, layout, done, dtz=dtz, threads=threads)
        done += batch.num_rows
        return rows

    def write(rows: ProbedRows, upto: int) -> None:
        batch = rows.batch if upto == len(rows) else rows.batch.slice(0, upto)
        results = [a.slice(0, upto) for a in _result_arrays(pa, rows, dtz)]
        try:
            sink.write(pa.RecordBatch.from_arrays(list(batch.columns) + results, schema=schema))
        except (OSError, pa.ArrowException) as e:
            raise ColumnarError(f"cannot write {sink.path}: {_arrow_message(e)}") from None

    def after(rows: ProbedRows, stats: BatchStats) -> None:
        if progress is not None:
            progress(stats.lines, source.total_rows)

    return run_pipeline(Pipeline(
        next_rows, lambda rows: rows.probed, write,
        lambda rows, i: (rows.first_row + i, rows.row_text(i), rows.reason(i)), after),
        strict=strict, on_bad=on_bad, thread_name="pyfathom-columnar")

