"""Floe from Python: SQL over Iceberg tables, answered as Arrow, pandas or polars.

    import floe
    con = floe.connect()                                  # ./warehouse, catalog ./warehouse/catalog.db
    con = floe.connect("wh")                              # a warehouse directory (catalog wh/catalog.db)
    con = floe.connect(catalog="postgresql://...", warehouse="s3://bucket/wh")
    con = floe.connect("http://127.0.0.1:8181", token=T)  # a `floe serve`: SQL runs on the server

    con.sql("SELECT region, sum(amount) FROM demo.orders GROUP BY 1").df()
    con.sql("SELECT * FROM demo.orders WHERE order_id = $1", [42]).arrow()
    con.metrics.query(metrics=["net_revenue"], dimensions=["metric_time__month"]).pl()

Embedded connections run libfloe's engine in this process (floe._native, built against libfloe).
Results cross into Arrow through the Arrow C Data Interface: the engine's column buffers become the
Arrow arrays' buffers, without a copy. DB-API 2.0 is in floe.dbapi.
"""
import os

from ._errors import Error
from ._relation import Relation, MetricsAnswer

__all__ = ["connect", "Connection", "Relation", "MetricsAnswer", "Error", "dbapi"]
__version__ = "0.1.0"


def connect(target=None, *, catalog=None, warehouse=None, namespace=None, models=None, threads=0,
            memory_limit=0, time_zone=None, token=None, client_id=None, client_secret=None):
    """Opens a connection.

    target: None (the embedded default: $FLOE_CATALOG / $FLOE_WAREHOUSE, else ./warehouse with the
    SQLite catalog ./warehouse/catalog.db), a warehouse directory, or the URL of a `floe serve`
    ("http://host:8181"; token= a bearer token, or client_id/client_secret for its OAuth endpoint).
    models: the semantic model directory for con.metrics ($FLOE_MODELS, else ./models).
    """
    if target is not None and str(target).startswith(("http://", "https://")):
        from ._remote import RemoteConnection
        return RemoteConnection(str(target), token=token, client_id=client_id,
                                client_secret=client_secret, namespace=namespace)
    if target is not None:
        warehouse = warehouse or str(target)
        catalog = catalog or "sqlite:" + os.path.join(str(target), "catalog.db")
    if warehouse is None:
        warehouse = os.environ.get("FLOE_WAREHOUSE", "warehouse")
    if catalog is None:
        catalog = os.environ.get("FLOE_CATALOG", "sqlite:" + os.path.join(warehouse, "catalog.db"))
    if models is None:
        models = os.environ.get("FLOE_MODELS", "models")
    from ._embedded import Connection
    return Connection(catalog=catalog, warehouse=warehouse, namespace=namespace, models=models,
                      threads=threads, memory_limit=memory_limit, time_zone=time_zone)


def __getattr__(name):  # floe.Connection without loading libfloe at import
    if name == "Connection":
        from ._embedded import Connection
        return Connection
    raise AttributeError(name)
