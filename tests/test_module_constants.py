"""Every tunable number lives in Settings (issue 33): a numeric UPPER_CASE module constant outside
``engram_kit/settings.py`` must be a version, data fact, protocol number or import-time engineering bound listed
in ``tests/data/module_constants_allowed.txt`` (and so in docs/settings.md)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("module_constants", REPO / "scripts" / "module_constants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve the module's annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def test_no_numeric_module_constant_outside_settings_unless_listed_as_no_tunable():
    script = _script()
    found = {c.key: c for c in script.find_constants()}
    allowed = script.read_allowed()
    new = sorted(set(found) - set(allowed))
    assert not new, ("Numeric module constants outside engram_kit/settings.py: "
                     + ", ".join(f"{found[k].path}:{found[k].line} {found[k].name} = {found[k].value}" for k in new)
                     + ". Make each tunable a Settings field (unit, range, source) and read it from the settings "
                       "object; list a format version, data fact or protocol number in "
                       "tests/data/module_constants_allowed.txt with why it is not a tunable.")
    stale = sorted(set(allowed) - set(found))
    assert not stale, f"Listed in module_constants_allowed.txt but no longer found: {stale}; remove the lines."


def test_the_moved_tunables_keep_their_values_and_the_duplicate_link_threshold_is_gone():
    from engram_kit import settings as settings_module
    from engram_kit.resolution import policy, resolver
    from engram_kit.settings import Settings

    s = Settings()
    assert (s.exact_confidence, s.alias_confidence, s.abbreviation_factor, s.tfidf_scale, s.tfidf_min_cosine,
            s.embedding_scale, s.embedding_trigger, s.embedding_pool, s.embedding_pool_min_cosine,
            s.context_temperature, s.human_taxon_preference) == (1.0, 0.9, 0.95, 0.8, 0.5, 0.7, 0.8, 20, 0.2, 0.1, 4.0)
    assert (resolver.ALIAS_CONFIDENCE, resolver.TFIDF_SCALE) == (0.9, 0.8)  # deprecated aliases of the defaults
    assert not hasattr(policy, "LINK_THRESHOLD") and s.min_link_confidence == 0.7
    assert (s.max_pdf_bytes, s.max_line_chars, s.desk_max_query_chars, s.answer_top_n) == \
        (50 * 1024 * 1024, 1 << 20, 8_000, 10)
    # every field documents itself, and settings.py stays cheap to import (no pandas/numpy at module level)
    table = Settings.describe()
    assert table["help"].str.len().min() > 0 and table["source"].str.len().min() > 0
    assert table.loc[table["range"] == "", "name"].tolist() == ["kind_priors", "embedding_model", "progress"]
    top_imports = {alias.name.split(".")[0] for node in ast.parse(Path(settings_module.__file__).read_text()).body
                   if isinstance(node, (ast.Import, ast.ImportFrom))
                   for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])}
    assert top_imports <= {"__future__", "collections", "dataclasses", "typing", "engram_kit"}


def test_the_script_finds_a_new_constant_and_ignores_settings_and_functions(tmp_path):
    script = _script()
    package = tmp_path / "engram_kit"
    package.mkdir()
    (package / "settings.py").write_text("DAMPING = 0.5\n")
    (package / "mod.py").write_text("WEIGHT = 0.3\nLIMITS = (1, 2)\nA, B = 90, 12\nNAME = 'x'\nFLAG = True\n"
                                    "ALIAS: int = Settings.top_k\nlower = 3\ndef f():\n    INNER = 4\n")
    found = [(c.name, c.value) for c in script.find_constants(package, tmp_path)]
    assert found == [("WEIGHT", "0.3"), ("LIMITS", "(1, 2)"), ("A", "90"), ("B", "12")]
