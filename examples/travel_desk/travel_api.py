"""A small travel API for the travel_desk workflow: two corpus gateways, two quote services, a reply drafter.

    python examples/travel_desk/travel_api.py --port 8766

``POST /corpus/policies/search`` and ``POST /corpus/guides/search`` are retrieval gateways (the passages of
a tiny corpus that share a word with the question, or name the destination); ``POST /quotes/flights`` and
``POST /quotes/hotels`` quote a trip; ``POST /replies`` drafts the answer from what the earlier stages found.
Every endpoint refuses keys it does not know (so a key a stage should not send would be visible).
``GET /requests`` lists every body received. Standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

POLICIES = [
    "Bicycles travel as checked baggage in a bike bag, for a fee of 50 EUR each way.",
    "Each passenger may bring one cabin bag of up to 8 kg.",
    "Pets under 8 kg may travel in the cabin in a closed carrier.",
]
GUIDES = {
    "lisbon": "Lisbon: trams climb the hills; the airport metro reaches the centre in 25 minutes.",
    "porto": "Porto: the metro runs from the airport to the river in 35 minutes.",
}
FLIGHTS = {"lisbon": ("TAP", 210.0), "porto": ("Ryanair", 95.0)}
HOTELS = {"lisbon": ("Casa do Rio", 120.0), "porto": ("Ribeira Rooms", 90.0)}
KEYS = {
    "/corpus/policies/search": {"question"},
    "/corpus/guides/search": {"destination"},
    "/quotes/flights": {"destination"},
    "/quotes/hotels": {"destination", "nights"},
    "/replies": {"question", "prefetch", "carrier", "flight_price", "hotel", "hotel_price", "nights"},
}


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z]+", text.lower()) if len(word) > 3}


class TravelApi:
    """The API's state: the requests received."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []

    def handle(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append({"path": path, "body": body})
        if not isinstance(body, dict):
            return 400, {"error": "the body must be a JSON object"}
        known = KEYS.get(path)
        if known is None:
            return 404, {"error": f"no endpoint {path}"}
        unknown = sorted(set(body) - known)
        if unknown:
            return 422, {"error": f"unknown keys {unknown}"}
        place = str(body.get("destination", "")).lower()
        if path == "/corpus/policies/search":
            asked = _words(str(body.get("question", "")))
            return 200, {"passages": [p for p in POLICIES if asked & _words(p.replace("Bicycles", "bike"))]}
        if path == "/corpus/guides/search":
            return 200, {"passages": [GUIDES[place]] if place in GUIDES else []}
        if path == "/quotes/flights":
            if place not in FLIGHTS:
                return 404, {"error": f"no flights to {place}"}
            carrier, price = FLIGHTS[place]
            return 200, {"carrier": carrier, "flight_price": price}
        if path == "/quotes/hotels":
            if place not in HOTELS:
                return 404, {"error": f"no hotels in {place}"}
            hotel, per_night = HOTELS[place]
            return 200, {"hotel": hotel, "hotel_price": per_night * int(body.get("nights", 1))}
        total = float(body.get("flight_price", 0)) + float(body.get("hotel_price", 0))
        found = "yes" if "bike" in str(body.get("prefetch", "")).lower() else "no"
        reply = (
            f"{body.get('carrier')} flight and {body.get('nights')} nights at {body.get('hotel')}: "
            f"{total:.2f} EUR. Policy found: {found}."
        )
        return 200, {"reply": reply}


def make_server(port: int = 0, api: TravelApi | None = None) -> ThreadingHTTPServer:
    """An HTTP server on 127.0.0.1:``port`` (0: a free port) serving ``api``; call ``serve_forever``."""
    state = api or TravelApi()

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            with state.lock:
                if self.path == "/requests":
                    self._send(200, list(state.requests))
                else:
                    self._send(404, {"error": f"no endpoint {self.path}"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"null")
            except ValueError:
                self._send(400, {"error": "the body is not JSON"})
                return
            self._send(*state.handle(self.path, body))

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.api = state  # type: ignore[attr-defined]
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8766)
    port = parser.parse_args().port
    print(f"travel API on http://127.0.0.1:{port} (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):
        make_server(port).serve_forever()
