"""Optional look-up of ontology terms at the EMBL-EBI Ontology Lookup Service (OLS4), checked against the graph.

Opt-in: nothing in the default pipeline calls this module; the user asks for it (a notebook cell, a widget
button). :func:`ols_candidates` sends one ``GET {base_url}/search`` and returns the hits as a DataFrame;
:func:`check_against_graph` keeps the hits whose CURIE is a node of the installed graph, because a term the
graph does not hold cannot seed retrieval or be cited: OLS only suggests, the graph decides.

Offline behaviour: a connection error, DNS failure, timeout, HTTP error status or unreadable body gives an
**empty** frame whose ``attrs["reason"]`` says what went wrong (and a logged warning); it never raises
and never waits much past ``timeout``. A successful call sets ``attrs["reason"] = ""``, so an empty frame
with an empty reason means "OLS found nothing".

API used (OLS4, backwards compatible with OLS3's ``/api/search``): parameters ``q``, ``ontology``
(comma-separated OLS ontology ids, lower case: ``mondo,hp``), ``rows``, ``queryFields`` (``label,synonym``),
``exact``, ``fieldList`` (which fields each doc carries; ``score`` must be named to get the Solr score);
response ``{"responseHeader": {...}, "response": {"numFound": n, "start": 0, "docs": [...]}, "facet_counts":
{...}}``, each doc with ``iri``, ``obo_id``, ``short_form``, ``label``, ``ontology_name``,
``ontology_prefix``, ``synonym``, ``is_defining_ontology``, ``type``, ``score``. Source: EBISPOT/ols4
``backend/.../api/v1/V1SearchController.java``; https://www.ebi.ac.uk/ols4/api-docs. EMBL-EBI asks for
moderate request rates; this module sends one request per call.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any

import pandas as pd
import requests

from engram_kit.errors import QueryError
from engram_kit.kg.crosswalk import canonical_curies, node_curies
from engram_kit.settings import Settings

log = logging.getLogger(__name__)

#: Public OLS4 REST API.
OLS4_BASE_URL = "https://www.ebi.ac.uk/ols4/api"
#: OLS ontology ids searched by default: the ontologies Monarch KG takes its diseases (MONDO), phenotypes
#: (HP), processes (GO), anatomy (UBERON) and chemicals (ChEBI) from. Genes are not OLS ontologies.
DEFAULT_ONTOLOGIES: tuple[str, ...] = ("mondo", "hp", "go", "uberon", "chebi")
#: Fields requested per hit (OLS returns only these when ``fieldList`` is given).
FIELD_LIST: tuple[str, ...] = ("iri", "obo_id", "short_form", "label", "ontology_name", "ontology_prefix",
                               "synonym", "is_defining_ontology", "type", "score")
#: Columns of the frame :func:`ols_candidates` returns.
CANDIDATE_COLUMNS: tuple[str, ...] = ("curie", "label", "ontology", "score", "rank", "synonyms", "iri",
                                      "is_defining_ontology")
#: Most bytes read from a response (a search page of 100 hits is ~50 kB).
MAX_RESPONSE_BYTES: int = Settings.ols_max_response_bytes
_USER_AGENT = "engram-kit (optional OLS4 term look-up)"


def _empty(reason: str, url: str = "") -> pd.DataFrame:
    frame = pd.DataFrame({c: pd.Series(dtype="float64" if c == "score" else "int64" if c == "rank" else
                                       "bool" if c == "is_defining_ontology" else "object")
                          for c in CANDIDATE_COLUMNS})
    frame.attrs.update(reason=reason, url=url, num_found=0)
    return frame


def _unavailable(reason: str, url: str) -> pd.DataFrame:
    log.warning("OLS look-up gave nothing: %s", reason)
    return _empty(reason, url)


def parse_search_response(payload: dict[str, Any]) -> pd.DataFrame:
    """Hits of an OLS4 ``/search`` JSON body as a candidates frame (columns :data:`CANDIDATE_COLUMNS`).

    Parameters
    ----------
    payload : the decoded JSON object.

    Returns
    -------
    DataFrame
        One row per doc, in OLS order (``rank`` 1, 2, ...): ``curie`` (``obo_id``, else ``short_form`` with
        its first ``_`` as ``:``), ``label``, ``ontology`` (OLS ontology id, ``"mondo"``), ``score`` (Solr
        relevance, unbounded, NaN when absent), ``synonyms`` (``|``-joined), ``iri``,
        ``is_defining_ontology`` (False for a term OLS shows as imported into another ontology). Docs without
        any identifier are dropped. ``attrs["num_found"]`` is OLS's total hit count.

    Raises
    ------
    ValueError
        If ``payload`` has no ``response.docs`` list (not an OLS search response).
    """
    response = payload.get("response") if isinstance(payload, dict) else None
    docs = response.get("docs") if isinstance(response, dict) else None
    if not isinstance(docs, list):
        raise ValueError("no response.docs list in the body (not an OLS search response)")
    rows = []
    for rank, doc in enumerate(docs, start=1):
        if not isinstance(doc, dict):
            continue
        curie = doc.get("obo_id") or (doc.get("short_form") or "").replace("_", ":", 1)
        if not curie:
            continue
        synonyms = doc.get("synonym") or []
        rows.append({
            "curie": str(curie), "label": str(doc.get("label") or ""), "ontology": str(doc.get("ontology_name") or ""),
            "score": float(doc["score"]) if isinstance(doc.get("score"), (int, float)) else float("nan"),
            "rank": rank, "synonyms": "|".join(map(str, synonyms if isinstance(synonyms, list) else [synonyms])),
            "iri": str(doc.get("iri") or ""), "is_defining_ontology": bool(doc.get("is_defining_ontology", True)),
        })
    frame = pd.DataFrame(rows, columns=list(CANDIDATE_COLUMNS)) if rows else _empty("")
    frame.attrs.update(num_found=int(response.get("numFound", len(rows)) or 0) if isinstance(response, dict) else len(rows))
    return frame


def ols_candidates(
    text: str,
    *,
    ontologies: Sequence[str] = DEFAULT_ONTOLOGIES,
    rows: int = 10,
    query_fields: Sequence[str] = ("label", "synonym"),
    exact: bool = False,
    base_url: str = OLS4_BASE_URL,
    timeout: float = 5.0,
    session: requests.Session | None = None,
) -> pd.DataFrame:
    """Ontology terms OLS4 proposes for ``text`` (one HTTP request; opt-in, see the module docstring).

    Parameters
    ----------
    text : the phrase to look up ("holoprosencephaly").
    ontologies : OLS ontology ids to search (lower case); empty = all ontologies OLS hosts.
    rows : most hits returned, 1-500.
    query_fields : fields matched ("label", "synonym", "description", "obo_id"...); empty = OLS's default
        (every indexed field, which also matches words in definitions).
    exact : OLS ``exact=true``: whole-token matching in ``query_fields`` (not whole-label equality).
    base_url : API root without the trailing ``/search`` (a mirror or a local test server).
    timeout : seconds, > 0: connect timeout, read timeout, and the deadline for reading the whole body.
    session : a ``requests.Session`` to reuse (connection pooling, proxies); None uses a one-off request.

    Returns
    -------
    DataFrame
        :func:`parse_search_response`'s columns. ``attrs``: ``reason`` (``""`` on success, else why nothing
        came back: unreachable host, timeout, HTTP status, bad JSON), ``url`` (the request URL),
        ``num_found``, ``seconds``.

    Raises
    ------
    QueryError
        If ``text`` is empty, ``rows`` is outside 1-500 or ``timeout`` is not positive (caller errors; network
        trouble never raises).
    """
    if not (text or "").strip():
        raise QueryError("OLS look-up needs a non-empty text.")
    if not 1 <= rows <= 500:
        raise QueryError(f"rows={rows}: OLS returns 1 to 500 hits per request.")
    if timeout <= 0:
        raise QueryError(f"timeout={timeout}: give a positive number of seconds.")
    params: dict[str, str | int] = {"q": text.strip(), "rows": rows, "fieldList": ",".join(FIELD_LIST)}
    if ontologies:
        params["ontology"] = ",".join(o.strip().lower() for o in ontologies)
    if query_fields:
        params["queryFields"] = ",".join(query_fields)
    if exact:
        params["exact"] = "true"
    url = f"{base_url.rstrip('/')}/search"
    started = time.monotonic()
    getter = session if session is not None else requests
    try:
        response = getter.get(url, params=params, timeout=(timeout, timeout), stream=True,
                              headers={"Accept": "application/json", "User-Agent": _USER_AGENT})
        full_url = response.url or url
        with response:
            if response.status_code != 200:
                return _unavailable(f"OLS answered HTTP {response.status_code} for {full_url}", full_url)
            body = _read_body(response, deadline=started + timeout)
    except requests.Timeout:
        return _unavailable(f"OLS did not answer within {timeout:g} s ({url})", url)
    except requests.ConnectionError as exc:
        return _unavailable(f"OLS is unreachable ({url}): {type(exc).__name__}: {_first_line(exc)}", url)
    except (requests.RequestException, TimeoutError) as exc:
        return _unavailable(f"OLS request failed ({url}): {type(exc).__name__}: {_first_line(exc)}", url)
    try:
        frame = parse_search_response(json.loads(body))
    except ValueError as exc:  # JSONDecodeError is a ValueError
        return _unavailable(f"OLS returned an unreadable body for {full_url}: {_first_line(exc)}", full_url)
    frame.attrs.update(reason="", url=full_url, seconds=round(time.monotonic() - started, 3))
    log.info("OLS: %d of %d hits for %r in %.2f s", len(frame), frame.attrs["num_found"], text,
             frame.attrs["seconds"])
    return frame


def _read_body(response: requests.Response, *, deadline: float) -> bytes:
    """The response body, abandoned (TimeoutError) past ``deadline`` or beyond :data:`MAX_RESPONSE_BYTES`.

    requests' read timeout bounds each wait between bytes, not the whole transfer; a server trickling
    bytes would otherwise hold the caller indefinitely.
    """
    chunks, size = [], 0
    for chunk in response.iter_content(chunk_size=65536):
        chunks.append(chunk)
        size += len(chunk)
        if time.monotonic() > deadline:
            raise TimeoutError("the response took longer than the timeout to arrive")
        if size > MAX_RESPONSE_BYTES:
            raise TimeoutError(f"the response exceeds {MAX_RESPONSE_BYTES} bytes")
    return b"".join(chunks)


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [""])[0][:200]


def check_against_graph(candidates: pd.DataFrame, nodes: pd.DataFrame, *, only_in_graph: bool = True) -> pd.DataFrame:
    """OLS hits with the graph node each one is, if any: hits count only when the graph holds them.

    Parameters
    ----------
    candidates : frame from :func:`ols_candidates` (column ``curie``).
    nodes : the installed graph's node table (``id``, ``kind``; ``identifier`` optional): KGX, whose
        identifiers are CURIEs, or Hetionet, whose identifiers become CURIEs by kind
        (:func:`engram_kit.kg.crosswalk.node_curies`: ``Gene::6469`` is ``NCBIGene:6469``).
    only_in_graph : keep only the hits that are graph nodes (default); False keeps every hit, flagged.

    Returns
    -------
    DataFrame
        ``candidates``' columns plus ``in_graph`` (bool), ``node_id`` and ``node_name`` (``""`` when not in
        the graph), in the candidates' order. CURIE prefixes compare case-insensitively (``mondo:0016296``).
        ``attrs`` (``reason``, ``url``...) are kept.
    """
    lookup = pd.DataFrame({"key": node_curies(nodes).to_numpy(), "node_id": nodes["id"].astype(str).to_numpy(),
                           "node_name": (nodes["name"].fillna("").astype(str).to_numpy() if "name" in nodes.columns
                                         else "")})
    lookup = lookup[lookup["key"] != ""].drop_duplicates("key", keep="first")
    out = candidates.assign(key=canonical_curies(candidates["curie"]) if len(candidates) else pd.Series(dtype=object))
    out = out.merge(lookup, on="key", how="left").drop(columns="key")
    out["in_graph"] = out["node_id"].notna()
    out[["node_id", "node_name"]] = out[["node_id", "node_name"]].fillna("")
    if only_in_graph:
        out = out[out["in_graph"]].reset_index(drop=True)
    out.attrs.update(candidates.attrs)
    return out
