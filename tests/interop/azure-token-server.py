#!/usr/bin/env python3
"""azure-token-server.py PORTFILE - a local stand-in for the Microsoft Entra ID
token endpoint (POST /<tenant>/oauth2/v2.0/token), for tests/interop/test_azure.sh.

It checks the client-credentials form as Entra ID does: grant_type must be
client_credentials, scope must be https://storage.azure.com/.default, and the
client secret must be "secret one&two" (form-encoded by the client); anything
else is answered 400/401 with Entra's JSON error shape (error,
error_description with an AADSTS code). A good request gets a token unique per
issue: {"token_type": "Bearer", "expires_in": 3599, "access_token": ...}; the
client id "short-lived" gets expires_in 1, so a client must refresh it.
Writes the port it listens on (127.0.0.1, chosen by the OS) to PORTFILE.
"""
import json
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = "secret one&two"
issued = 0


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, doc):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        global issued
        parts = self.path.strip("/").split("/")
        if len(parts) != 4 or parts[1:] != ["oauth2", "v2.0", "token"]:
            return self.answer(404, {"error": "not_found"})
        if self.headers.get("Content-Type", "") != "application/x-www-form-urlencoded":
            return self.answer(400, {"error": "invalid_request",
                                     "error_description": "AADSTS900144: bad content type"})
        n = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(n).decode(), strict_parsing=True)
        one = {k: v[0] for k, v in form.items() if len(v) == 1}
        if one.get("grant_type") != "client_credentials":
            return self.answer(400, {"error": "unsupported_grant_type",
                                     "error_description": "AADSTS70003: grant_type"})
        if one.get("scope") != "https://storage.azure.com/.default":
            return self.answer(400, {"error": "invalid_scope",
                                     "error_description": "AADSTS70011: scope"})
        if one.get("client_secret") != SECRET or not one.get("client_id"):
            return self.answer(401, {"error": "invalid_client",
                                     "error_description": "AADSTS7000215: Invalid client "
                                     "secret provided."})
        issued += 1
        cid = one["client_id"]
        self.answer(200, {"token_type": "Bearer",
                          "expires_in": 1 if cid == "short-lived" else 3599,
                          "access_token": "token-for-%s-%d-%s" % (cid, issued, parts[0])})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
