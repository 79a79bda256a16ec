"""Optional named-entity recognition with a scispaCy model.

scispaCy's NER models (e.g. ``en_ner_bc5cdr_md``: chemicals and diseases, trained on BC5CDR; Neumann et
al., "ScispaCy: Fast and Robust Models for Biomedical Natural Language Processing", BioNLP 2019, report
NER F1 84.28 on the BC5CDR test set) are not on PyPI and are **not** dependencies of engram-kit. Install one
yourself if you want NER spans in addition to dictionary matches, e.g.::

    pip install https://s3-us-west-2.amazonaws.com/ai2-s2-scispacy/releases/v0.5.4/en_ner_bc5cdr_md-0.5.4.tar.gz

engram-kit never downloads it. ``ner="auto"`` uses :data:`DEFAULT_NER_MODEL` when it is installed and
silently skips NER otherwise; naming a model explicitly raises :class:`BackendUnavailableError` when absent.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

import spacy

from engram_kit.errors import BackendUnavailableError

log = logging.getLogger(__name__)

#: scispaCy model used by ``ner="auto"``.
DEFAULT_NER_MODEL = "en_ner_bc5cdr_md"
_INSTALL_HINT = ("pip install https://s3-us-west-2.amazonaws.com/ai2-s2-scispacy/releases/v0.5.4/"
                 "{model}-0.5.4.tar.gz (see https://allenai.github.io/scispacy/)")

#: One entity span: (start, end, label) in character offsets, end exclusive.
Span = tuple[int, int, str]


def ner_model_available(model: str = DEFAULT_NER_MODEL) -> bool:
    """True if the spaCy model package ``model`` is installed (no import, no download)."""
    return bool(spacy.util.is_package(model))


class NerTagger:
    """Entity spans from an installed scispaCy/spaCy NER model.

    Parameters
    ----------
    model : str
        Installed package name, e.g. ``"en_ner_bc5cdr_md"``.

    Raises
    ------
    BackendUnavailableError
        If the model package is not installed (the message says how to install it).
    """

    def __init__(self, model: str = DEFAULT_NER_MODEL) -> None:
        if not ner_model_available(model):
            raise BackendUnavailableError(
                f"The NER model {model!r} is not installed. Install it with "
                f"{_INSTALL_HINT.format(model=model)}, or use ner='auto' (skips NER when absent) or ner='off'."
            )
        self.model = model
        self._nlp = spacy.load(model, exclude=["lemmatizer", "parser", "attribute_ruler"])

    def spans(self, text: str) -> list[Span]:
        """Entity spans of one text, sorted by start."""
        return [(e.start_char, e.end_char, e.label_) for e in self._nlp(text).ents]

    def spans_many(self, texts: Iterable[str], *, batch_size: int = 32) -> Iterator[list[Span]]:
        """Entity spans of many texts via ``nlp.pipe``, one list per text, in order."""
        for doc in self._nlp.pipe(texts, batch_size=batch_size):
            yield [(e.start_char, e.end_char, e.label_) for e in doc.ents]


def load_ner(ner: str) -> NerTagger | None:
    """Resolve the extractor's ``ner`` option.

    Parameters
    ----------
    ner : str
        ``"off"``: no NER. ``"auto"``: :data:`DEFAULT_NER_MODEL` if installed, else None (logged at debug).
        Any other string: that model package, required.

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
        if not ner_model_available(DEFAULT_NER_MODEL):
            log.debug("NER skipped: %s is not installed (ner='auto')", DEFAULT_NER_MODEL)
            return None
        return NerTagger(DEFAULT_NER_MODEL)
    return NerTagger(ner)
