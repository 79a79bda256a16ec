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
5. Variable-length relationships need an upper bound <= ``max_hops`` (:data:`MAX_HOPS`, 4): ``*``, ``*2..`` and ``*1..5``
   are refused, ``*1..3``, ``*..2`` and ``*3`` pass. Quantified path patterns (``(...){1,}``, ``(...)+``)
   are refused unless bounded by <= 4. ``(a) * (b)`` after a closing parenthesis is read as a quantifier
   and refused (fail closed).
6. At most ``max_chars`` characters (``Settings.desk_max_query_chars``, 8,000) and ``max_nesting``
   levels (``Settings.desk_max_nesting``, 32) of brackets and ``CASE``
   (a list literal nested 1,000 deep crashed LadybugDB's parser with SIGSEGV; 300 nested ``CASE`` ran
   for minutes past the timeout).

A keyword is only a keyword where a clause can stand: an alias after ``AS`` (``RETURN n AS start``), a
map key before ``:`` (``{create: 1}``) and a property name after ``.`` (``n.set``) are names.

The guard is the first line of defence. The desk then runs every query in a child process that checks
the database's own query plan for file and write operators, streams at most the row and byte caps, and is
stopped at the timeout or the memory cap (:mod:`engram_kit.store.isolated`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_kit.errors import QueryGuardError
from engram_kit.settings import Settings

#: Longest variable-length relationship allowed (hops) by default: ``Settings.desk_max_hops`` (a desk passes its
#: workspace's value to :func:`check_query`).
MAX_HOPS: int = Settings.desk_max_hops
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


def _is_name_position(tokens: list[Token], i: int) -> bool:
    """True where an identifier can only be a name: a property (``n.set``), an alias (``AS start``) or a
    map key (``{create: 1}``)."""
    if _is_property_name(tokens, i):
        return True
    previous = tokens[i - 1] if i > 0 else None
    if previous is not None and previous.kind == "ident" and previous.upper == "AS":
        return True
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    return (following is not None and following.kind == "op" and following.text == ":"
            and previous is not None and previous.kind == "op" and previous.text in ("{", ","))


def _check_nesting(tokens: list[Token], max_nesting: int) -> None:
    depth = 0
    for token in tokens:
        opens = token.kind == "op" and token.text in "([{" or token.kind == "ident" and token.upper == "CASE"
        closes = token.kind == "op" and token.text in ")]}" or token.kind == "ident" and token.upper == "END"
        if opens:
            depth += 1
            if depth > max_nesting:
                raise _refuse("nested too deeply", f"more than {max_nesting} levels of brackets or CASE at "
                              f"character {token.position}", "Flatten the expression (use WITH to name parts).")
        elif closes:
            depth = max(0, depth - 1)


def _check_keywords(tokens: list[Token]) -> None:
    first = tokens[0]
    if first.kind != "ident" or first.upper not in READ_START_KEYWORDS:
        raise _refuse("not a read", f"it starts with {first.text!r}",
                      "Start with MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN or CALL of an allowed procedure.")
    for i, token in enumerate(tokens):
        if token.kind == "ident" and token.upper in FORBIDDEN_KEYWORDS and not _is_name_position(tokens, i):
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


def _variable_length_hops(tokens: list[Token], star: int, max_hops: int) -> int:
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
                      "upper bound", f"Give an upper bound of at most {max_hops} hops, e.g. [:INTERACTS_GiG*1..2].")
    if high > max_hops:
        raise _refuse("too many hops", f"the pattern at character {tokens[star].position} allows {high} hops",
                      f"Use at most {max_hops} hops.")
    return high


def _check_patterns(tokens: list[Token], max_hops: int) -> int:
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
            longest = max(longest, _variable_length_hops(tokens, i, max_hops))
        elif token.text in ("*", "+") and previous is not None and previous.text == ")":
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if following is None or following.text in ("(", "-", "<-", ",", ")") or (
                    following.kind == "ident" and following.upper in {"WHERE", "RETURN", "MATCH", "WITH"}):
                raise _refuse("unbounded quantified path", f"'{token.text}' after a pattern at character "
                              f"{token.position}",
                              f"Bound the repetition to at most {max_hops}, e.g. {{1,{max_hops}}}.")
        elif token.text == "{" and previous is not None and previous.text == ")":
            low, j = _read_int(tokens, i + 1)
            if j < len(tokens) and tokens[j].text == ",":
                high, j = _read_int(tokens, j + 1)
                if high is None or high > max_hops:
                    raise _refuse("unbounded quantified path", f"repetition at character {token.position} allows "
                                  f"{'unbounded' if high is None else high} repeats",
                                  f"Bound it to at most {max_hops}.")
                longest = max(longest, high)
            elif low is not None and j < len(tokens) and tokens[j].text == "}":
                if low > max_hops:
                    raise _refuse("too many hops", f"repetition {{{low}}}", f"Use at most {max_hops}.")
                longest = max(longest, low)
    return longest


def check_query(cypher: str, *, max_hops: int = MAX_HOPS, max_chars: int = Settings.desk_max_query_chars,
                max_nesting: int = Settings.desk_max_nesting) -> GuardedQuery:
    """Check that ``cypher`` is one bounded read-only statement (see the module docstring for the rules).

    Parameters
    ----------
    cypher : str
        The query text; values should be ``$parameters``.
    max_hops : int
        Longest variable-length relationship or quantified path accepted (>= 1); the desk passes its
        ``DeskLimits.max_hops`` (``Settings.desk_max_hops``).
    max_chars, max_nesting : int
        Longest query text (characters) and deepest bracket/``CASE`` nesting accepted (>= 1);
        ``Settings.desk_max_query_chars`` and ``desk_max_nesting`` (the desk passes its ``DeskLimits``).

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
    if len(cypher) > max_chars:
        raise _refuse("too long", f"{len(cypher):,} characters", f"Keep queries under {max_chars:,} characters.")
    all_tokens = tokenize(cypher)
    tokens = _check_statements(all_tokens)
    _check_nesting(tokens, max_nesting)
    _check_keywords(tokens)
    procedures = _check_calls(tokens)
    hops = _check_patterns(tokens, max_hops)
    end = all_tokens[-1].position if len(all_tokens) > len(tokens) else len(cypher)
    return GuardedQuery(text=cypher[:end].strip(), max_hops=hops, procedures=procedures)


#: First words of a Cypher statement (reads and the writes/admin clauses the guard refuses), for
#: :func:`looks_like_cypher`.
CYPHER_START_WORDS: frozenset[str] = READ_START_KEYWORDS | FORBIDDEN_KEYWORDS
_CYPHER_SHAPE = re.compile(r"\bRETURN\b|\(\s*`?\w*`?\s*:\s*`?\w+|-\[|\]-|\)\s*<?-\s*\(|\bYIELD\b",
                           re.IGNORECASE)


def looks_like_cypher(text: str) -> bool:
    """True when ``text`` is a Cypher statement rather than a question: it starts with a clause keyword
    (:data:`CYPHER_START_WORDS`) and has a Cypher shape (a ``RETURN``, a labelled node ``(g:Gene``, a
    relationship ``-[``, ``)--(`` or ``YIELD``). "Match genes to their pathways" is a question.

    Examples
    --------
    >>> looks_like_cypher("MATCH (g:Gene {name: 'BAR'}) RETURN g")
    True
    >>> looks_like_cypher("Match BAR to its pathways")
    False
    """
    words = text.strip().split(None, 1)
    if not words or words[0].upper().rstrip("(") not in CYPHER_START_WORDS:
        return False
    return bool(_CYPHER_SHAPE.search(text))


def with_row_limit(cypher: str, limit: int) -> str:
    """``cypher`` with ``LIMIT limit`` on its final ``RETURN`` when that has no ``LIMIT`` of its own.

    The engine then stops producing rows at the cap instead of materialising the whole result first
    (LadybugDB builds a result before the first row is read: ``UNWIND range(1, 300000000) AS x RETURN x``
    took 10.4 GB). A query with ``UNION``, or whose last clause is not a top-level ``RETURN``, is returned
    unchanged (the executor's streaming caps still apply).

    Parameters
    ----------
    cypher : str
        A query that passed :func:`check_query`.
    limit : int
        Rows wanted, >= 1 (callers pass their row cap + 1 to see whether rows were cut).

    Examples
    --------
    >>> with_row_limit("MATCH (g:Gene) RETURN g.name ORDER BY g.name", 101)
    'MATCH (g:Gene) RETURN g.name ORDER BY g.name LIMIT 101'
    >>> with_row_limit("MATCH (g:Gene) RETURN g.name LIMIT 5", 101)
    'MATCH (g:Gene) RETURN g.name LIMIT 5'
    """
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    tokens = [t for t in tokenize(cypher) if not (t.kind == "op" and t.text == ";")]
    depth = 0
    last_return = -1
    for i, token in enumerate(tokens):
        if token.kind == "op" and token.text in "([{":
            depth += 1
        elif token.kind == "op" and token.text in ")]}":
            depth = max(0, depth - 1)
        elif token.kind == "ident" and depth == 0 and not _is_name_position(tokens, i):
            if token.upper == "UNION":
                return cypher
            if token.upper == "RETURN":
                last_return = i
            elif token.upper == "LIMIT" and last_return >= 0:
                return cypher
    if last_return < 0:
        return cypher
    return f"{cypher.rstrip().rstrip(';').rstrip()} LIMIT {int(limit)}"
