"""Exceptions: the DB-API 2.0 hierarchy, chosen by the error's SQLSTATE class.

Every error from libfloe or a `floe serve` carries .sqlstate ("42P01", ...) and .position (the
1-based character offset in the SQL text, 0 when none), as psql shows them.
"""


class Warning(Exception):  # noqa: A001 (DB-API's name)
    pass


class Error(Exception):
    def __init__(self, message, sqlstate="", position=0):
        super().__init__(message)
        self.sqlstate = sqlstate or ""
        self.position = position or 0


class InterfaceError(Error):
    pass


class DatabaseError(Error):
    pass


class DataError(DatabaseError):
    pass


class OperationalError(DatabaseError):
    pass


class IntegrityError(DatabaseError):
    pass


class InternalError(DatabaseError):
    pass


class ProgrammingError(DatabaseError):
    pass


class NotSupportedError(DatabaseError):
    pass


_BY_CLASS = {"42": ProgrammingError, "22": DataError, "23": IntegrityError, "0A": NotSupportedError,
             "08": OperationalError, "53": OperationalError, "57": OperationalError,
             "58": OperationalError, "40": OperationalError, "XX": InternalError}


def error_for(message, sqlstate="", position=0):
    """The exception object for an error with this SQLSTATE."""
    cls = _BY_CLASS.get((sqlstate or "")[:2], DatabaseError)
    return cls(message, sqlstate, position)


def from_stream(exc):
    """An error pyarrow raised while reading floe's stream ("message SQLSTATE 22012") -> its exception."""
    text = str(exc)
    head, sep, state = text.rpartition(" SQLSTATE ")
    if sep and len(state.strip()) == 5:
        return error_for(head, state.strip())
    return OperationalError(text)


def from_native(exc):
    """floe._native.Error -> the DB-API exception (message, sqlstate, position kept)."""
    return error_for(str(exc), getattr(exc, "sqlstate", ""), getattr(exc, "position", 0))
