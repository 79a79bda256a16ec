"""``python -m engram_kit.store.statements --dump neo4j [--schema hetionet]``: every statement of a pack, with its
schema, as JSON (the input of ``scripts/lint_cypher.mjs``)."""

from __future__ import annotations

from engram_kit.errors import QueryError
from engram_kit.store.statements import _pack


def _main(argv: list[str] | None = None) -> int:
    """``python -m engram_kit.store.statements --dump neo4j``: print the pack's lint payload as JSON
    (:func:`engram_kit.store.statements.neo4j.lint_payload`; ``--dump`` takes a dialect name or ``module:attribute``
    of a :class:`~engram_kit.store.statements.StatementPack`; ``--schema`` the graph format whose fixed schema the
    statements are filled for, ``hetionet`` unless given: the command names its input, the library assumes none)."""
    import argparse
    import json
    import sys

    from engram_kit.kg.formats import fixed_schema, format_names
    from engram_kit.store.statements.neo4j import lint_payload

    parser = argparse.ArgumentParser(prog="python -m engram_kit.store.statements",
                                     description="Dump every Cypher statement of a statement pack, with its schema, "
                                                 "as JSON.")
    parser.add_argument("--dump", required=True, metavar="PACK",
                        help="statement pack: a dialect name (ladybug, neo4j) or module:attribute")
    parser.add_argument("--schema", default="hetionet", metavar="FORMAT",
                        help="graph format whose fixed schema fills the statements (default: hetionet)")
    args = parser.parse_args(argv)
    schema = fixed_schema(args.schema)
    if schema is None:
        parser.error(f"--schema {args.schema!r} is not a graph format with a fixed schema; registered formats: "
                     f"{', '.join(format_names())} (a format whose schema comes from its data cannot be named here).")
    try:
        payload = lint_payload(_pack(args.dump), schema)
    except QueryError as exc:
        parser.error(str(exc))
    json.dump(payload, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(_main())
