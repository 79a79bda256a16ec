"""The :class:`Mention` record: one entity mention found in a text."""

from __future__ import annotations

from dataclasses import dataclass

#: Values of :attr:`Mention.method`: how the mention was found.
MENTION_METHODS: tuple[str, ...] = ("gazetteer", "abbreviation", "ner", "table")

#: Values of :attr:`Mention.label` set by the typed vocabulary (``Lexicon.vocabulary``); NER labels are
#: whatever the model emits.
VOCABULARY_LABELS: tuple[str, ...] = ("Chemical", "Disease")


@dataclass(frozen=True)
class Mention:
    """A span of a text that names (or may name) a graph entity.

    Attributes
    ----------
    text : str
        The span as written, ``input[start:end]``.
    start, end : int
        Character offsets into the input text; ``end`` is exclusive.
    candidates : tuple of str
        Hetionet node ids this surface may denote, best source first; several when ambiguous
        (``"ache"`` -> the gene ACHE and the side effect Ache). Empty for NER mentions, which the
        resolver links later.
    kinds : tuple of str
        Hetionet kind of each candidate, same length and order as ``candidates``.
    method : str
        One of :data:`MENTION_METHODS`: ``gazetteer`` (lexicon match), ``abbreviation`` (a short form defined
        in the same text, e.g. ``AD`` after "Alzheimer's disease (AD)"), ``ner`` (a scispaCy NER span), ``table``
        (a whole table cell, :mod:`engram_kit.extraction.tables`).
    long_form : str
        For abbreviations, the long form as written in the text; ``""`` otherwise.
    label : str
        Entity type of the span when a source other than a Hetionet node says it: the NER model's label
        (``"CHEMICAL"``, ``"DISEASE"`` for ``en_ner_bc5cdr_md``) or the type of a typed vocabulary term
        without a Hetionet node (:data:`VOCABULARY_LABELS`, e.g. ``"Chemical"`` for "heparin"). ``""`` when
        unknown; then the kinds of ``candidates`` are the only typing. Optional and last, so positional
        construction of older code keeps working.
    sentence : str
        The sentence holding the mention (whitespace collapsed); ``""`` when unknown. The resolver's
        :meth:`~engram_kit.resolution.EntityResolver.link` scores kinds with it.
    zone : str
        Text zone of that sentence (:func:`engram_kit.extraction.context.text_zone`): ``"prose"`` (default),
        ``"author"``, ``"affiliation"``, ``"reference"`` or ``"table"``; only prose mentions are linked.
    cues : frozenset of str
        Context cues of the sentence and its text (:func:`engram_kit.extraction.context.context_cues`).
    """

    text: str
    start: int
    end: int
    candidates: tuple[str, ...]
    kinds: tuple[str, ...]
    method: str
    long_form: str = ""
    label: str = ""
    sentence: str = ""
    zone: str = "prose"
    cues: frozenset[str] = frozenset()
