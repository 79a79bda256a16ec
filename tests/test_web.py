"""Web pages through a local http.server: boilerplate removal, meta tags, redirect, 404, non-HTML, PDF.

The server runs in a thread of the test process on 127.0.0.1 (no outside network).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engram_kit.errors import DataError
from engram_kit.ingestion.web import decode_html, fetch_url, parse_html

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PAGE = (FIXTURES / "doc_article.html").read_bytes()


def _small_pdf() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Introduction", fontsize=14, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 90, 520, 400), "Metformin reduced TNF expression in microglia. " * 8,
                        fontsize=10)
    return doc.tobytes()


PDF = _small_pdf()

ROUTES: dict[str, tuple[int, str, bytes, dict[str, str]]] = {
    "/article.html": (200, "text/html; charset=utf-8", PAGE, {}),
    "/old-address": (301, "text/html", b"", {"Location": "/article.html"}),
    "/missing": (404, "text/html", b"<h1>Not found</h1>", {}),
    "/data.json": (200, "application/json", b'{"not": "a page"}', {}),
    "/paper": (200, "application/pdf", PDF, {}),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # http.server's name
        status, content_type, body, headers = ROUTES.get(self.path, (404, "text/plain", b"no route", {}))
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_parse_html_strips_boilerplate_and_reads_meta_tags():
    doc = parse_html(PAGE, url="http://example.org/a")
    meta = doc.metadata
    assert meta.title.value.startswith("Metformin dampens microglial") and meta.title.source == "meta citation_title"
    assert meta.authors.value == ["Ada Lovelace", "Alan Turing"] and meta.authors.confidence == 0.9
    assert (meta.year.value, meta.doi.value) == (2021, "10.1234/example.2021.042")
    assert [s.title for s in doc.sections] == ["Abstract", "Introduction", "Results", "References"]
    text = " ".join(s.text for s in doc.sections)
    for boilerplate in ("newsletter", "cookies", "tracking", "Privacy", "ten tips", "open access since"):
        assert boilerplate not in text
    assert "Microglial activation fell by a third." in doc.sections[2].text
    refs = doc.sections[3]
    assert refs.kind == "references" and not refs.retrievable


def test_fallbacks_and_encodings():
    bare = b"<html><head><title>Plain page</title></head><body><p>Only a paragraph of text here.</p></body></html>"
    doc = parse_html(bare)
    assert (doc.metadata.title.value, doc.metadata.title.source, doc.metadata.title.confidence) == ("Plain page", "<title>", 0.7)
    assert doc.metadata.authors.value == [] and doc.sections[0].title == "Front matter"
    latin = "<html><head><meta charset='iso-8859-1'></head><body><p>Café résumé</p></body></html>".encode("latin-1")
    assert "Café résumé" in decode_html(latin)
    with pytest.raises(DataError, match="not UTF-8.*declares no charset"):
        decode_html("<p>Café</p>".encode("latin-1"))
    with pytest.raises(DataError, match="no text"):
        parse_html(b"<html><body><script>render()</script><nav>Home</nav></body></html>")


def test_fetch_follows_redirects_and_refuses_errors(server):
    page = fetch_url(f"{server}/old-address")
    assert page.final_url == f"{server}/article.html" and page.redirects == (f"{server}/old-address",)
    assert page.content == PAGE and page.charset == "utf-8"
    with pytest.raises(DataError, match="HTTP 404"):
        fetch_url(f"{server}/missing")
    with pytest.raises(DataError, match="application/json, not a web page"):
        fetch_url(f"{server}/data.json")
    with pytest.raises(DataError, match="not an http"):
        fetch_url("file:///etc/passwd")
    with pytest.raises(DataError, match="larger than"):
        fetch_url(f"{server}/paper", max_bytes=1_000)


@pytest.mark.slow  # e2e: builds a sample workspace: 29 s on a loaded 2-core machine (issue 15)
def test_ingest_url_into_a_workspace(server, tmp_path):
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.errors import IngestionError
    from engram_kit.workspace import Workspace

    with Workspace.create(tmp_path / "ws", data=resolve_data_paths()) as ws:
        ws.settings.progress = False
        before = ws.store.counts()
        for bad in ("/missing", "/data.json"):
            with pytest.raises(DataError):
                ws.ingest_url(server + bad)
        assert ws.store.counts() == before  # nothing fetched, nothing stored
        report = ws.ingest_url(f"{server}/old-address")
        assert report.status == "complete" and report.filename == "article.html"
        detail = ws.documents.detail(report.id)
        assert detail.info["source_url"] == f"{server}/article.html"
        assert detail.metadata.doi.value == "10.1234/example.2021.042"
        assert detail.sections["title"].tolist() == ["Abstract", "Introduction", "Results", "References"]
        assert {"metformin", "TNF"} & set(detail.entities["name"])
        passages = ws.store.article_passages(report.id)
        assert set(passages["section_title"]) == {"Abstract", "Introduction", "Results"}
        assert passages["page_start"].isna().all()  # web pages have no pages
        hit = ws.retrieve("Does metformin reduce neuroinflammation?", source="uploaded").passages[0]
        assert hit.article_id == report.id and hit.section in {"Abstract", "Introduction", "Results"}
        assert ws.ingest_url(f"{server}/article.html").duplicate  # same bytes: deduplicated
        pdf = ws.ingest_url(f"{server}/paper")  # a PDF served over HTTP goes to the PDF parser
        assert pdf.status == "complete" and pdf.pages == 1 and pdf.filename == "paper.pdf" and pdf.passages == 1
        with pytest.raises(IngestionError):
            ws.documents.add_bytes(b"<html><body><nav>menu</nav></body></html>", "empty.html")
