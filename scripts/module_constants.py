"""List the numeric module constants of engram_kit/ (issue 33: every tunable lives in ``Settings``).

A module constant here is a module-level assignment (``NAME = ...``, ``NAME: T = ...``) whose target is an
UPPER_CASE name and whose value is a numeric literal (int or float, signed, or simple arithmetic of numeric
literals such as ``128 * 1024``) or a tuple/list/set/frozenset of them; ``A, B = 90, 12`` counts as two. ``engram_kit/settings.py`` is
skipped: its fields are the tunables. Booleans are not numbers here.

Every constant this finds must be either a :class:`engram_kit.settings.Settings` field (then it is no
module constant any more) or a fact that is not a tunable -- a format version, a data fact, a protocol
constant -- listed in ``docs/settings.md``; ``tests/test_module_constants.py`` fails on one that is neither.

Usage::

    python scripts/module_constants.py            # one line per constant: path:line NAME = value
    python scripts/module_constants.py --names    # path::NAME only (the allow-list format)
    python scripts/module_constants.py --table    # the allow-list as the Markdown table of docs/settings.md
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "engram_kit"
SKIP = {"settings.py"}
#: The constants that are not tunables, one ``path::NAME | kind | why`` a line ('#' starts a comment line).
ALLOWED = REPO / "tests" / "data" / "module_constants_allowed.txt"


@dataclass(frozen=True)
class ModuleConstant:
    """One numeric module constant: ``path`` relative to the repository (posix), ``name``, ``line`` (1-based)
    and ``value`` (its source text)."""

    path: str
    name: str
    line: int
    value: str

    @property
    def key(self) -> str:
        """``path::NAME``, the form of the allow-list."""
        return f"{self.path}::{self.name}"


def _is_number(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_number(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_number(node.left) and _is_number(node.right)
    return False


def is_numeric_value(node: ast.expr) -> bool:
    """True for a numeric literal, arithmetic of numeric literals, or a (non-empty) tuple/list/set of them,
    also wrapped in ``frozenset(...)``/``tuple(...)``."""
    if _is_number(node):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(is_numeric_value(e) for e in node.elts)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"frozenset", "tuple"}
            and len(node.args) == 1 and not node.keywords):
        return is_numeric_value(node.args[0])
    return False


def _is_upper(name: str) -> bool:
    stripped = name.lstrip("_")
    return bool(stripped) and stripped.upper() == stripped and any(c.isalpha() for c in stripped)


def constants_in(path: Path, root: Path = REPO) -> Iterator[ModuleConstant]:
    """The numeric module constants of one Python file (module level only, not in functions or classes).

    Raises
    ------
    SyntaxError
        If the file does not parse.
    """
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    rel = path.resolve().relative_to(root.resolve()).as_posix()
    for stmt in tree.body:
        targets: list[ast.expr]
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        if not is_numeric_value(value):
            continue
        for target in targets:
            if isinstance(target, ast.Name) and _is_upper(target.id):
                yield ModuleConstant(rel, target.id, stmt.lineno, ast.get_source_segment(source, value) or "")
            elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
                for name, part in zip(target.elts, value.elts):  # A, B = 90, 12
                    if isinstance(name, ast.Name) and _is_upper(name.id):
                        yield ModuleConstant(rel, name.id, stmt.lineno, ast.get_source_segment(source, part) or "")


def find_constants(package: Path = PACKAGE, root: Path = REPO) -> list[ModuleConstant]:
    """Every numeric module constant under ``package`` except in ``settings.py``, sorted by path and line."""
    found: list[ModuleConstant] = []
    for path in sorted(package.rglob("*.py")):
        if path.name in SKIP and path.parent == package:
            continue
        found.extend(constants_in(path, root))
    return sorted(found, key=lambda c: (c.path, c.line))


def read_allowed(path: Path = ALLOWED) -> dict[str, tuple[str, str]]:
    """``path::NAME`` -> ``(kind, why)`` of the allow-list.

    Raises
    ------
    ValueError
        If a line does not have the three ``|``-separated fields, or names a kind other than version, data,
        protocol or engineering.
    """
    out: dict[str, tuple[str, str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|", 2)]
        if len(parts) != 3 or parts[1] not in {"version", "data", "protocol", "engineering"}:
            raise ValueError(f"{path.name}:{number}: write 'path::NAME | kind | why' with kind version, data, "
                             f"protocol or engineering, not {line!r}.")
        out[parts[0]] = (parts[1], parts[2])
    return out


def markdown_table(allowed: dict[str, tuple[str, str]]) -> str:
    """The allow-list as a Markdown table (module, constant, kind, why), sorted by module."""
    rows = ["| module | constant | kind | why it is not a tunable |", "|---|---|---|---|"]
    for key in sorted(allowed):
        path, name = key.split("::")
        kind, why = allowed[key]
        rows.append(f"| `{path}` | `{name}` | {kind} | {why} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", action="store_true", help="print path::NAME only (the allow-list format)")
    parser.add_argument("--table", action="store_true", help="print the allow-list as a Markdown table")
    args = parser.parse_args(argv)
    if args.table:
        print(markdown_table(read_allowed()))
        return 0
    found = find_constants()
    for c in found:
        print(c.key if args.names else f"{c.path}:{c.line} {c.name} = {c.value}")
    if not args.names:
        print(f"# {len(found)} constants")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
