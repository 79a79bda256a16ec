"""Setting nouns: a condition word that classifies a setting, role or instrument ("trauma patients", "trauma
surgery") names no condition that occurred.

Shared by the extractor's document-level cue (:func:`engram_kit.extraction.extractor.with_setting_cue`) and the
resolver's linking policy (:mod:`engram_kit.resolution.policy`); it lives here, in the extraction layer below
resolution (docs/architecture.md, import layers), so the extractor needs nothing from the resolver.
"""

from __future__ import annotations

import re

from engram_kit.extraction.mention import Mention

#: Nouns of settings, roles and instruments that a condition word classifies without naming a condition
#: that occurred ("trauma patients", "trauma surgery", "accident and emergency ward").
SETTING_NOUNS: frozenset[str] = frozenset(
    """patient patients surgery surgeries surgeon surgeons centre center centres centers unit units ward wards
    service services team teams population populations registry registries department departments clinic
    clinics programme programmes program programs system systems care setting settings room rooms
    literature research researchers score scores scale scales""".split())
#: A word of a sentence (letters/digits, then word characters or hyphens).
SENTENCE_TOKEN = re.compile(r"[A-Za-z0-9][\w-]*")


def tokens_around(mention: Mention, window: int) -> tuple[list[str], list[str]]:
    """Tokens before and after the mention in its sentence (first occurrence), lower case, at most ``window``
    each; two empty lists when the mention has no sentence or is not in it."""
    sentence = mention.sentence
    at = sentence.find(mention.text)
    if not sentence or at < 0:
        return [], []
    before = [t.lower() for t in SENTENCE_TOKEN.findall(sentence[:at])][-window:]
    after = [t.lower() for t in SENTENCE_TOKEN.findall(sentence[at + len(mention.text):])][:window]
    return before, after


def classifies_setting(mention: Mention) -> bool:
    """The mention is a noun adjunct of a setting noun: next token in :data:`SETTING_NOUNS`, or
    ``and``/``or`` + up to two words and then one ("accident and emergency ward")."""
    _, after = tokens_around(mention, 4)
    if not after:
        return False
    if after[0] in SETTING_NOUNS:
        return True
    return after[0] in ("and", "or") and any(t in SETTING_NOUNS for t in after[1:4])
