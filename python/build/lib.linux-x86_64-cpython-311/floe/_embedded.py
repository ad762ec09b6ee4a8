"""The embedded connection: libfloe's engine in this process (floe._native).

One Connection is one engine session (include/floe/sql.h): settings (SET), the default namespace
and the statement's snapshots belong to it. It is used by one thread at a time; cancel() may be
called from any thread. Parameters are $1, $2, ... (PostgreSQL's style); values are None, bool,
int, float, str and bytes, and dates, times, datetimes, decimals and UUIDs travel as their ISO
text, which the engine casts to the parameter's inferred type.
"""
import datetime
import decimal
import uuid

from . import _native
from ._errors import from_native
from ._relation import MetricsAnswer, Relation


def _param(v):
    if isinstance(v, (datetime.date, datetime.time, datetime.datetime)):
        return v.isoformat(sep=" ") if isinstance(v, datetime.datetime) else v.isoformat()
    if isinstance(v, (decimal.Decimal, uuid.UUID)):
        return str(v)
    return v


def _params(params):
    return None if params is None else [_param(v) for v in params]


class Metrics:
    """con.metrics: the semantic layer (docs/semantic.md) over the connection's tables."""

    def __init__(self, conn, models):
        self._conn = conn
        self.models = models

    def query(self, metrics, dimensions=(), where=(), order_by=(), limit=None, as_of=None):
        """Runs a metrics query: metrics=["net_revenue"], dimensions=["metric_time__month"],
        where=["{{ Dimension('customer__region') }} = 'EU'"], order_by=["-net_revenue"]."""
        try:
            r = self._conn._session.metrics(self.models, list(metrics), list(dimensions),
                                            list(where), list(order_by),
                                            -1 if limit is None else int(limit), as_of)
        except _native.Error as e:
            raise from_native(e) from None
        return MetricsAnswer(r, r.columns, lambda: r.tag, r.reads, r.receipt)

    def compile(self, metrics, dimensions=(), where=(), order_by=(), limit=None):
        """The SQL a metrics query compiles to (nothing runs)."""
        try:
            return self._conn._session.compile_metrics(self.models, list(metrics), list(dimensions),
                                                       list(where), list(order_by),
                                                       -1 if limit is None else int(limit))
        except _native.Error as e:
            raise from_native(e) from None


class Connection:
    def __init__(self, catalog, warehouse, namespace=None, models="models", threads=0,
                 memory_limit=0, time_zone=None):
        try:
            self._session = _native.Session(catalog=catalog, warehouse=warehouse,
                                            namespace=namespace, threads=threads,
                                            memory_limit=memory_limit, time_zone=time_zone)
        except _native.Error as e:
            raise from_native(e) from None
        self.catalog, self.warehouse = catalog, warehouse
        self.metrics = Metrics(self, models)

    def sql(self, query, params=None):
        """Runs one statement; returns its Relation (.arrow(), .df(), .pl(), .fetchall())."""
        try:
            r = self._session.execute(query, _params(params))
        except _native.Error as e:
            raise from_native(e) from None
        return Relation(r, r.columns, lambda: r.tag, r.reads, r.profile)

    execute = sql

    def set(self, name, value):
        try:
            self._session.set(name, str(value))
        except _native.Error as e:
            raise from_native(e) from None

    def cancel(self):
        self._session.cancel()

    def close(self):
        self._session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
