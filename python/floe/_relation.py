"""Relation: one statement's answer, read once from an Arrow C stream and kept as an Arrow table.

A Relation's source is anything with __arrow_c_stream__ (the embedded engine's cursor, or a
pyarrow RecordBatchReader over a `floe serve` response). .reader() streams the batches without
keeping them; .arrow() reads them all into a pyarrow.Table and keeps it, so .df(), .pl(),
.fetchall() and a second .arrow() reuse it.
"""
import json

import pyarrow as pa

from ._errors import from_stream


class Relation:
    def __init__(self, source, columns=(), tag="", reads=(), profile=None):
        self._source = source
        self._table = None
        self.columns = list(columns)
        self._tag = tag  # a str, or a callable (a SELECT's tag is known once it was read)
        self.reads = list(reads)  # [(table, snapshot_id, written)]: the snapshots read
        self._profile = profile

    @property
    def tag(self):
        """The command tag: "SELECT 3", "INSERT 0 5", "CREATE TABLE"."""
        return self._tag() if callable(self._tag) else self._tag

    def reader(self):
        """The rows as a pyarrow.RecordBatchReader (streaming; the relation is consumed)."""
        if self._table is not None:
            return pa.RecordBatchReader.from_batches(self._table.schema, self._table.to_batches())
        if self._source is None:
            raise ValueError("floe: this relation was already streamed by reader()")
        src, self._source = self._source, None
        if isinstance(src, pa.RecordBatchReader):
            return src
        return pa.RecordBatchReader.from_stream(src)

    def arrow(self):
        """The rows as a pyarrow.Table (kept: later calls return the same table)."""
        if self._table is None:
            reader = self.reader()
            try:
                self._table = reader.read_all()
            except (OSError, pa.ArrowException) as e:  # the engine failed mid-stream
                raise from_stream(e) from None
        return self._table

    def df(self):
        """The rows as a pandas.DataFrame."""
        return self.arrow().to_pandas()

    def pl(self):
        """The rows as a polars.DataFrame (polars adopts the Arrow buffers)."""
        import polars as pl
        return pl.from_arrow(self.arrow())

    def fetchall(self):
        """The rows as a list of tuples."""
        t = self.arrow()
        cols = [c.to_pylist() for c in t.columns]
        return list(zip(*cols)) if cols else [() for _ in range(t.num_rows)]

    def profile(self):
        """EXPLAIN ANALYZE text of the plan with the counters of this run (embedded only)."""
        return self._profile() if callable(self._profile) else self._profile

    def __arrow_c_stream__(self, requested_schema=None):
        return self.arrow().__arrow_c_stream__(requested_schema)

    def __len__(self):
        return self.arrow().num_rows

    def __repr__(self):
        t = self.arrow()
        return f"<floe.Relation {t.num_rows} rows x {t.num_columns} columns>\n{t.slice(0, 10)}"


class MetricsAnswer(Relation):
    """A metrics query's rows, with the receipt: model version, compiled SQL, snapshots read."""

    def __init__(self, source, columns=(), tag="", reads=(), receipt=None):
        super().__init__(source, columns, tag, reads)
        self.receipt = json.loads(receipt) if isinstance(receipt, str) else (receipt or {})

    @property
    def sql(self):
        return self.receipt.get("sql")
