"""A connection to a `floe serve`: SQL runs on the server, answers come back as Arrow.

sql() posts the statement to /v1/sql and reads the Arrow IPC stream the server writes
(application/vnd.apache.arrow.stream) batch by batch. metrics.query() calls the MCP endpoint's
query_metrics tool (/mcp: initialize, then tools/call), which compiles and runs the metrics query
on the server under the same authorization. A token comes from token=, or from client_id and
client_secret through the server's OAuth2 token endpoint (/v1/oauth/tokens, client credentials).
Only the Python standard library and pyarrow are used.
"""
import json
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pyarrow as pa
import pyarrow.ipc

from ._errors import InterfaceError, OperationalError, error_for
from ._relation import MetricsAnswer, Relation

ARROW_STREAM = "application/vnd.apache.arrow.stream"
MCP_VERSION = "2025-06-18"
MAX_METRIC_ROWS = 10000  # query_metrics' largest max_rows


def _param(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return str(v)


def _http_error(e):
    """An HTTPError from the server -> the DB-API exception of its error body."""
    try:
        body = json.loads(e.read().decode("utf-8", "replace"))
        err = body.get("error", body)
        return error_for(err.get("message", str(e)), err.get("sqlstate", ""),
                         err.get("position", 0))
    except (ValueError, AttributeError):
        return OperationalError(f"floe: HTTP {e.code} from the server: {e.reason}")


class RemoteMetrics:
    def __init__(self, conn):
        self._conn = conn
        self._session_id = None
        self._next_id = 0

    def _rpc(self, method, params, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            self._next_id += 1
            msg["id"] = self._next_id
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": MCP_VERSION}
        if self._session_id:
            headers["Mcp-Session-Id"] = self._session_id
        resp = self._conn._request("/mcp", json.dumps(msg).encode(), headers)
        with resp:
            sid = resp.headers.get("Mcp-Session-Id")
            if sid:
                self._session_id = sid
            body = resp.read().decode()
        if notify:
            return None
        answer = json.loads(body)
        if "error" in answer:
            raise OperationalError(f"floe: MCP {method}: {answer['error'].get('message')}")
        return answer["result"]

    def _ensure_session(self):
        if self._session_id is None:
            self._rpc("initialize", {"protocolVersion": MCP_VERSION, "capabilities": {},
                                     "clientInfo": {"name": "floe-python", "version": "0.1.0"}})
            self._rpc("notifications/initialized", {}, notify=True)

    def query(self, metrics, dimensions=(), where=(), order_by=(), limit=None, as_of=None):
        if as_of is not None:
            raise InterfaceError("floe: as_of is not available through a server's query_metrics")
        self._ensure_session()
        args = {"metrics": list(metrics), "group_by": list(dimensions), "max_rows": MAX_METRIC_ROWS,
                "max_bytes": 1 << 30}
        if where:
            args["where"] = list(where)
        if order_by:
            args["order_by"] = list(order_by)
        if limit is not None:
            args["limit"] = int(limit)
        res = self._rpc("tools/call", {"name": "query_metrics", "arguments": args})
        sc = res.get("structuredContent") or {}
        if res.get("isError"):
            text = " ".join(c.get("text", "") for c in res.get("content", []))
            raise error_for(f"floe: query_metrics: {text}", sc.get("sqlstate", ""))
        if sc.get("truncated") or sc.get("complete") is False:
            raise OperationalError(f"floe: the answer has more than {MAX_METRIC_ROWS} rows; add a "
                                   "filter or a limit")
        names = [c["name"] for c in sc.get("columns", [])]
        rows = sc.get("rows", [])
        table = pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})
        rel = MetricsAnswer(None, names, f"SELECT {len(rows)}", (), sc.get("receipt"))
        rel._table = table
        return rel


class RemoteConnection:
    def __init__(self, url, token=None, client_id=None, client_secret=None, namespace=None):
        self.url = url.rstrip("/")
        self.namespace = namespace
        self._token = token
        if token is None and client_id is not None:
            self._token = self._fetch_token(client_id, client_secret or "")
        self.metrics = RemoteMetrics(self)

    def _fetch_token(self, client_id, client_secret):
        form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": client_id,
                                       "client_secret": client_secret}).encode()
        req = urllib.request.Request(self.url + "/v1/oauth/tokens", data=form, method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(req) as resp:
                return json.loads(resp.read())["access_token"]
        except urllib.error.HTTPError as e:
            raise OperationalError(f"floe: login as {client_id!r} refused (HTTP {e.code})") from None

    def _request(self, path, body, headers):
        headers = dict(headers)
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        req = urllib.request.Request(self.url + path, data=body, method="POST", headers=headers)
        try:
            return urllib.request.urlopen(req)
        except urllib.error.HTTPError as e:
            raise _http_error(e) from None
        except urllib.error.URLError as e:
            raise OperationalError(f"floe: cannot reach {self.url}: {e.reason}") from None

    def sql(self, query, params=None):
        body = {"sql": query}
        if params is not None:
            body["params"] = [_param(v) for v in params]
        if self.namespace:
            body["namespace"] = self.namespace
        self._last_query_id = str(uuid.uuid4())
        resp = self._request("/v1/sql", json.dumps(body).encode(),
                             {"Content-Type": "application/json", "Accept": ARROW_STREAM,
                              "X-Floe-Query-Id": self._last_query_id})
        try:
            reader = pa.ipc.open_stream(resp)
        except pa.ArrowInvalid:
            resp.close()  # a statement without rows (DDL, DML) answers an empty body
            return Relation(None, (), "", ())
        return Relation(reader, reader.schema.names, "", ())

    execute = sql

    def cancel(self):
        qid = getattr(self, "_last_query_id", None)
        if qid:
            req = urllib.request.Request(f"{self.url}/v1/sql/{qid}", method="DELETE",
                                         headers={"Authorization": "Bearer " + self._token}
                                         if self._token else {})
            try:
                urllib.request.urlopen(req).close()
            except urllib.error.HTTPError:
                pass  # already finished

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
