"""The sides of :func:`pyfathom.columnar.run_columnar_batch` that are text,
so that every input format reaches every output format:

- :class:`TextSource`: a FEN/EPD text file (compressed or not) read as
  record batches of two columns, ``fen`` (each position line as written,
  blanks around it cut; blank and comment lines give no row) and ``line``
  (its line number), so a text file can be written as Parquet or Arrow;
- :class:`TextSink`: CSV or JSON lines written from the record batches of a
  Parquet or Arrow input (its columns, then ``wdl``, ``dtz``, ``status``).

Both have the interface of the columnar file source and sink they stand in
for; outputs go through :class:`pyfathom._files.output.Output`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

# The text reader of `pyfathom batch` (chunks of lines, blank and comment
# lines skipped) is the one text reader: columnar's text side reuses it.
from pyfathom._files import line_chunks
from pyfathom._files.output import Output
from pyfathom._files.text_input import BinaryInputError, open_text_input
from pyfathom._files.columnar_files import ColumnarError

__all__ = ["TextSource", "TextSink"]


class TextSource:
    """A FEN/EPD text input as Arrow record batches (``fen``, ``line``)."""

    def __init__(self, pa: Any, path: str, batch_rows: int) -> None:
        self.pa = pa
        self.path = path
        self.batch_rows = batch_rows
        self.total_rows = 0  # unknown until read
        self.schema = pa.schema([pa.field("fen", pa.string()), pa.field("line", pa.int64())])
        try:
            self._input = open_text_input(path, "FEN/EPD text")
        except BinaryInputError as e:
            raise ColumnarError(str(e)) from None
        except OSError as e:
            raise ColumnarError(f"cannot read {path}: {e.strerror or e}") from None

    def batches(self) -> Iterator[Any]:
        pa = self.pa
        for chunk in line_chunks.read_chunks(self._input.stream, self.batch_rows):
            keep = np.flatnonzero(~line_chunks.skipped_lines(chunk))
            if not len(keep):
                continue
            texts = []
            for i in keep.tolist():
                off = int(chunk.offsets[i])
                texts.append(chunk.data[off:off + int(chunk.lengths[i])]
                             .decode("utf-8", "replace").strip())
            lines = (keep + chunk.first_line).astype(np.int64)
            yield pa.RecordBatch.from_arrays([pa.array(texts, pa.string()), pa.array(lines)],
                                             schema=self.schema)

    def close(self) -> None:
        self._input.close()


class TextSink:
    """CSV or JSON lines from record batches (the status dictionary written
    as its strings, nulls as empty CSV fields or JSON null)."""

    def __init__(self, pa: Any, path: str, fmt: str, schema: Any) -> None:
        self.pa = pa
        self.path = path
        self.fmt = fmt
        try:
            self._output = Output(path, binary=True)
        except OSError as e:
            raise ColumnarError(f"cannot write {path}: {e.strerror or e}") from None
        self._csv: Any = None
        if fmt == "csv":
            import pyarrow.csv

            plain = pa.schema([self._plain_field(f) for f in schema])
            self._csv = pyarrow.csv.CSVWriter(self._output.file, plain)

    def _plain_field(self, field: Any) -> Any:
        pa = self.pa
        if pa.types.is_dictionary(field.type):
            return pa.field(field.name, field.type.value_type)
        return field

    def write(self, batch: Any) -> None:
        pa = self.pa
        columns = [c.dictionary_decode() if pa.types.is_dictionary(c.type) else c
                   for c in batch.columns]
        plain = pa.RecordBatch.from_arrays(columns, names=batch.schema.names)
        if self._csv is not None:
            self._csv.write_batch(plain)
            return
        text = "".join(json.dumps(row, default=_json_value) + "\n" for row in plain.to_pylist())
        self._output.file.write(text.encode("utf-8"))

    def commit(self) -> None:
        if self._csv is not None:
            self._csv.close()
        self._output.commit()

    def abort(self) -> None:
        if self._csv is not None:
            try:
                self._csv.close()
            except Exception:  # already failing: the temporary file goes anyway
                pass
        self._output.discard()


def _json_value(value: Any) -> Any:
    """Arrow values JSON has no type for: bytes as text, the rest as str."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
