"""A small purchases API for the purchase_refund workflow: run it, then run the workflow against it.

    python examples/purchase_refund/purchases_api.py --port 8765

``POST /purchases/match`` finds a purchase of the account by merchant, amount and date; ``POST /refunds``
refunds one. Both refuse a body with keys they do not know (so a leaked key would be visible), and both
honour ``Idempotency-Key``: a repeated key gets the first answer again and acts once. ``GET /requests``
lists every body received (tests read it), ``GET /refunds`` the refunds made. Standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PURCHASES = [
    {"purchase_id": "P-1001", "account_id": "A-77", "merchant": "Blue Bottle Coffee", "amount": 42.5,
     "date": "2026-11-20"},
    {"purchase_id": "P-1002", "account_id": "A-77", "merchant": "City Books", "amount": 18.0,
     "date": "2026-11-22"},
]  # fmt: skip
MATCH_KEYS = {"doc_id", "account_id", "merchant", "amount", "date"}
REFUND_KEYS = {"account_id", "purchase_id", "amount"}


class PurchasesApi:
    """The API's state: requests received, answers by idempotency key, refunds made."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.answers: dict[str, tuple[int, dict[str, Any]]] = {}
        self.refunds: list[dict[str, Any]] = []

    def handle(self, path: str, body: Any, key: str | None) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append({"path": path, "body": body, "idempotency_key": key})
            if key is not None and key in self.answers:
                return self.answers[key]
            answer = self._answer(path, body)
            if key is not None and answer[0] < 500:
                self.answers[key] = answer
            return answer

    def _answer(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        if not isinstance(body, dict):
            return 400, {"error": "the body must be a JSON object"}
        known = {"/purchases/match": MATCH_KEYS, "/refunds": REFUND_KEYS}.get(path)
        if known is None:
            return 404, {"error": f"no endpoint {path}"}
        unknown = sorted(set(body) - known)
        if unknown:
            return 422, {"error": f"unknown keys {unknown}"}
        if path == "/purchases/match":
            for purchase in PURCHASES:
                if (
                    purchase["account_id"] == body.get("account_id")
                    and str(purchase["merchant"]).lower() == str(body.get("merchant", "")).lower()
                    and purchase["amount"] == body.get("amount")
                    and purchase["date"] == body.get("date")
                ):
                    return 200, {"matched": True, "purchase_id": purchase["purchase_id"]}
            return 200, {"matched": False}
        refund = {"refund_id": f"R-{len(self.refunds) + 1}", **body}
        self.refunds.append(refund)
        return 200, {"refund_id": refund["refund_id"], "status": "refunded"}


def make_server(port: int = 0, api: PurchasesApi | None = None) -> ThreadingHTTPServer:
    """An HTTP server on 127.0.0.1:``port`` (0: a free port) serving ``api``; call ``serve_forever``."""
    state = api or PurchasesApi()

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            try:
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client is gone (e.g. a process killed mid-call); the answer stays cached by key

        def do_GET(self) -> None:
            with state.lock:
                found = {"/requests": state.requests, "/refunds": state.refunds}.get(self.path)
                if found is None:
                    self._send(404, {"error": f"no endpoint {self.path}"})
                else:
                    self._send(200, list(found))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"null")
            except ValueError:
                self._send(400, {"error": "the body is not JSON"})
                return
            status, answer = state.handle(self.path, body, self.headers.get("Idempotency-Key"))
            self._send(status, answer)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.api = state  # type: ignore[attr-defined]
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    port = parser.parse_args().port
    print(f"purchases API on http://127.0.0.1:{port} (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):
        make_server(port).serve_forever()
