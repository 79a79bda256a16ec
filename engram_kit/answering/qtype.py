"""Question type and expected answer type, from the question's wording alone (no model, no graph).

The four kinds are BioASQ's (Tsatsaronis et al. 2015): a **yes/no** question opens with an auxiliary or
modal verb ("Is ...", "Does ...", "Can ...", "Should ...") or is a statement to verify (no question word, a
finite verb, a full stop: "Pasteurization kills M. tuberculosis."); a **summary** question asks for an explanation
("How does ...", "Why ...", "Explain ...", "What is the mechanism / role / function of ...", a bare "What is
X?" definition); a **list** question asks for several items ("List ...", "Which genes ...", "What are the
...", a plural head noun after which/what); a **factoid** question asks for one name or number ("Which gene
is ...", "What is the most common ...", "Who", "When", "How many"). The cues are general English question
forms, not keyed on any benchmark question.

The expected answer type is the node label a question's kind words name
(:data:`engram_kit.answering.intent.KIND_WORDS`: "drugs" -> Compound) or, for answers the graph has no
label for, a coarse literature type from :data:`EXTRA_TYPE_WORDS` ("mutation", "cell", "number").
"""

from __future__ import annotations

import re

from engram_kit.answering.intent import KIND_WORDS
from engram_kit.answering.types import QuestionType

__all__ = ["EXTRA_TYPE_WORDS", "expected_type", "question_type"]

_YESNO = re.compile(r"^\W*(is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|shall|may|might"
                    r"|must)\b", re.IGNORECASE)
_SUMMARY = re.compile(
    r"^\W*(how (does|do|did|is|are|can|could|might)\b|why\b|explain\b|describe\b|summari[sz]e\b|please (summari[sz]e"
    r"|describe|explain)\b|discuss\b|what (is|are) (known|the (mechanisms?|roles?|functions?|effects?|impact|results?"
    r"|consequences?|use|uses|purpose|significance|relationship|association|difference|basis|pathophysiology"
    r"|pathogenesis)\b))|\bmechanisms? of action\b|\brole of\b|^\W*impact of\b|^\W*what (does|do|did) [^?]{1,60} do\b", re.IGNORECASE)
_DEFINITION = re.compile(r"^\W*what (is|are) (?!the\b)(an? )?[\w\-\s()']{1,60}\?\s*$", re.IGNORECASE)
_LIST = re.compile(
    r"^\W*(please )?(list|name|enumerate|give|mention|identify)\b|\bwhich (are|were) the\b|^\W*what (are|were)\b"
    r"|^\W*(which|what)( [\w-]+){1,6} (are|were)\b"
    r"|^\W*(which|what)( [\w-]+){0,2} (?!(is|was|has|does|this|thus|status|virus|genus|sepsis|analysis)\b)"
    r"[\w-]{2,}(s|ies|ae|ia)\b (?!(is|was|of|in|for|to|by|with|from)\b)[a-z]\w+"
    r"|\bwhich \w+(s|ies)\b\s*\??\s*$|\bwhat \w+(s|ies)\b\s*\??\s*$|\bfor which \w+(s|ies)\b", re.IGNORECASE)
#: "What does X treat?" / "Which diseases is X associated with?": a graph relation asked of one entity, whose
#: answer is the set of its targets ("What does capnography measure?" stays factoid: not a relation verb).
_RELATION_LIST = re.compile(
    r"^\W*what (does|do|did) [^?]{1,60} (treat|bind|target|interact with|activate|inhibit|regulate|upregulate"
    r"|downregulate|cause|palliate|resemble|express|participate in|associate with)\s*\??\s*$"
    r"|^\W*(which|what) [\w-]{2,}[^\Wsui]s (is|are|was|were) [^?]{1,60} (associated|related|linked) (with|to)\s*\??\s*$",
    re.IGNORECASE)
_FACTOID_SINGULAR = re.compile(r"\b(most|main|first|primary|best|major|only|optimal|preferred|largest|highest)\b"
                               r"|^\W*(who|when|where|how (many|much|long|old|often))\b", re.IGNORECASE)
#: Coarse answer types for literature phrases the graph has no label for: question words -> type name.
EXTRA_TYPE_WORDS: tuple[tuple[str, str], ...] = (
    (r"\bmutations?\b|\bvariants?\b|\bpolymorphisms?\b|\balleles?\b|\bsnps?\b", "Mutation"),
    (r"\bhow many\b|\bnumber of\b|\bhow much\b|\bproportion\b|\bpercentage\b|\brate\b|\bfrequency\b|\bincidence\b"
     r"|\bprevalence\b|\bhow (long|old|often)\b|\bdose\b|\bage\b|^\W*when\b|\bwhat year\b|\bin which year\b",
     "Number"),
    (r"\bcells?\b", "Cell"),
    (r"\bvirus(es)?\b|\bbacteri(um|a)\b|\bpathogens?\b|\borganisms?\b|\bspecies\b|\bgenus\b|\bvectors?\b"
     r"|\bparasites?\b", "Organism"),
    (r"\bprocedures?\b|\bsurg(ery|eries|ical)\b|\btests?\b|\bmethods?\b|\btechniques?\b|\bassays?\b", "Procedure"),
)


#: A statement to verify ("Pasteurization kills M. tuberculosis."): no question word, a finite verb, a full stop.
_STATEMENT = re.compile(r"^(?!\W*(what|which|who|whom|whose|when|where|why|how|list|name|please|describe|explain"
                        r"|summari[sz]e)\b)[^?]*\b(is|are|was|were|has|have|can|does|do|causes?|kills?|prevents?"
                        r"|increases?|reduces?|improves?|protects?|treats?)\b[^?]*\.\s*$", re.IGNORECASE)


def question_type(question: str) -> QuestionType:
    """The kind of ``question`` (see module docstring): ``"yesno"``, ``"summary"``, ``"list"`` or ``"factoid"``
    (the default for any other "what/which" question)."""
    q = " ".join(question.split())
    if _YESNO.search(q) or _STATEMENT.search(q):
        return "yesno"
    if _SUMMARY.search(q):
        return "summary"
    if _LIST.search(q) or _RELATION_LIST.search(q):
        return "list"
    if _DEFINITION.match(q) and not re.search(r"\b(which|what) \w+ (is|was)\b", q, re.IGNORECASE) \
            and not _FACTOID_SINGULAR.search(q):
        return "summary"
    return "factoid"


def expected_type(question: str) -> str:
    """The answer type ``question`` asks for: a graph label (``"Compound"``, ``"Gene"``, ...) from the first
    kind word after its question word, else a literature type from :data:`EXTRA_TYPE_WORDS`, else ``""``."""
    q = question.lower()
    best: tuple[int, str] | None = None
    for pattern, label in (*EXTRA_TYPE_WORDS, *KIND_WORDS):
        m = re.search(pattern, q)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), label)
    return best[1] if best else ""
