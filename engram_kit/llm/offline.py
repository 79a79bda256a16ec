"""A deterministic, extractive stand-in for an LLM: it only ever returns text found in its input.

How it answers
--------------
* The **question** is the text after the last ``Question:`` marker of the last user message, else that
  message's last non-empty line. Everything else (system prompt and all messages) is the **context**.
* The context is split into lines, and lines into sentences. A line that starts with a bracketed label
  (``[P1] ...``, ``[q2:r1] ...``) passes the label on to each of its sentences, so citations survive.
* Each sentence scores the number of distinct question words (lower-cased, >= 3 characters, minus a
  short stop list) it contains, divided by ``sqrt(1 + words in the sentence)`` (favouring focused
  sentences). The top ``max_sentences`` sentences with a score > 0 are returned in context order.
  Ties keep the earlier sentence. No overlap: the empty string (stop reason ``"no_evidence"``).

``structured()`` fills a pydantic model only from the context: the last JSON object in the context
that validates against the schema, else ``field: value`` lines for every required field; otherwise
:class:`~engram_kit.errors.LLMError` names the fields it could not extract.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from engram_kit.errors import LLMError
from engram_kit.llm.base import LLMResponse, LLMUsage, ModelT
from engram_kit.text import split_statements

#: Words ignored when matching question and sentences.
STOPWORDS: frozenset[str] = frozenset(
    "the and for with that this from what which does are was were has have had how why who whom whose "
    "into onto about between their there these those than then can could would should may might also "
    "its not but all any each other such use used using based answer question evidence cite only".split()
)
_WORD = re.compile(r"[a-z0-9][a-z0-9\-']+")
_LABEL = re.compile(r"^\s*(\[[^\]\n]{1,40}\])\s*")
_QUESTION = re.compile(r"question\s*:\s*", re.IGNORECASE)
_FIELD_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_ ]{0,40})\s*[:=]\s*(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class _Sentence:
    position: int
    label: str
    text: str

    @property
    def rendered(self) -> str:
        return f"{self.label} {self.text}" if self.label else self.text


def words(text: str) -> set[str]:
    """Content words of ``text``: lower-cased tokens of >= 3 characters not in :data:`STOPWORDS`."""
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in STOPWORDS}


def split_question(messages: Sequence[dict[str, str]], system: str = "") -> tuple[str, str]:
    """``(question, context)`` of a request, as described in the module docstring."""
    users = [m for m in messages if m.get("role") == "user"]
    last = users[-1]["content"] if users else ""
    markers = list(_QUESTION.finditer(last))
    if markers:
        question_part = last[markers[-1].end():]
        question = question_part.strip().splitlines()[0] if question_part.strip() else ""
        last_context = last[:markers[-1].start()] + question_part[len(question_part.split("\n", 1)[0]):]
    else:
        lines = [line for line in last.splitlines() if line.strip()]
        question = lines[-1].strip() if lines else ""
        last_context = "\n".join(lines[:-1])
    others = [m["content"] for m in messages if m is not (users[-1] if users else None)]
    context = "\n".join([system, *others, last_context])
    return question.strip(), context


def context_sentences(context: str) -> list[_Sentence]:
    """Sentences of the context, each carrying the bracketed label of its line (if any)."""
    out: list[_Sentence] = []
    for line in context.splitlines():
        match = _LABEL.match(line)
        label = match.group(1) if match else ""
        body = line[match.end():] if match else line
        # The statement rule, not the prose one: a reply is re-split by the answer validators with it, so every
        # sentence returned here must come back whole there (engram_kit.text.split_statements).
        for piece in split_statements(body):
            if len(piece.text) >= 3:
                out.append(_Sentence(len(out), label, piece.text))
    return out


class OfflineLLM:
    """Deterministic extractive "LLM" (see module docstring): never writes a word not in its input.

    Parameters
    ----------
    max_sentences : int
        Sentences returned by :meth:`complete`, >= 1.

    Examples
    --------
    >>> llm = OfflineLLM(max_sentences=1)
    >>> llm.complete([{"role": "user", "content": "[P1] Metformin lowers glucose. Rain is wet.\\n"
    ...                "Question: what does metformin lower?"}]).text
    '[P1] Metformin lowers glucose.'
    """

    name = "offline"

    def __init__(self, *, max_sentences: int = 3) -> None:
        if max_sentences < 1:
            raise LLMError(f"OfflineLLM(max_sentences={max_sentences}) must return at least 1 sentence.")
        self.max_sentences = max_sentences

    def __repr__(self) -> str:
        return f"OfflineLLM(max_sentences={self.max_sentences})"

    def complete(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
                 temperature: float = 0.0) -> LLMResponse:
        """The most relevant context sentences (with their labels), or ``""`` when nothing overlaps."""
        question, context = split_question(messages, system)
        picked = self.rank(question, context_sentences(context))
        text = " ".join(s.rendered for s in picked)
        words_out = len(text.split())
        return LLMResponse(text=text, model=self.name, stop_reason="end_turn" if picked else "no_evidence",
                           usage=LLMUsage(input_tokens=0, output_tokens=min(words_out, max_tokens)))

    def stream(self, messages: Sequence[dict[str, str]], *, system: str = "", max_tokens: int = 1024,
               temperature: float = 0.0) -> Iterator[str]:
        """The :meth:`complete` text in word-sized chunks (concatenation equals ``complete().text``)."""
        text = self.complete(messages, system=system, max_tokens=max_tokens).text
        yield from re.findall(r"\S+\s*", text)

    def structured(self, messages: Sequence[dict[str, str]], schema: type[ModelT], *, system: str = "",
                   max_tokens: int = 1024) -> ModelT:
        """Fill ``schema`` from JSON objects or ``field: value`` lines of the input only.

        Raises
        ------
        LLMError
            When the input holds no JSON object valid for ``schema`` and not every required field
            appears as a ``field: value`` line.
        """
        text = "\n".join([system, *(m.get("content", "") for m in messages)])
        for candidate in reversed(_json_objects(text)):
            try:
                return schema.model_validate(candidate)
            except ValidationError:
                continue
        fields = {name.strip().lower().replace(" ", "_"): value for name, value in _FIELD_LINE.findall(text)}
        wanted = {name: fields[name] for name in schema.model_fields if name in fields}
        try:
            return schema.model_validate(wanted)
        except ValidationError as exc:
            missing = sorted({str(e["loc"][0]) for e in exc.errors() if e.get("loc")})
            raise LLMError(
                f"OfflineLLM cannot fill {schema.__name__}: the prompt has no valid JSON object for it and no "
                f"'field: value' lines for {', '.join(missing) or 'its fields'}. The offline provider never "
                "invents values; use an LLM provider (AnthropicLLM, or ReplayLLM with a recorded cassette)."
            ) from exc

    def rank(self, question: str, sentences: list[_Sentence]) -> list[_Sentence]:
        """Top sentences by question-word overlap (see module docstring), in context order."""
        asked = words(question)
        scored = []
        for sentence in sentences:
            found = words(sentence.text)
            overlap = len(asked & found)
            if overlap:
                scored.append((-overlap / math.sqrt(1 + len(found)), sentence.position, sentence))
        scored.sort(key=lambda item: (item[0], item[1]))
        return sorted((s for *_, s in scored[: self.max_sentences]), key=lambda s: s.position)


def _json_objects(text: str) -> list[dict]:
    """Top-level JSON objects embedded in ``text``, in order (decoded from each ``{`` that starts one)."""
    decoder = json.JSONDecoder()
    found: list[dict] = []
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        position = text.find("{", end)
    return found
