"""The playground's files as the app serves them: the vendored layout library, ETags, compression."""

from __future__ import annotations

import hashlib
from importlib import resources

from fastapi.testclient import TestClient

from slotgraph.server.playground import ELK_SHA256


def test_the_vendored_elk_build_is_the_published_one_with_its_licence() -> None:
    folder = resources.files("slotgraph.server").joinpath("playground")
    script = folder.joinpath("elk.bundled.js").read_bytes()
    assert hashlib.sha256(script).hexdigest() == ELK_SHA256  # elkjs 0.12.1's lib/elk.bundled.js, unmodified
    licence = folder.joinpath("elkjs.LICENSE.md").read_text(encoding="utf-8")
    assert licence.startswith("# Eclipse Public License - v 2.0")
    page = folder.joinpath("index.html").read_text(encoding="utf-8")
    assert '<script src="/static/playground/elk.bundled.js"></script>' in page  # served here, not from a CDN


def test_assets_are_served_compressed_and_revalidated_by_etag(api: TestClient) -> None:
    plain = api.get("/static/playground/elk.bundled.js", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert hashlib.sha256(plain.content).hexdigest() == ELK_SHA256
    etag = plain.headers["etag"]
    packed = api.get("/static/playground/elk.bundled.js", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and packed.headers["etag"] == etag
    assert packed.content == plain.content  # the client decoded it
    assert int(packed.headers["content-length"]) < len(plain.content) // 3
    again = api.get("/static/playground/elk.bundled.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    page = api.get("/", headers={"If-None-Match": api.get("/").headers["etag"]})
    assert page.status_code == 304
    licence = api.get("/static/playground/elkjs.LICENSE.md")
    assert licence.headers["content-type"].startswith("text/markdown")
    assert b"Eclipse Public License" in licence.content
