"""Text repair after PDF extraction: what the page shows, not what the font's character map says.

PDF text is whatever each font's character map (``ToUnicode``/encoding) says its glyphs mean. Journals'
fonts get this wrong in a few recurring ways; each is repaired here by a small named step:

=====================================  ===========================================================  ==========
problem                                mechanism                                                    step
=====================================  ===========================================================  ==========
ligature glyphs mapped to wrong        per (font, code point): dictionary evidence that replacing   :class:`LigatureRepair`
code points ("speciíc", "Side Eìect")  the code point by a ligature (fi, ff, ffi...) turns unknown
                                       words into known ones, and never breaks a known word; the
                                       mapping learnt from the evidence is applied to every word of
                                       that font ("Pízer" -> "Pfizer" though no dictionary has it)
UTF-8 bytes typeset through a TeX T1   sequences of T1 code points that form valid UTF-8 are        :func:`fix_encoding`
(Cork) font ("NaÃŕve" -> "Naïve")      decoded; Windows-1252 mojibake by ``ftfy``
spacing accents before a letter        composed (``"Dahlstr¨om"`` -> ``"Dahlström"``)               :func:`fix_encoding`
("Dahlstr¨om")
Adobe Symbol / dingbat fonts           the Symbol encoding's Latin->Greek table (``a`` -> α), a     :func:`map_font_text`
(Greek letters as Latin, "r" bullets)  dingbat letter -> "•"
control, private-use, U+FFFD chars     removed and *counted* (they are lost glyphs: a Greek letter  :func:`clean_characters`
                                       of a symbol font without a Unicode map, typically)
line-end hyphenation                   dictionary-aware: joined when the joined word is a word,     :func:`join_hyphenated`
                                       kept as a compound when both parts are words ("beta-amyloid",
                                       "degree-preserving") or the right part starts with a capital
                                       or digit ("Ac-SDKP", "anti-TNF")
superscript markers ("plaques12,13")   decided in :mod:`~engram_kit.ingestion.pdf` by font size and   :func:`render_superscript`
                                       baseline; citation/affiliation markers are dropped, exponents
                                       kept as ``^`` ("10^-5", "m^2", "mg/m^2")
ligature characters ("ﬁbrosis")        U+FB00-FB06 expanded to their letters on every text path    :func:`expand_ligatures`
                                       (PDF, HTML, Markdown/text, PubMed records); other
                                       compatibility characters ("²", "µ") are left as written
=====================================  ===========================================================  ==========

The dictionary is the English word-frequency list of ``wordfreq`` (Speer et al., Apache-2.0: Wikipedia,
subtitles, news, books, web text, Reddit, Twitter; ~320,000 English words with Zipf frequencies, offline
in the package). It is chosen over a plain word list because frequency decides between a joined word and
a compound, and because its web and Wikipedia sources cover common biomedical vocabulary ("amyloid",
"thromboprophylaxis" is not needed: unknown fragments are joined by default).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from engram_kit.settings import Settings

#: What a mis-mapped ligature glyph can stand for, most frequent first.
LIGATURES: tuple[str, ...] = ("fi", "ff", "ffi", "fl", "ffl", "ft", "fj", "st", "ct", "Th")
#: Adobe Symbol encoding (PDF Reference, Appendix D.5): Latin code points of the Greek letters.
SYMBOL_GREEK: dict[str, str] = dict(zip(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "αβχδεφγηιϕκλμνοπθρστυϖωξψζΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ"))
#: TeX T1 (Cork) encoding, code points 0x80-0xBF (0xC0-0xFF equal Latin-1 except the four below).
_T1_HIGH = ("ĂĄĆČĎĚĘĞĹĽŁŃŇŊŐŔŘŚŠŞŤŢŰŮŸŹŽŻĲİđ§"
            "ăąćčďěęğĺľłńňŋőŕřśšşťţűůÿźžżĳ¡¿£")
_T1_TO_BYTE: dict[str, int] = {ch: 0x80 + i for i, ch in enumerate(_T1_HIGH)}
_T1_TO_BYTE.update({chr(b): b for b in range(0xC0, 0x100) if b not in (0xD7, 0xDF, 0xF7, 0xFF)})
_T1_TO_BYTE.update({"Œ": 0xD7, "œ": 0xF7, "ß": 0xFF})
_T1_LEAD2 = "".join(chr(b) for b in range(0xC2, 0xE0) if b not in (0xD7, 0xDF))
_T1_CONT = "".join(re.escape(c) for c in _T1_HIGH)
_T1_MOJIBAKE = re.compile(f"[{_T1_LEAD2}Œ][{_T1_CONT}]|[\u00e0-\u00ef][{_T1_CONT}]{{2}}")
#: Spacing accents that LaTeX-made PDFs put before (or, the cedilla, after) the letter they belong to.
_SPACING_ACCENTS: dict[str, str] = {"¨": "\u0308", "´": "\u0301", "ˆ": "\u0302", "˜": "\u0303", "ˇ": "\u030c",
                                    "˚": "\u030a", "˘": "\u0306", "˝": "\u030b"}
_ACCENT_BEFORE = re.compile("([" + "".join(_SPACING_ACCENTS) + "])([A-Za-z])")
_CEDILLA_AFTER = re.compile("([cCsStT])¸")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
#: Superscript texts that are citation/affiliation/footnote markers (dropped from the running text).
_MARKER = re.compile(r"[\d\s,;.\-–—*†‡§¶#a-z]{1,20}")
_EXPONENT = re.compile(r"[−\-–]?\s*\d+(?:\.\d+)?")
#: Units after which a superscript 2 or 3 is a power (m^2), not a footnote; also as the last factor of a compound
#: unit ("mg/m", "kg·m", "cells/mm": body-surface-area doses, densities).
UNITS: frozenset[str] = frozenset("m cm mm km µm μm nm dm kg g mg s h min ft in m2 L l mL ml µL μL".split())
#: What separates the factors of a compound unit: "/" (per), a middle dot or a dot operator (product).
_UNIT_SEPARATOR = re.compile(r"[/·⋅∙*]")


#: Unicode's Latin ligature characters (Alphabetic Presentation Forms, U+FB00-FB06) and their letters: the
#: compatibility decompositions of the Unicode Character Database, applied alone so that a text keeps "²", "µ",
#: "½" as written (a blanket NFKC would turn "mg/m²" into "mg/m2").
LIGATURE_CHARACTERS: dict[str, str] = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
                                       "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"}
_LIGATURE_TABLE = str.maketrans(LIGATURE_CHARACTERS)


def expand_ligatures(text: str) -> str:
    """``text`` with the ligature characters of :data:`LIGATURE_CHARACTERS` written as their letters
    (``"ﬁbrosis"`` -> ``"fibrosis"``); same text when it holds none. The one ligature map of every text path
    (PDF lines, HTML, Markdown and text files, PubMed records), so a word links the same way from each."""
    if text.isascii():
        return text
    return text.translate(_LIGATURE_TABLE)


@lru_cache(maxsize=200_000)
def zipf(word: str) -> float:
    """Zipf frequency of ``word`` in English (wordfreq, 0 when unknown; case-insensitive)."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word.lower(), "en", wordlist="large"))


def is_known(word: str) -> bool:
    """Whether ``word`` is an English word (Zipf >= ``Settings.known_zipf``)."""
    return zipf(word) >= Settings.known_zipf


def known_as_written(word: str) -> bool:
    """Whether ``word`` is a known English word *as one word*: letters (and apostrophes) only, and
    :func:`is_known`. wordfreq splits a text at symbols and punctuation and scores the pieces, so
    "speci¿c" scored 2.1 ("speci" + "c") and counted as evidence *against* repairing "¿" in its font."""
    return all(c.isalpha() or c in "'’" for c in word) and is_known(word)


# --- characters -------------------------------------------------------------------------------------------
def _decode_t1(match: re.Match[str]) -> str:
    raw = bytes(_T1_TO_BYTE[c] for c in match.group(0))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return match.group(0)


def fix_encoding(text: str) -> str:
    """Undo encoding damage: UTF-8 through a T1 font, Windows-1252 mojibake (``ftfy``), spacing accents.

    ``"NaÃŕve"`` -> ``"Naïve"``, ``"ÏĽ"`` -> ``"ω"``, ``"Dahlstr¨om"`` -> ``"Dahlström"``. Curly quotes,
    dashes and ligatures are left as they are (NFKC later expands ligature characters).
    """
    if text.isascii():
        return text
    text = _T1_MOJIBAKE.sub(_decode_t1, text)
    import ftfy

    text = ftfy.fix_text(text, uncurl_quotes=False, fix_latin_ligatures=False, fix_character_width=False,
                         fix_line_breaks=False, normalization="NFC")
    text = _ACCENT_BEFORE.sub(lambda m: unicodedata.normalize("NFC", m.group(2) + _SPACING_ACCENTS[m.group(1)]), text)
    return _CEDILLA_AFTER.sub(lambda m: unicodedata.normalize("NFC", m.group(1) + "\u0327"), text)


def _is_lost(ch: str) -> bool:
    """A code point that carries no readable character: control, private use, replacement, unassigned."""
    if ch in "\n\t":
        return False
    cat = unicodedata.category(ch)
    return cat in ("Cc", "Co", "Cn", "Cs") or ch == "\ufffd"


def clean_characters(text: str) -> tuple[str, int]:
    """Remove control, private-use, unassigned and replacement characters; format characters (zero-width
    spaces, soft hyphens) are removed without counting.

    Returns
    -------
    (text, lost)
        ``lost``: how many characters were removed as unreadable (a glyph the font gives no Unicode for:
        most often a Greek letter or math symbol of a symbol font; reported as lost characters).
    """
    if text.isascii() and text.isprintable():
        return text, 0
    lost = 0
    out = []
    for ch in text:
        if _is_lost(ch):
            lost += 1
            continue
        if unicodedata.category(ch) == "Cf":
            continue
        out.append(ch)
    return "".join(out), lost


#: Shown in the text where a glyph was lost inside a word (U+FFFD REPLACEMENT CHARACTER): the reader sees that
#: something is missing, and no mention that touches it is linked (a lost "β" in "IL·6" or "·-amyloid" must not
#: link "IL6" or "amyloid" through the gap).
LOST_GLYPH = "\ufffd"
#: A middle dot that touches a letter or a hyphen: what a PDF producer writes for a character its font cannot
#: encode (WinAnsi's placeholder; PyMuPDF's own text insertion does the same), e.g. "IL·6", "·-amyloid".
_PLACEHOLDER_DOT = re.compile(r"(?<=[^\W\d_-])·|·(?=[^\W\d_]|-)|(?<=-)·")
#: Middle dots that are the character itself: a hydrate ("CuSO4·5H2O"), a unit product ("kg·m", "mg·kg").
_HYDRATE = re.compile(r"·\d*H2O")


def mark_lost_placeholders(text: str) -> tuple[str, int]:
    """Replace middle dots that stand for a lost glyph by :data:`LOST_GLYPH`; returns ``(text, count)``.

    A ``·`` (U+00B7) glued to a letter or hyphen is a placeholder ("IL·6", "·-amyloid", "TNF·α"), except a
    hydrate dot (``·5H2O``) and a unit product whose two sides are units of :data:`UNITS` ("kg·m", "mg·kg");
    a dot between digits (the Lancet's decimal point, "0·05") or between spaces (a separator) is kept.
    """
    if "·" not in text:
        return text, 0
    out: list[str] = []
    count = 0
    last = 0
    for match in _PLACEHOLDER_DOT.finditer(text):
        at = match.start()
        left = re.search(r"([^\W\d_]+)$", text[:at])
        right = re.match(r"([^\W\d_]+)", text[at + 1:])
        if _HYDRATE.match(text, at) or (left and right and left.group(1) in UNITS and right.group(1) in UNITS):
            continue
        out.append(text[last:at] + LOST_GLYPH)
        last = at + 1
        count += 1
    out.append(text[last:])
    return "".join(out), count


def font_family(font: str) -> str:
    """Font name without the subset prefix (``ABCDEF+``) and suffix: the unit ligature evidence is kept per."""
    return re.sub(r"^[A-Z]{6}\+", "", font).split("+")[0]


def map_font_text(text: str, font: str) -> str:
    """Map the text of a span by its font's encoding when the font's character map cannot be trusted.

    Adobe Symbol fonts (``Symbol``, ``SymbolMT``...) whose glyphs come out as Latin letters are mapped with
    the Symbol encoding's Greek table (``"a"`` -> ``"α"``); single letters of dingbat fonts (ZapfDingbats,
    Wingdings: bullets that come out as ``"r"`` or ``"l"``) become ``"•"``. Other fonts: unchanged.
    """
    name = font_family(font).lower()
    if "symbol" in name and re.search(r"[A-Za-z]", text):
        return "".join(SYMBOL_GREEK.get(c, c) for c in text)
    if any(k in name for k in ("dingbat", "wingding", "zapf", "webding")) and re.fullmatch(r"\s*[A-Za-z]\s*", text):
        return text.replace(text.strip(), "•")
    return text


# --- ligatures --------------------------------------------------------------------------------------------


def suspect_words(text: str) -> list[str]:
    """The words of ``text`` for ligature evidence: runs of letters in which a suspicious non-letter code point
    (:func:`_suspicious`: a symbol or punctuation outside ASCII, "speci¿c", "e˚ect") counts as a letter, so
    the word is seen whole; a plain letter pattern would cut "speci¿c" into "speci" and "c" and never see the
    code point. Apostrophes inside a word are kept ("Alzheimer’s")."""
    return [text[a:b] for a, b in _suspect_spans(text)]


def _suspect_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the words of :func:`suspect_words`."""
    spans: list[tuple[int, int]] = []
    start = -1
    for i, ch in enumerate(text):
        if ch.isalpha() or (start >= 0 and ch in "'’" and text[i + 1:i + 2].isalpha()) or \
                (not ch.isascii() and not ch.isspace() and _suspicious(ch)):
            if start < 0:
                start = i
            continue
        if start >= 0:
            spans.append((start, i))
            start = -1
    if start >= 0:
        spans.append((start, len(text)))
    return [(a, b) for a, b in spans if any(c.isalpha() for c in text[a:b])]


def _suspicious(ch: str) -> bool:
    """A code point a ligature glyph may have been mapped to: a non-ASCII letter or symbol, not a Greek or
    other-script letter used as such."""
    if ch.isascii() or ch.isspace():
        return False
    name = unicodedata.name(ch, "")
    return name.startswith("LATIN") or unicodedata.category(ch) in ("So", "Sk", "Sm", "Po", "Co") or not name


@dataclass
class LigatureRepair:
    """Learns which code points a font uses for ligature glyphs, from dictionary evidence, and repairs them.

    Usage: :meth:`observe_line` every line of ``(text, font)`` spans of a document (or :meth:`observe` single
    spans), then :meth:`fit`, then :meth:`apply` to each span. A mapping ``(font family, code point) -> ligature`` is accepted when at least
    ``min_support`` distinct unknown words become known words with that ligature and outnumber the known words
    of the font that contain the code point more than twice (a font that sets "García" correctly keeps its
    "í"); a font with no evidence either way backs off to the document's (:meth:`fit`).

    Attributes
    ----------
    mapping : ``{(font family, code point): ligature}`` after :meth:`fit`.
    repaired : number of words changed by :meth:`apply`.
    """

    min_support: int = 1
    mapping: dict[tuple[str, str], str] = field(default_factory=dict)
    repaired: int = 0
    _words: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    _support: dict[tuple[str, str], int] = field(default_factory=dict)

    def observe(self, text: str, font: str) -> None:
        """Record the words of one span that contain a suspicious code point (:func:`suspect_words`: a symbol
        code point inside a word counts as a letter of it, "speci¿c")."""
        if text.isascii():
            return
        family = font_family(font)
        for word in suspect_words(text):
            for ch in {c for c in word if _suspicious(c)}:
                self._words[(family, ch)].add(word)

    def observe_line(self, spans: Iterable[tuple[str, str]]) -> None:
        """Record the words of one line of ``(text, font)`` spans, each suspicious code point under the font of
        the span that holds it. Words are read across span boundaries: a ligature glyph drawn from another
        font than its word ("speci" + "í" + "c", the glyph in a span of its own) is seen inside "speciíc", not
        as the lone "í" that wordfreq knows as a word (Zipf 2.5) and that counted against the repair."""
        spans = list(spans)
        if all(text.isascii() for text, _ in spans):
            return
        line = "".join(text for text, _ in spans)
        fonts: list[str] = []
        for text, font in spans:
            fonts.extend([font_family(font)] * len(text))
        for a, b in _suspect_spans(line):
            word = line[a:b]
            for i in range(a, b):
                if _suspicious(line[i]):
                    self._words[(fonts[i], line[i])].add(word)

    def fit(self) -> dict[tuple[str, str], str]:
        """Decide the mappings from the observed words; returns :attr:`mapping`.

        Per font first (evidence as in the class docstring). Then a font seen too rarely to decide -- none of
        its words with the code point becomes a known word with a ligature (a proper name, a word cut at a
        line end: "Pízer", "signií") and none is a known word as written -- takes the mapping the other fonts
        of the document agree on for that code point, when at least ``Settings.ligature_document_support`` words supported
        it there (one paper's italic or bold subset of the body font kept one "speciíc" where 114 were
        repaired, issue 34).
        """
        undecided: list[tuple[str, str]] = []
        for key, words in self._words.items():
            _, ch = key
            against = sum(1 for w in words if known_as_written(w))
            support: Counter[str] = Counter()
            for word in words:
                if known_as_written(word):
                    continue
                for ligature in LIGATURES:
                    if is_known(word.replace(ch, ligature)):
                        support[ligature] += 1
                        break
            if support:
                ligature, n = support.most_common(1)[0]
                if n >= self.min_support and n > 2 * against:
                    self.mapping[key] = ligature
                    self._support[key] = n
            elif not against:
                undecided.append(key)
        for family, ch in undecided:  # back off to the document's evidence for this code point
            votes: Counter[str] = Counter()
            for (other_family, other_ch), ligature in self.mapping.items():
                if other_ch == ch:
                    votes[ligature] += self._support.get((other_family, other_ch), 0)
            if len(votes) == 1 and sum(votes.values()) >= Settings.ligature_document_support:
                self.mapping[(family, ch)] = next(iter(votes))
        return self.mapping

    def apply(self, text: str, font: str) -> str:
        """``text`` of a span in ``font`` with the learnt ligature code points replaced."""
        if text.isascii() or not self.mapping:
            return text
        family = font_family(font)
        for (fam, ch), ligature in self.mapping.items():
            if fam == family and ch in text:
                self.repaired += text.count(ch)
                text = text.replace(ch, ligature)
        return text


# --- hyphenation ------------------------------------------------------------------------------------------
def join_hyphenated(left: str, right: str) -> str:
    """Join the two halves of a word hyphenated at a line end (``left`` without its hyphen).

    Returns ``left + right`` when that is a word (``"signifi"`` + ``"cance"``), ``left-right`` when the right
    part starts with a capital letter, digit, Greek letter or non-letter (``"Ac-SDKP"``, ``"anti-TNF"``,
    ``"TNF-α"``), when the left part is a single letter (``"p-values"``, ``"n-tridecanal"``) or an acronym
    (``"TNF-alpha"``, ``"DNA-binding"``), or when both parts are words on their own and
    the joined form is not a more frequent word (``"beta-amyloid"``, ``"degree-preserving"``,
    ``"high-degree"``); otherwise the joined form (fragments such as ``"thrombopro"`` + ``"phylaxis"``).
    """
    lword = re.search(r"([^\W\d_]+)$", left)
    rword = re.match(r"([^\W\d_]+)", right)
    if not lword or not rword or not right[:1].islower():
        return f"{left}-{right}"
    a, b = lword.group(1), rword.group(1)
    if len(a) == 1 or (len(a) >= 2 and a.isupper()) or unicodedata.name(b[0], "").startswith("GREEK"):
        # "n-tridecanal", "p-values": a one-letter prefix is a chemical/statistical label; "TNF-alpha",
        # "DNA-binding": an acronym keeps its hyphen; "TNF-α": a Greek letter is a suffix, never a syllable
        return f"{left}-{right}"
    joined = zipf(a + b)
    if joined >= Settings.known_zipf and joined >= min(zipf(a), zipf(b)) - 1.0:
        return left + right
    if zipf(a) >= Settings.part_zipf and zipf(b) >= Settings.part_zipf and len(b) > 1:
        return f"{left}-{right}"
    return left + right


# --- superscripts -----------------------------------------------------------------------------------------
def is_marker(text: str) -> bool:
    """Whether a superscript text is a reference/affiliation/footnote marker (``"12,13"``, ``"1*"``, ``"a"``)."""
    stripped = text.strip()
    return bool(stripped) and _MARKER.fullmatch(stripped) is not None and not re.fullmatch(r"[a-z]{2,}", stripped)


def render_superscript(before: str, sup: str) -> str | None:
    """How a superscript reads in running text, given the text ``before`` it on the line.

    Returns ``"^<exponent>"`` for a power (after a digit: ``10^-5``; after a unit: ``m^2``, also the last factor
    of a compound unit: ``mg/m^2``, ``kg·m^-2``), ``""`` for a
    marker to drop (citation, affiliation, footnote), or None when the superscript is ordinary text (keep).
    """
    stripped = sup.strip()
    word = re.search(r"(\S+)$", before)
    last = word.group(1) if word else ""
    unit = _UNIT_SEPARATOR.split(last)[-1] if last else ""
    if _EXPONENT.fullmatch(stripped) and (before[-1:].isdigit() or last in UNITS or unit in UNITS
                                          or last.endswith(")")):
        return "^" + stripped.replace(" ", "").replace("−", "-").replace("–", "-")
    if is_marker(stripped):
        return ""
    return None
