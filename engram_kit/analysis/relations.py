"""Typed relation patterns: verb phrases between two recognised entities of one sentence.

A pattern looks only at the text **between** two entity mentions of the same sentence (plus, for
nominal forms, the words just before the first one), so it never invents an entity: both ends must be
mentions the extractor found. Seven relations, each with active, passive and (where English has them)
hyphenated and nominal forms:

==================  ===================================  ============================================
relation            active: ``A <verb> B`` (A -> B)       passive / reversed: ``B <verb> by A`` (A -> B)
==================  ===================================  ============================================
CAUSES              induces, causes, leads to, triggers   induced by, caused by, due to, secondary to;
                    ``A-induced B``
INHIBITS            inhibits, blocks, suppresses,         inhibited by, blocked by ...; ``B inhibitor A``
                    ``A, an inhibitor of B``
ACTIVATES           activates, stimulates, enhances,      activated by, stimulated by ...; ``B agonist A``
                    upregulates, ``A, an agonist of B``
TREATS              treats, alleviates, ameliorates,      treated with, managed with;
                    ``A in the treatment of B``           ``treatment of B with A``
REGULATES           regulates, modulates, mediates,       regulated by, modulated by, mediated by
                    ``A-mediated B``, ``A-dependent B``
INTERACTS_WITH      interacts with, binds (to),           bound by
                    forms a complex with
ASSOCIATED_WITH     is associated with, correlates with,  ``association between A and B``
                    is linked to, ``A-associated B``
==================  ===================================  ============================================

Between the verb and the second entity up to three modifier words are allowed ("cocaine-induced acute
myocardial infarction"), but never a preposition or conjunction, so "A induced a decrease in B" is not
read as A CAUSES B. Auxiliaries and adverbs may precede the verb ("A has been shown to" is not matched;
"A may significantly inhibit B" is). A negation anywhere between the mentions ("did not induce",
"without", "failed to") cancels the match. A pattern that links A to B also links A to mentions
coordinated with B ("A-induced B and C"; ", ", " and ", " or " only). A second mention that premodifies
another noun ("imatinib inhibits the cisplatin-induced apoptosis") is never the object of a pattern, and a
nominal pattern that reads the words before the first mention is cancelled by a negation there ("no link
between A and B").

The hyphenated CAUSES form is the classic BC5CDR chemical-induced-disease cue (Wei et al., "Assessing
the state of the art in biomedical relation extraction: overview of the BioCreative V chemical-disease
relation (CDR) task", Database 2016). Precision is measured in ``benchmarks/literature_map.py``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["RELATION_TYPES", "RelationHit", "RelationPattern", "DEFAULT_PATTERNS", "find_relations"]

#: The typed relations, in reporting order.
RELATION_TYPES: tuple[str, ...] = (
    "CAUSES", "INHIBITS", "INTERACTS_WITH", "TREATS", "REGULATES", "ACTIVATES", "ASSOCIATED_WITH",
)

_AUX = (r"(?:may|might|can|could|will|would|did|does|do|has|have|had|is|was|were|are|be|been|being|"
        r"also|further|thereby|thus|which|that|to|\w+ly|dose-dependently|in\s+turn)")
_STOP = r"(?:of|in|on|by|with|from|for|to|at|after|before|during|than|that|which|whereas|while|but|and|or|as|via|through|between|among)"
_MOD = rf"(?!{_STOP}\b)[\w'/-]+"
_NEGATION = re.compile(r"\b(not|no|neither|nor|without|fail(?:s|ed)?|lack(?:s|ed)?|never|cannot|unlikely)\b",
                       re.I)
#: A mention followed by "-induced", "-mediated"... modifies another noun ("the cisplatin-induced apoptosis")
#: and cannot be the object of a verb before it.
_PREMODIFIER = re.compile(r"-(?:induced|mediated|dependent|related|associated|treated|stimulated|evoked|"
                          r"caused|triggered|activated|regulated|exposed|resistant|sensitive|positive|negative)\b",
                          re.I)
_COORDINATION = re.compile(r"^\s*(?:,|,?\s*and|,?\s*or|/)\s*$", re.I)


def _active(verbs: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*,?\s*(?:{_AUX}\s+){{0,4}}(?:{verbs})(?:\s+{_MOD}){{0,3}}\s*$", re.I)


def _passive(verbs: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*,?\s*(?:{_AUX}\s+){{0,4}}(?:{verbs})\s+(?:by|with)(?:\s+(?:the|a|an|{_MOD}))"
                      rf"{{0,3}}(?:\s+of)?(?:\s+{_MOD}){{0,2}}\s*$", re.I)


def _hyphen(words: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*-\s*(?:{words})(?:\s+{_MOD}){{0,3}}\s*$", re.I)


@dataclass(frozen=True)
class RelationPattern:
    """One pattern.

    Attributes
    ----------
    relation : str
        One of :data:`RELATION_TYPES`.
    form : str
        ``"active"``, ``"passive"``, ``"hyphen"``, ``"nominal"``: how the pattern reads.
    between : re.Pattern
        Must match the whole text between the first and the second mention (``re.fullmatch`` semantics
        are built into the pattern with ``^...$``).
    reverse : bool
        True when the *second* mention is the source ("B induced by A": A -> B).
    before : re.Pattern or None
        If set, must match the end of the sentence text before the first mention.
    """

    relation: str
    form: str
    between: re.Pattern[str]
    reverse: bool = False
    before: re.Pattern[str] | None = None


_CAUSE_VERBS = (r"induc(?:e|es|ed|ing)|caus(?:e|es|ed|ing)|provok(?:e|es|ed|ing)|trigger(?:s|ed|ing)?|"
                r"elicit(?:s|ed|ing)?|precipitat(?:e|es|ed|ing)|evok(?:e|es|ed|ing)|"
                r"(?:lead|leads|led|leading)\s+to|result(?:s|ed|ing)?\s+in|produc(?:e|es|ed|ing)")
_CAUSE_PARTICIPLES = r"induced|caused|provoked|triggered|elicited|precipitated|evoked|produced"
_INHIBIT_VERBS = (r"inhibit(?:s|ed|ing)?|block(?:s|ed|ing)?|suppress(?:es|ed|ing)?|attenuat(?:e|es|ed|ing)|"
                  r"antagoni[sz](?:e|es|ed|ing)|abolish(?:es|ed|ing)?|downregulat(?:e|es|ed|ing)|"
                  r"down-regulat(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|reduc(?:e|es|ed|ing)")
_INHIBIT_PARTICIPLES = (r"inhibited|blocked|suppressed|attenuated|antagoni[sz]ed|abolished|downregulated|"
                        r"down-regulated|decreased|reduced")
_ACTIVATE_VERBS = (r"activat(?:e|es|ed|ing)|stimulat(?:e|es|ed|ing)|enhanc(?:e|es|ed|ing)|"
                   r"potentiat(?:e|es|ed|ing)|upregulat(?:e|es|ed|ing)|up-regulat(?:e|es|ed|ing)|"
                   r"increas(?:e|es|ed|ing)|promot(?:e|es|ed|ing)")
_ACTIVATE_PARTICIPLES = (r"activated|stimulated|enhanced|potentiated|upregulated|up-regulated|increased|"
                         r"promoted")
_TREAT_VERBS = (r"treat(?:s|ed|ing)?|cur(?:e|es|ed|ing)|ameliorat(?:e|es|ed|ing)|alleviat(?:e|es|ed|ing)|"
                r"reliev(?:e|es|ed|ing)|is\s+effective\s+(?:in|for|against)|was\s+effective\s+(?:in|for|against)")
_REGULATE_VERBS = (r"regulat(?:e|es|ed|ing)|modulat(?:e|es|ed|ing)|mediat(?:e|es|ed|ing)|"
                   r"control(?:s|led|ling)?")
_REGULATE_PARTICIPLES = r"regulated|modulated|mediated|controlled"

DEFAULT_PATTERNS: tuple[RelationPattern, ...] = (
    # CAUSES
    RelationPattern("CAUSES", "hyphen", _hyphen(r"induced|caused|provoked|evoked|triggered|elicited")),
    RelationPattern("CAUSES", "active", _active(_CAUSE_VERBS)),
    RelationPattern("CAUSES", "passive", _passive(_CAUSE_PARTICIPLES), reverse=True),
    RelationPattern("CAUSES", "passive", re.compile(
        rf"^\s*,?\s*(?:{_AUX}\s+){{0,3}}(?:due|secondary|attributable|attributed)\s+to(?:\s+(?:the|a|an|{_MOD}))"
        rf"{{0,2}}(?:\s+of)?\s*$", re.I), reverse=True),
    # INHIBITS
    RelationPattern("INHIBITS", "active", _active(_INHIBIT_VERBS)),
    RelationPattern("INHIBITS", "passive", _passive(_INHIBIT_PARTICIPLES), reverse=True),
    RelationPattern("INHIBITS", "nominal", re.compile(
        rf"^\s*,?\s*(?:(?:is|was|as|acts\s+as)\s+)?(?:an?|the)\s+(?:{_MOD}\s+){{0,2}}(?:inhibitor|antagonist|"
        rf"blocker)s?\s+(?:of|at)(?:\s+(?:the|a|an))?\s*$", re.I)),
    RelationPattern("INHIBITS", "nominal", re.compile(
        r"^\s*(?:-\s*)?(?:inhibitor|antagonist|blocker)s?\s*,?\s*$", re.I), reverse=True),
    # ACTIVATES
    RelationPattern("ACTIVATES", "active", _active(_ACTIVATE_VERBS)),
    RelationPattern("ACTIVATES", "passive", _passive(_ACTIVATE_PARTICIPLES), reverse=True),
    RelationPattern("ACTIVATES", "nominal", re.compile(
        rf"^\s*,?\s*(?:(?:is|was|as|acts\s+as)\s+)?(?:an?|the)\s+(?:{_MOD}\s+){{0,2}}(?:agonist|activator|"
        rf"inducer)s?\s+(?:of|at)(?:\s+(?:the|a|an))?\s*$", re.I)),
    RelationPattern("ACTIVATES", "nominal", re.compile(
        r"^\s*(?:-\s*)?(?:agonist|activator)s?\s*,?\s*$", re.I), reverse=True),
    # TREATS
    RelationPattern("TREATS", "active", _active(_TREAT_VERBS)),
    RelationPattern("TREATS", "active", re.compile(
        rf"^\s*,?\s*(?:{_AUX}\s+){{0,3}}(?:(?:effective|useful|used|beneficial|indicated|approved)\s+)?"
        rf"(?:in|for)\s+(?:the\s+)?(?:treatment|therapy|management)\s+of"
        rf"(?:\s+{_MOD}){{0,2}}\s*$", re.I)),
    RelationPattern("TREATS", "passive", re.compile(
        rf"^\s*,?\s*(?:{_AUX}\s+){{0,3}}(?:treated|managed|cured)\s+(?:with|by)(?:\s+(?:the|a|an|{_MOD}))"
        rf"{{0,2}}(?:\s+of)?\s*$", re.I), reverse=True),
    RelationPattern("TREATS", "passive", re.compile(r"^\s*(?:{_MOD}\s+){{0,2}}with\s*$".replace(
        "{_MOD}", _MOD).replace("{{0,2}}", "{0,2}"), re.I), reverse=True,
        before=re.compile(r"\b(?:treatment|therapy|management)\s+of\s+(?:the\s+)?$", re.I)),
    # REGULATES
    RelationPattern("REGULATES", "hyphen", _hyphen(r"mediated|dependent|regulated")),
    RelationPattern("REGULATES", "active", _active(_REGULATE_VERBS)),
    RelationPattern("REGULATES", "passive", _passive(_REGULATE_PARTICIPLES), reverse=True),
    # INTERACTS_WITH
    RelationPattern("INTERACTS_WITH", "active", re.compile(
        rf"^\s*,?\s*(?:{_AUX}\s+){{0,3}}(?:interact(?:s|ed|ing)?\s+with|bind(?:s|ing)?(?:\s+to)?|bound\s+to|"
        rf"form(?:s|ed)?\s+(?:a\s+)?complex(?:es)?\s+with|complexed\s+with)(?:\s+(?:the|a|an))?\s*$", re.I)),
    RelationPattern("INTERACTS_WITH", "passive", re.compile(
        rf"^\s*,?\s*(?:{_AUX}\s+){{0,3}}bound\s+by(?:\s+(?:the|a|an))?\s*$", re.I), reverse=True),
    # ASSOCIATED_WITH
    RelationPattern("ASSOCIATED_WITH", "hyphen", _hyphen(r"associated|related|linked")),
    RelationPattern("ASSOCIATED_WITH", "active", re.compile(
        rf"^\s*,?\s*(?:{_AUX}\s+){{0,4}}(?:associated\s+with|correlat(?:es|ed|ing)\s+with|linked\s+(?:to|with)|"
        rf"related\s+to)(?:\s+(?:the|a|an|{_MOD})){{0,3}}\s*$", re.I)),
    RelationPattern("ASSOCIATED_WITH", "nominal", re.compile(r"^\s*(?:and|with)\s*$", re.I),
                    before=re.compile(r"\b(?:association|correlation|relationship|link)s?\s+(?:between|of)"
                                      r"\s+(?:the\s+)?$", re.I)),
)


@dataclass(frozen=True)
class RelationHit:
    """A typed relation found between two mentions of one sentence.

    Attributes
    ----------
    relation : str
        One of :data:`RELATION_TYPES`.
    source, target : int
        Indices (into the mention list given to :func:`find_relations`) of the source and target
        mentions, in the direction of the relation (A CAUSES B: source = A).
    form : str
        Form of the pattern that matched (``active``, ``passive``, ``hyphen``, ``nominal``).
    """

    relation: str
    source: int
    target: int
    form: str


def _match(sentence: str, first: tuple[int, int], second: tuple[int, int],
           patterns: Sequence[RelationPattern]) -> RelationPattern | None:
    between = sentence[first[1]:second[0]]
    if len(between) > 80 or _NEGATION.search(between) or _PREMODIFIER.match(sentence, second[1]):
        return None
    for pattern in patterns:
        if pattern.between.match(between) is None:
            continue
        if pattern.before is not None:
            before = sentence[max(0, first[0] - 60):first[0]]
            if pattern.before.search(before) is None or _NEGATION.search(before):
                continue
        return pattern
    return None


def find_relations(
    sentence: str,
    spans: Sequence[tuple[int, int]],
    entity_ids: Sequence[str],
    patterns: Sequence[RelationPattern] = DEFAULT_PATTERNS,
) -> list[RelationHit]:
    """Typed relations between recognised mentions of one sentence.

    Parameters
    ----------
    sentence : str
        The sentence text.
    spans : sequence of (int, int)
        Character offsets of the mentions **into the sentence**, sorted by start, non-overlapping.
    entity_ids : sequence of str
        Resolved entity id of each mention (same length as ``spans``); pairs of one entity are skipped.
    patterns : sequence of RelationPattern
        Tried in order; the first that matches a mention pair wins. Default :data:`DEFAULT_PATTERNS`.

    Returns
    -------
    list of RelationHit
        At most one hit per adjacent mention pair, plus the coordination extensions described in the
        module docstring. Empty when nothing matches.

    Raises
    ------
    ValueError
        If ``spans`` and ``entity_ids`` differ in length.

    Examples
    --------
    >>> s = "Levodopa-induced dyskinesia was reduced by amantadine."
    >>> [(h.relation, h.source, h.target) for h in find_relations(s, [(0, 8), (17, 27), (43, 53)],
    ...                                                              ["L", "D", "A"])]
    [('CAUSES', 0, 1), ('INHIBITS', 2, 1)]
    """
    if len(spans) != len(entity_ids):
        raise ValueError(f"{len(spans)} spans but {len(entity_ids)} entity ids: pass one id per mention.")
    hits: list[RelationHit] = []
    for i in range(len(spans) - 1):
        j = i + 1
        if entity_ids[i] == entity_ids[j]:
            continue
        pattern = _match(sentence, spans[i], spans[j], patterns)
        if pattern is None:
            continue
        source, target = (j, i) if pattern.reverse else (i, j)
        hits.append(RelationHit(pattern.relation, source, target, pattern.form))
        # coordination: "A-induced B and C" -> A CAUSES C; "B and C induced by A" is not handled.
        k = j
        while k + 1 < len(spans) and _COORDINATION.match(sentence[spans[k][1]:spans[k + 1][0]]):
            k += 1
            if entity_ids[k] in (entity_ids[i], entity_ids[j]):
                continue
            if pattern.reverse:
                break
            hits.append(RelationHit(pattern.relation, i, k, pattern.form))
    return hits
