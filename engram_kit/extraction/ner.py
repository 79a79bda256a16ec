"""Optional named-entity recognition: a registry of NER backends (scispaCy models, the bundled BC5CDR model).

scispaCy's NER models (e.g. ``en_ner_bc5cdr_md``: chemicals and diseases, trained on BC5CDR; Neumann et
al., "ScispaCy: Fast and Robust Models for Biomedical Natural Language Processing", BioNLP 2019, report
NER F1 84.28 on the BC5CDR test set) are not on PyPI and are **not** dependencies of engram-kit. Install one
yourself if you want NER spans in addition to dictionary matches, e.g.::

    pip install https://s3-us-west-2.amazonaws.com/ai2-s2-scispacy/releases/v0.5.4/en_ner_bc5cdr_md-0.5.4.tar.gz

engram-kit never downloads it. Besides installed spaCy packages, :data:`engram_kit.plugins.ner` holds registered
backends (:class:`NerBackend`: one registration line, ``plugins.ner.register("name", NerBackend(factory,
available))``, or an entry point in the group ``engram_kit.ner``); the shipped ones are ``bc5cdr-cnn``, a small spaCy pipeline trained offline on
the BC5CDR training split (``data/models/bc5cdr-ner``, built by ``data/models/build_bc5cdr_ner.py``; scores in
``benchmarks/results/ner.md``) and ``bc5cdr-terms`` (:class:`TermTagger`). ``ner="auto"`` uses :data:`DEFAULT_NER_MODEL` when it is installed, else the
bundled ``bc5cdr-cnn`` when its folder is present, else skips NER silently; naming a model or backend
explicitly raises :class:`BackendUnavailableError` when it is absent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from engram_kit import plugins
from engram_kit.errors import BackendUnavailableError


def _is_spacy_package(model: str) -> bool:
    """Whether ``model`` is an installed spaCy pipeline package (spaCy is imported here, on first need, not at
    module load: a question or ``engram info`` needs no NER; issue 30)."""
    from engram_kit.extraction._spacy_import import import_spacy

    return bool(import_spacy().util.is_package(model))


log = logging.getLogger(__name__)

#: scispaCy model used by ``ner="auto"``.
DEFAULT_NER_MODEL = "en_ner_bc5cdr_md"
_INSTALL_HINT = ("pip install https://s3-us-west-2.amazonaws.com/ai2-s2-scispacy/releases/v0.5.4/"
                 "{model}-0.5.4.tar.gz (see https://allenai.github.io/scispacy/)")

#: One entity span: (start, end, label) in character offsets, end exclusive.
Span = tuple[int, int, str]


class SpanTagger(Protocol):
    """What the extractor needs of a NER backend (:class:`NerTagger`, :class:`TermTagger` or a registered one):
    its ``model`` name and ``(start, end, label)`` spans, sorted by start, for one text or many in order."""

    model: str

    def spans(self, text: str) -> list[Span]: ...

    def spans_many(self, texts: Iterable[str], *, batch_size: int = 32) -> Iterator[list[Span]]: ...


#: The bundled BC5CDR chemical/disease NER pipeline (spaCy folder; absent in a checkout that did not build it).
BUNDLED_NER_DIR = Path(__file__).resolve().parents[2] / "data" / "models" / "bc5cdr-ner"
#: Name of the bundled backend in :data:`engram_kit.plugins.ner`.
BUNDLED_NER = "bc5cdr-cnn"


@dataclass(frozen=True)
class NerBackend:
    """One registered NER backend (an entry of :data:`engram_kit.plugins.ner`; ``EntityExtractor(ner=name)``).

    Attributes
    ----------
    factory : callable
        Builds the tagger (loads the model); called once per extractor.
    available : callable
        Whether the backend can be loaded here (files or packages present), without loading it.
    """

    factory: Callable[[], SpanTagger]
    available: Callable[[], bool] = lambda: True


def _check_backend(name: str, obj: object) -> None:
    """:attr:`engram_kit.plugins.Registry.validate` of the NER taggers: a :class:`NerBackend`."""
    if not isinstance(obj, NerBackend):
        raise plugins.PluginError(f"The NER tagger {name!r} must be a NerBackend(factory, available); got {obj!r}.")


plugins.ner.validate = _check_backend


def register_ner(name: str, available: Callable[[], bool], *, replace: bool = False,
                 ) -> Callable[[Callable[[], SpanTagger]], Callable[[], SpanTagger]]:
    """Deprecated alias: decorator registering ``NerBackend(factory, available)`` as ``name`` in
    :data:`engram_kit.plugins.ner`.

    Parameters
    ----------
    name : str
        Backend name; must not collide with an installed spaCy package name you want to load directly.
    available : callable
        Returns whether the backend can be loaded here (files or packages present), without loading it.
    replace : bool
        Replace a backend of the same name (it used to be overwritten silently).

    Raises
    ------
    PluginError
        If ``name`` is taken and ``replace`` is False.
    """
    def wrap(factory: Callable[[], SpanTagger]) -> Callable[[], SpanTagger]:
        plugins.ner.register(name, NerBackend(factory, available), replace=replace)
        return factory
    return wrap


def ner_model_available(model: str = DEFAULT_NER_MODEL) -> bool:
    """True if ``model`` is a registered backend that is available or an installed spaCy package (no
    model load, no download)."""
    if model in plugins.ner:
        backend: NerBackend = plugins.ner.get(model)
        return backend.available()
    return _is_spacy_package(model)


class NerTagger:
    """Entity spans from an installed scispaCy/spaCy NER model.

    Parameters
    ----------
    model : str
        Installed package name, e.g. ``"en_ner_bc5cdr_md"``; or a display name when ``path`` is given.
    path : Path, optional
        Load the pipeline from this folder instead of an installed package.

    Raises
    ------
    BackendUnavailableError
        If the model package is not installed or the folder is missing (the message says what to do).
    """

    def __init__(self, model: str = DEFAULT_NER_MODEL, *, path: Path | None = None) -> None:
        if path is not None:
            if not (Path(path) / "meta.json").is_file():
                raise BackendUnavailableError(
                    f"The NER pipeline folder {path} is missing or incomplete. Build it with "
                    f"python data/models/build_bc5cdr_ner.py --corpus <BC5CDR folder>, or use ner='off'.")
            source: str | Path = Path(path)
        elif not _is_spacy_package(model):
            raise BackendUnavailableError(
                f"The NER model {model!r} is not installed. Install it with "
                f"{_INSTALL_HINT.format(model=model)}, or use ner='auto' (skips NER when absent) or ner='off'."
            )
        else:
            source = model
        self.model = model
        from engram_kit.extraction._spacy_import import import_spacy

        self._nlp = import_spacy().load(source, exclude=["lemmatizer", "parser", "attribute_ruler"])

    def spans(self, text: str) -> list[Span]:
        """Entity spans of one text, sorted by start."""
        return [(e.start_char, e.end_char, e.label_) for e in self._nlp(text).ents]

    def spans_many(self, texts: Iterable[str], *, batch_size: int = 32) -> Iterator[list[Span]]:
        """Entity spans of many texts via ``nlp.pipe``, one list per text, in order."""
        for doc in self._nlp.pipe(texts, batch_size=batch_size):
            yield [(e.start_char, e.end_char, e.label_) for e in doc.ents]


def bundled_ner() -> NerTagger:
    """The bundled BC5CDR chemical/disease tagger (labels ``Chemical``, ``Disease``): a spaCy CNN trained on
    the BC5CDR training split only (``data/models/README.md``)."""
    return NerTagger(BUNDLED_NER, path=BUNDLED_NER_DIR)


#: The annotated-term list of the ``bc5cdr-terms`` tagger (built by ``scripts/make_corpus_terms.py`` from the
#: BC5CDR training split only; ``data/synonyms/README.md``).
CORPUS_TERMS_FILE = Path(__file__).resolve().parents[2] / "data" / "synonyms" / "vocabulary" / "bc5cdr-train-terms.tsv.gz"
#: Name of the term tagger in :data:`engram_kit.plugins.ner`.
CORPUS_TERMS = "bc5cdr-terms"


class TermTagger:
    """Dictionary "NER": whole-word, case-sensitive matches of annotated chemical/disease terms, leftmost-longest,
    no overlaps (Aho-Corasick; about 0.1 ms per abstract).

    Used as a NER backend (``EntityExtractor(ner="bc5cdr-terms")``): its spans are added where no dictionary
    mention overlaps, carry the term's label and get exact/alias candidates only (no fuzzy guess), so a span
    whose text has no Hetionet node stays an unlinked NounPhrase, retrievable by text.

    Parameters
    ----------
    terms : mapping of term (as written, case kept) -> label (``"Chemical"`` or ``"Disease"``).
    model : name reported as :attr:`EntityExtractor.ner_model`.
    """

    def __init__(self, terms: dict[str, str], *, model: str = CORPUS_TERMS) -> None:
        import ahocorasick

        self.model = model
        self._labels = dict(terms)
        self._automaton = ahocorasick.Automaton()
        for term in self._labels:
            self._automaton.add_word(term, term)
        if self._labels:
            self._automaton.make_automaton()

    @classmethod
    def from_file(cls, path: Path = CORPUS_TERMS_FILE) -> TermTagger:
        """Load a ``term, label, ...`` TSV (gzip or plain) such as :data:`CORPUS_TERMS_FILE`.

        Raises
        ------
        BackendUnavailableError
            If the file is missing (the message says how to build it).
        """
        import gzip

        if not Path(path).is_file():
            raise BackendUnavailableError(f"The term list {path} is missing. Build it with python "
                                          "scripts/make_corpus_terms.py --corpus <BC5CDR training file>, or "
                                          "use ner='off'.")
        opener = gzip.open if str(path).endswith(".gz") else open
        terms: dict[str, str] = {}
        with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
            next(handle)
            for line in handle:
                term, label = line.rstrip("\n").split("\t")[:2]
                terms[term] = label
        return cls(terms)

    def spans(self, text: str) -> list[Span]:
        """Term spans of one text, sorted by start: whole words (no letter or digit right before or after),
        longest first, no overlaps."""
        if not self._labels:
            return []
        found = []
        for last, term in self._automaton.iter(text):
            start, end = last - len(term) + 1, last + 1
            if (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
                continue
            found.append((start, end, term))
        kept: list[Span] = []
        for start, end, term in sorted(found, key=lambda f: (f[0] - f[1], f[0])):
            if all(end <= s or start >= e for s, e, _ in kept):
                kept.append((start, end, self._labels[term]))
        return sorted(kept)

    def spans_many(self, texts: Iterable[str], *, batch_size: int = 32) -> Iterator[list[Span]]:
        """Term spans of many texts, one list per text, in order (``batch_size`` is ignored)."""
        for text in texts:
            yield self.spans(text)


def corpus_terms() -> TermTagger:
    """The BC5CDR training-split term tagger (:class:`TermTagger` over :data:`CORPUS_TERMS_FILE`)."""
    return TermTagger.from_file()


#: The built-in backends, registered lazily in :mod:`engram_kit.plugins` as ``bc5cdr-cnn`` and ``bc5cdr-terms``.
BUNDLED_NER_BACKEND = NerBackend(bundled_ner, available=lambda: (BUNDLED_NER_DIR / "meta.json").is_file())
CORPUS_TERMS_BACKEND = NerBackend(corpus_terms, available=lambda: CORPUS_TERMS_FILE.is_file())


def load_ner(ner: str) -> SpanTagger | None:
    """Resolve the extractor's ``ner`` option.

    Parameters
    ----------
    ner : str
        ``"off"``: no NER. ``"auto"``: :data:`DEFAULT_NER_MODEL` if installed, else the bundled
        :data:`BUNDLED_NER` if present, else None (logged at debug). A name in :data:`engram_kit.plugins.ner`:
        that backend, required. Any other string: that installed spaCy package, required.

    Returns
    -------
    NerTagger or None

    Raises
    ------
    BackendUnavailableError
        If a model named explicitly is not installed.
    """
    if ner == "off":
        return None
    if ner == "auto":
        if _is_spacy_package(DEFAULT_NER_MODEL):
            return NerTagger(DEFAULT_NER_MODEL)
        if ner_model_available(BUNDLED_NER):
            return plugins.ner.get(BUNDLED_NER).factory()  # type: ignore[no-any-return]
        log.debug("NER skipped: neither %s nor %s is present (ner='auto')", DEFAULT_NER_MODEL, BUNDLED_NER)
        return None
    if ner in plugins.ner:
        backend: NerBackend = plugins.ner.get(ner)
        if not backend.available():
            raise BackendUnavailableError(f"The NER backend {ner!r} is not available here (for {BUNDLED_NER}: "
                                          f"{BUNDLED_NER_DIR} is missing; build it with data/models/"
                                          f"build_bc5cdr_ner.py), or use ner='off'.")
        return backend.factory()
    return NerTagger(ner)
