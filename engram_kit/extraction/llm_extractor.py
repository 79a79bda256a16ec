"""Optional LLM entity extraction (JSON-schema output); the gazetteer stays the default and the fallback.

The LLM lists the biomedical entities it sees in a text (``{"entities": [{"text", "kind"}]}``, validated by
pydantic). Each one must occur verbatim (case-insensitive) in the text: its first free occurrence becomes a
:class:`~engram_kit.extraction.Mention` with ``method="ner"`` and no candidates, so the resolver links it
exactly like a scispaCy NER span; an entity not in the text is dropped (the model cannot invent mentions).
Gazetteer mentions are kept first and LLM mentions only fill spans they do not overlap. When the provider
cannot answer (the offline provider, which never invents, or a failure), the gazetteer result is returned
and the reason logged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

from pydantic import BaseModel, Field

from engram_kit.errors import LLMError
from engram_kit.extraction.extractor import EntityExtractor
from engram_kit.extraction.mention import Mention
from engram_kit.llm.base import LLM

log = logging.getLogger(__name__)

#: System prompt of the extraction call (part of the cassette request hash).
EXTRACTION_SYSTEM = (
    "List the biomedical entities named in the text: genes/proteins, compounds/drugs, diseases, symptoms, "
    "side effects, anatomy, pathways, biological processes. Copy each name exactly as written in the text."
)


class ExtractedEntity(BaseModel):
    """One entity the LLM found: its surface text (verbatim) and a Hetionet-style kind."""

    text: str
    kind: str = Field(default="", description="e.g. Gene, Compound, Disease, Pathway")


class ExtractedEntities(BaseModel):
    """The LLM's structured output."""

    entities: list[ExtractedEntity]


class LLMEntityExtractor:
    """Gazetteer extraction plus LLM-found spans (see module docstring). Same ``extract`` interface as
    :class:`~engram_kit.extraction.EntityExtractor`.

    Parameters
    ----------
    llm : LLM
        Any provider with ``structured`` output (Anthropic, or a replay cassette).
    gazetteer : EntityExtractor
        The default extractor; its mentions come first and are the fallback.
    max_tokens : int
        Output cap of the extraction call.
    """

    def __init__(self, llm: LLM, gazetteer: EntityExtractor, *, max_tokens: int = 600) -> None:
        self.llm = llm
        self.gazetteer = gazetteer
        self.max_tokens = max_tokens

    def extract(self, text: str) -> list[Mention]:
        """Mentions in ``text``, sorted by start offset."""
        mentions = list(self.gazetteer.extract(text))
        try:
            found = self.llm.structured([{"role": "user", "content": text}], ExtractedEntities,
                                        system=EXTRACTION_SYSTEM, max_tokens=self.max_tokens)
        except LLMError as exc:
            log.info("LLM extraction unavailable (%s); using the gazetteer only", exc)
            return mentions
        lowered = text.lower()
        for entity in found.entities:
            span = _free_span(lowered, entity.text.strip().lower(), mentions)
            if span is None:
                log.debug("Dropped LLM entity not found in the text: %r", entity.text)
                continue
            start, end = span
            mentions.append(Mention(text[start:end], start, end, (), (), "ner"))
        return sorted(mentions, key=lambda m: (m.start, m.end))

    def extract_many(self, texts: Iterable[str]) -> Iterator[list[Mention]]:
        """:meth:`extract` for each text, in order."""
        for text in texts:
            yield self.extract(text)


def _free_span(lowered: str, needle: str, taken: list[Mention]) -> tuple[int, int] | None:
    """First occurrence of ``needle`` in ``lowered`` that overlaps no mention in ``taken``."""
    if len(needle) < 2:
        return None
    start = lowered.find(needle)
    while start != -1:
        end = start + len(needle)
        if all(end <= m.start or start >= m.end for m in taken):
            return start, end
        start = lowered.find(needle, start + 1)
    return None
