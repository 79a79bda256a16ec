"""Import spaCy without torch.

spaCy imports thinc, and thinc's ``compat`` module imports torch when it is installed (it is, for the optional
``minilm-fp32`` embedder): 2-3 s of every process that parses text, for thinc's PyTorch wrappers, which no
engram-kit pipeline uses (the blank tokenizer with scispaCy's abbreviation detector, and the BC5CDR term tagger's
CNN, run on thinc's numpy ops). So while spaCy is first imported, ``torch`` is made unimportable (thinc then records
``has_torch = False``), then importable again, so the fp32 embedder (sentence-transformers) can still import it
later. In a process that imported torch or thinc before, nothing changes. Issue 30: torch is never imported on the
default int8 path.
"""

from __future__ import annotations

import sys
from types import ModuleType


def import_spacy() -> ModuleType:
    """The ``spacy`` module, imported (the first time) without torch; scispaCy imported after it reuses it."""
    if "spacy" in sys.modules:
        return sys.modules["spacy"]
    guard = "torch" not in sys.modules and "thinc" not in sys.modules
    if guard:
        sys.modules["torch"] = None  # type: ignore[assignment]  # None makes `import torch` raise ImportError
    try:
        import spacy
        import spacy.util  # loaded under the guard too
    finally:
        if guard:
            del sys.modules["torch"]
    return spacy
