"""The read-only Cypher guard of the evidence desk: refuse anything that is not one bounded read.

No maintained Python Cypher-guard library exists on PyPI (Nov 2026; ``antlr4-cypher`` is a grammar
without a policy layer), so the guard tokenizes the query itself and applies a policy to the tokens:

Tokenizer
---------
String literals (``'..'``, ``".."`` with backslash escapes), backtick-quoted identifiers and comments
(``// ...``, ``/* ... */``) become single tokens *before* any keyword is looked at, so ``"CREATE"`` inside
a string is harmless while ``/*x*/CREATE`` is still the keyword ``CREATE``. An unterminated string,
identifier or comment is refused (it could hide the rest of the query).

Policy (each rule raises :class:`~engram_kit.errors.QueryGuardError` naming it)
------------------------------------------------------------------------------
1. One statement: no ``;`` except one trailing.
2. The first keyword starts a read: ``MATCH``, ``OPTIONAL``, ``WITH``, ``UNWIND``, ``RETURN`` or ``CALL``.
3. No write, schema, import/export, extension or transaction keyword anywhere (:data:`FORBIDDEN_KEYWORDS`:
   CREATE, MERGE, SET, DELETE, DETACH, REMOVE, DROP, ALTER, COPY, LOAD (CSV / FROM / EXTENSION), INSTALL,
   ATTACH, IMPORT, EXPORT, BEGIN, COMMIT, ROLLBACK, TRANSACTION(S), CHECKPOINT, USE, FOREACH...). Property
   names after ``.`` (``n.set``) are not keywords.
4. ``CALL`` only of procedures in :data:`ALLOWED_PROCEDURES` (schema introspection) or of a ``{ subquery }``
   (whose tokens obey the same rules); any other namespaced call (``apoc.cypher.run(...)``, which could
   run a write hidden in a string) is refused.
5. Variable-length relationships need an upper bound <= :data:`MAX_HOPS` (4): ``*``, ``*2..`` and ``*1..5``
   are refused, ``*1..3``, ``*..2`` and ``*3`` pass. Quantified path patterns (``(...){1,}``, ``(...)+``)
   are refused unless bounded by <= 4. ``(a) * (b)`` after a closing parenthesis is read as a quantifier
   and refused (fail closed).
6. At most :data:`MAX_QUERY_CHARS` characters.

The guard is the first line of defence; the desk also runs every query inside a ``READ ONLY``
transaction with a timeout (see :mod:`engram_kit.evidence.runner`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_kit.errors import QueryGuardError

#: Longest variable-length relationship allowed (hops).
MAX_HOPS = 4
#: Longest query text accepted, in characters.
MAX_QUERY_CHARS = 8_000
#: Keywords that write, change the schema, touch files/extensions or control transactions.
FORBIDDEN_KEYWORDS: frozenset[str] = frozenset({
    "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD", "INSTALL",
    "UNINSTALL", "ATTACH", "IMPORT", "EXPORT", "BEGIN", "COMMIT", "ROLLBACK", "TRANSACTION", "TRANSACTIONS",
    "CHECKPOINT", "USE", "FOREACH", "GRANT", "REVOKE", "DENY", "TERMINATE", "START", "STOP", "RENAME",
})
#: Keywords a query may start with.
READ_START_KEYWORDS: frozenset[str] = frozenset({"MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN", "CALL"})
#: Procedures ``CALL`` may invoke (lower-case): schema introspection of LadybugDB and Neo4j.
ALLOWED_PROCEDURES: frozenset[str] = frozenset({
    "show_tables", "table_info", "show_connection", "db.labels", "db.relationshiptypes", "db.propertykeys",
    "db.schema.visualization", "db.schema.nodetypeproperties", "db.schema.reltypeproperties",
})
#: Dotted function namespaces allowed in expressions (none: built-in functions are not dotted).
ALLOWED_FUNCTION_NAMESPACES: frozenset[str] = frozenset()

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      | (?P<line_comment>//[^\n]*)
      | (?P<block_comment>/\*.*?\*/)
      | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<quoted>`(?:[^`]|``)*`)
      | (?P<param>\$(?:[A-Za-z_][A-Za-z0-9_]*|\d+))
      | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
      | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<range>\.\.)
      | (?P<op><>|<=|>=|=~|->|<-|[-+*/%^=<>(){}\[\]:;,.|!&~?])
    """,
    re.VERBOSE | re.DOTALL,
)
_SKIPPED = {"ws", "line_comment", "block_comment"}


@dataclass(frozen=True)
class Token:
    """One lexical token: ``kind`` is ``string, quoted, param, number, ident, range, op``."""

    kind: str
    text: str
    position: int

    @property
    def upper(self) -> str:
        return self.text.upper()


@dataclass(frozen=True)
class GuardedQuery:
    """A query that passed the guard: its text (trailing ``;`` removed), the longest variable-length
    pattern it uses (hops, 0 if none) and the procedures it calls."""

    text: str
    max_hops: int
    procedures: tuple[str, ...]


def tokenize(cypher: str) -> list[Token]:
    """Tokens of ``cypher`` without whitespace and comments.

    Raises
    ------
    QueryGuardError
        On an unterminated string, quoted identifier or block comment, or a character that is not Cypher.
    """
    tokens: list[Token] = []
    position = 0
    while position < len(cypher):
        match = _TOKEN.match(cypher, position)
        if match is None:
            char = cypher[position]
            what = {"'": "string literal", '"': "string literal", "`": "quoted identifier"}.get(char)
            if what is None and cypher.startswith("/*", position):
                what = "block comment"
            problem = f"an unterminated {what}" if what else f"the unexpected character {char!r}"
            raise QueryGuardError(f"Query refused: {problem} at character {position}. Close it (or remove it) "
                                  "and send one complete read-only statement.")
        kind = match.lastgroup or ""
        if kind != "block_comment" and cypher.startswith("/*", position):
            raise QueryGuardError(f"Query refused: an unterminated block comment at character {position}. Close "
                                  "it (or remove it) and send one complete read-only statement.")
        if kind not in _SKIPPED:
            tokens.append(Token(kind, match.group(0), position))
        position = match.end()
    return tokens


def _refuse(rule: str, detail: str, fix: str) -> QueryGuardError:
    return QueryGuardError(f"Query refused ({rule}): {detail}. {fix}")


def _check_statements(tokens: list[Token]) -> list[Token]:
    """The tokens of the one statement (a trailing ``;`` dropped)."""
    semicolons = [i for i, t in enumerate(tokens) if t.kind == "op" and t.text == ";"]
    if semicolons and semicolons != [len(tokens) - 1]:
        raise _refuse("multiple statements", "the text holds more than one statement",
                      "Send one statement per query (no ';' between statements).")
    body = tokens[:-1] if semicolons else tokens
    if not body:
        raise _refuse("empty", "the query is empty", "Send a MATCH ... RETURN ... statement.")
    return body


def _is_property_name(tokens: list[Token], i: int) -> bool:
    return i > 0 and tokens[i - 1].kind == "op" and tokens[i - 1].text == "."


def _check_keywords(tokens: list[Token]) -> None:
    first = tokens[0]
    if first.kind != "ident" or first.upper not in READ_START_KEYWORDS:
        raise _refuse("not a read", f"it starts with {first.text!r}",
                      "Start with MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN or CALL of an allowed procedure.")
    for i, token in enumerate(tokens):
        if token.kind == "ident" and token.upper in FORBIDDEN_KEYWORDS and not _is_property_name(tokens, i):
            raise _refuse("write or admin keyword", f"{token.upper} at character {token.position}",
                          "The evidence desk is read-only: use MATCH/RETURN queries only.")


def _dotted_name(tokens: list[Token], start: int) -> tuple[str, int]:
    """Read ``a.b.c`` from ``start``; return the name and the index after it."""
    parts = [tokens[start].text.strip("`")]
    i = start + 1
    while i + 1 < len(tokens) and tokens[i].text == "." and tokens[i + 1].kind in ("ident", "quoted"):
        parts.append(tokens[i + 1].text.strip("`"))
        i += 2
    return ".".join(parts), i


def _check_calls(tokens: list[Token]) -> tuple[str, ...]:
    procedures: list[str] = []
    for i, token in enumerate(tokens):
        if token.kind == "ident" and token.upper == "CALL" and not _is_property_name(tokens, i):
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if following is not None and following.text == "{":
                continue  # CALL { subquery }: its tokens are checked like the rest
            if following is None or following.kind not in ("ident", "quoted"):
                raise _refuse("procedure call", "CALL is not followed by a procedure name",
                              f"Call one of: {', '.join(sorted(ALLOWED_PROCEDURES))}.")
            name, _ = _dotted_name(tokens, i + 1)
            if name.lower() not in ALLOWED_PROCEDURES:
                raise _refuse("procedure call", f"{name} is not on the allow-list",
                              f"Allowed procedures: {', '.join(sorted(ALLOWED_PROCEDURES))}.")
            procedures.append(name.lower())
        elif token.kind in ("ident", "quoted") and not _is_property_name(tokens, i):
            name, after = _dotted_name(tokens, i)
            if "." in name and after < len(tokens) and tokens[after].text == "(":
                previous = tokens[i - 1] if i > 0 else None
                if previous is not None and previous.kind == "ident" and previous.upper == "CALL":
                    continue
                namespace = name.rsplit(".", 1)[0].lower()
                if namespace not in ALLOWED_FUNCTION_NAMESPACES:
                    raise _refuse("namespaced function", f"{name}(...) at character {token.position}",
                                  "Only built-in functions are allowed (plugins such as apoc can run writes).")
    return tuple(procedures)


def _read_int(tokens: list[Token], i: int) -> tuple[int | None, int]:
    if i < len(tokens) and tokens[i].kind == "number" and tokens[i].text.isdigit():
        return int(tokens[i].text), i + 1
    return None, i


def _variable_length_hops(tokens: list[Token], star: int) -> int:
    """Upper bound of the ``*`` range starting at index ``star`` inside a relationship pattern."""
    i = star + 1
    while i < len(tokens) and tokens[i].kind == "ident" and tokens[i].upper in {"SHORTEST", "ALL", "WSHORTEST",
                                                                                 "ASP", "TRAIL", "ACYCLIC"}:
        i += 1
    low, i = _read_int(tokens, i)
    if i < len(tokens) and tokens[i].kind == "range":
        high, _ = _read_int(tokens, i + 1)
    else:
        high = low  # "*3" is exactly 3 hops; "*" alone is unbounded
    if high is None:
        raise _refuse("unbounded variable-length pattern", f"'*' at character {tokens[star].position} has no "
                      "upper bound", f"Give an upper bound of at most {MAX_HOPS} hops, e.g. [:INTERACTS_GiG*1..2].")
    if high > MAX_HOPS:
        raise _refuse("too many hops", f"the pattern at character {tokens[star].position} allows {high} hops",
                      f"Use at most {MAX_HOPS} hops.")
    return high


def _check_patterns(tokens: list[Token]) -> int:
    """Check variable-length relationships and quantified path patterns; return the longest (hops)."""
    longest = 0
    depth_rel = 0
    for i, token in enumerate(tokens):
        if token.kind != "op":
            continue
        previous = tokens[i - 1] if i > 0 else None
        if token.text == "[" and previous is not None and previous.kind == "op" and previous.text in ("-", "<-"):
            depth_rel += 1
        elif token.text == "]" and depth_rel:
            depth_rel -= 1
        elif token.text == "*" and depth_rel:
            longest = max(longest, _variable_length_hops(tokens, i))
        elif token.text in ("*", "+") and previous is not None and previous.text == ")":
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if following is None or following.text in ("(", "-", "<-", ",", ")") or (
                    following.kind == "ident" and following.upper in {"WHERE", "RETURN", "MATCH", "WITH"}):
                raise _refuse("unbounded quantified path", f"'{token.text}' after a pattern at character "
                              f"{token.position}",
                              f"Bound the repetition to at most {MAX_HOPS}, e.g. {{1,{MAX_HOPS}}}.")
        elif token.text == "{" and previous is not None and previous.text == ")":
            low, j = _read_int(tokens, i + 1)
            if j < len(tokens) and tokens[j].text == ",":
                high, j = _read_int(tokens, j + 1)
                if high is None or high > MAX_HOPS:
                    raise _refuse("unbounded quantified path", f"repetition at character {token.position} allows "
                                  f"{'unbounded' if high is None else high} repeats",
                                  f"Bound it to at most {MAX_HOPS}.")
                longest = max(longest, high)
            elif low is not None and j < len(tokens) and tokens[j].text == "}":
                if low > MAX_HOPS:
                    raise _refuse("too many hops", f"repetition {{{low}}}", f"Use at most {MAX_HOPS}.")
                longest = max(longest, low)
    return longest


def check_query(cypher: str) -> GuardedQuery:
    """Check that ``cypher`` is one bounded read-only statement (see the module docstring for the rules).

    Parameters
    ----------
    cypher : str
        The query text; values should be ``$parameters``.

    Returns
    -------
    GuardedQuery
        The accepted text and what it uses.

    Raises
    ------
    QueryGuardError
        Naming the broken rule, where, and how to fix the query.

    Examples
    --------
    >>> check_query("MATCH (g:Gene {name: 'CREATE'})-[:INTERACTS_GiG*1..2]-(o) RETURN o.name").max_hops
    2
    >>> check_query("MATCH (n) /* x */ DETACH DELETE n")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    engram_kit.errors.QueryGuardError: Query refused (write or admin keyword): DETACH at character 18.
    """
    if not isinstance(cypher, str) or not cypher.strip():
        raise _refuse("empty", "the query is empty", "Send a MATCH ... RETURN ... statement.")
    if len(cypher) > MAX_QUERY_CHARS:
        raise _refuse("too long", f"{len(cypher):,} characters", f"Keep queries under {MAX_QUERY_CHARS:,} characters.")
    all_tokens = tokenize(cypher)
    tokens = _check_statements(all_tokens)
    _check_keywords(tokens)
    procedures = _check_calls(tokens)
    hops = _check_patterns(tokens)
    end = all_tokens[-1].position if len(all_tokens) > len(tokens) else len(cypher)
    return GuardedQuery(text=cypher[:end].strip(), max_hops=hops, procedures=procedures)
