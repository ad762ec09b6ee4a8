"""DB-API 2.0 (PEP 249) over floe.

    from floe import dbapi
    conn = dbapi.connect("warehouse")          # the arguments of floe.connect()
    cur = conn.cursor()
    cur.execute("SELECT order_id, amount FROM demo.orders WHERE region = ?", ["east"])
    cur.fetchmany(10)

paramstyle is "qmark" (?), and PostgreSQL's $1, $2 work too. Every statement commits on its own
(floe's engine has no multi-statement transactions): commit() does nothing and rollback() raises
NotSupportedError. Rows stream batch by batch from the engine's Arrow stream.
"""
import pyarrow as pa

from . import connect as _connect
from ._errors import from_stream
from ._errors import (DatabaseError, DataError, Error, IntegrityError, InterfaceError,
                      InternalError, NotSupportedError, OperationalError, ProgrammingError,
                      Warning)

apilevel = "2.0"
threadsafety = 1  # threads may share the module, not connections
paramstyle = "qmark"

__all__ = ["connect", "Connection", "Cursor", "apilevel", "threadsafety", "paramstyle", "Error",
           "Warning", "InterfaceError", "DatabaseError", "DataError", "OperationalError",
           "IntegrityError", "InternalError", "ProgrammingError", "NotSupportedError"]


def qmark_to_dollar(sql):
    """Turns each ? outside strings, quoted names, comments and dollar quotes into $1, $2, ..."""
    out, n, i, L = [], 0, 0, len(sql)
    while i < L:
        c = sql[i]
        if c in "'\"":
            j = i + 1
            while j < L:
                if sql[j] == c:
                    if j + 1 < L and sql[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            out.append(sql[i:j + 1])
            i = j + 1
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            j = L if j < 0 else j
            out.append(sql[i:j])
            i = j
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = L if j < 0 else j + 2
            out.append(sql[i:j])
            i = j
        elif c == "$" and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] == "_")):
            j = i + 1
            while j < L and (sql[j].isalnum() or sql[j] == "_") and not sql[j].isdigit():
                j += 1
            if j < L and sql[j] == "$":  # $tag$ ... $tag$
                tag = sql[i:j + 1]
                k = sql.find(tag, j + 1)
                k = L if k < 0 else k + len(tag)
                out.append(sql[i:k])
                i = k
            else:
                out.append(c)
                i += 1
        elif c == "?":
            n += 1
            out.append(f"${n}")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out), n


def connect(*args, **kwargs):
    """A DB-API connection; the arguments are floe.connect()'s."""
    return Connection(_connect(*args, **kwargs))


class Connection:
    def __init__(self, conn):
        self._conn = conn
        self.closed = False

    def cursor(self):
        if self.closed:
            raise InterfaceError("floe: the connection is closed")
        return Cursor(self)

    def commit(self):
        pass  # every statement committed when it ran

    def rollback(self):
        raise NotSupportedError("floe: statements commit on their own; there is nothing to roll back")

    def close(self):
        if not self.closed:
            self._conn.close()
            self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Cursor:
    arraysize = 100

    def __init__(self, conn):
        self.connection = conn
        self.description = None
        self.rowcount = -1
        self._reader = None
        self._rows = []
        self._pos = 0
        self._rel = None
        self.closed = False

    def execute(self, operation, parameters=None):
        if self.closed or self.connection.closed:
            raise InterfaceError("floe: the cursor is closed")
        params = None
        if parameters is not None:
            if isinstance(parameters, dict):
                raise ProgrammingError("floe: paramstyle is qmark (?): pass a sequence, not a dict")
            params = list(parameters)
            sql, n = qmark_to_dollar(operation)
            if n and n != len(params):
                raise ProgrammingError(f"floe: the statement has {n} placeholders, {len(params)} "
                                       "parameters were given")
            operation = sql
        rel = self.connection._conn.sql(operation, params)
        self._rel = rel
        self._rows, self._pos, self._seen = [], 0, 0
        if rel.columns:
            self._reader = rel.reader()
            self.description = [(f.name, str(f.type), None, None, None, None, f.nullable)
                                for f in self._reader.schema]
            self.rowcount = -1
        else:
            self._reader = None
            self.description = None
            tag = rel.tag or ""
            last = tag.rsplit(" ", 1)[-1]
            self.rowcount = int(last) if last.isdigit() else -1
        return self

    def executemany(self, operation, seq_of_parameters):
        total = 0
        for p in seq_of_parameters:
            self.execute(operation, p)
            total += max(self.rowcount, 0)
        self.rowcount = total

    def _fill(self):
        while self._pos >= len(self._rows) and self._reader is not None:
            try:
                batch = self._reader.read_next_batch()
            except StopIteration:
                self._reader = None
                if self.rowcount < 0:
                    self.rowcount = self._seen
                return False
            except (OSError, pa.ArrowException) as e:  # the engine failed mid-stream
                self._reader = None
                raise from_stream(e) from None
            cols = [c.to_pylist() for c in batch.columns]
            self._rows, self._pos = list(zip(*cols)) if cols else [], 0
            self._seen += batch.num_rows
        return self._pos < len(self._rows)

    def fetchone(self):
        if self.description is None:
            raise ProgrammingError("floe: the last statement returned no rows")
        if not self._fill():
            return None
        row = self._rows[self._pos]
        self._pos += 1
        return row

    def fetchmany(self, size=None):
        size = self.arraysize if size is None else size
        out = []
        while len(out) < size:
            row = self.fetchone()
            if row is None:
                break
            out.append(row)
        return out

    def fetchall(self):
        out = []
        while True:
            row = self.fetchone()
            if row is None:
                return out
            out.append(row)

    def __iter__(self):
        return iter(self.fetchone, None)

    def setinputsizes(self, sizes):
        pass

    def setoutputsize(self, size, column=None):
        pass

    def close(self):
        self.closed = True
        self._reader = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
