"""The architecture, checked: no code outside a rule set's own package branches on which rule set it is.

Code above the rules asks the rule set (:class:`env.core.ruleset.RuleSet`) and
the registries (:mod:`env.core.registry`, :mod:`agents.policies`) instead. A
*branch on a rule set* is an ``if``/``elif``/``while`` test, a conditional
expression's test, a boolean operand or a ``match`` subject that mentions a rule
set's name (a string constant or a name/attribute holding it, as
``ruleset.name == "guafeng"`` or ``is_guafeng``) or an ``isinstance`` check with
a rule set's class. The import contracts of ``pyproject.toml`` (``lint-imports``
in CI) keep the packages apart.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_ROOTS = ("env", "agents", "ui")
SCRIPTS = ("train.py", "evaluate.py", "play.py", "report.py")


def _ruleset_words() -> set[str]:
    from env.core.registry import ruleset_names

    return {name for name in ruleset_names() if name != "standard"} | {"standard"}


def _own_files(word: str, path: Path) -> bool:
    """Whether ``path`` belongs to the rule set ``word``: its packages or a module named after it."""
    parts = path.relative_to(ROOT).parts
    return word in parts or word in path.stem


def _mentions(node: ast.AST, word: str) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value == word:
            return True
        if isinstance(sub, ast.Name) and word in sub.id.lower():
            return True
        if isinstance(sub, ast.Attribute) and word in sub.attr.lower():
            return True
    return False


def branches_on(word: str, tree: ast.AST) -> list[int]:
    """Line numbers of the conditions of ``tree`` that mention the rule set ``word``."""
    tests: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While | ast.IfExp):
            tests.append(node.test)
        elif isinstance(node, ast.BoolOp):
            tests.extend(node.values)
        elif isinstance(node, ast.Match):
            tests.append(node.subject)
        elif isinstance(node, ast.comprehension):
            tests.extend(node.ifs)
    return sorted({t.lineno for t in tests if _mentions(t, word)})


def source_files() -> list[Path]:
    files = [ROOT / s for s in SCRIPTS]
    for package in PACKAGE_ROOTS:
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def count_branches() -> dict[str, list[int]]:
    """Branches on a rule set outside its own files, by ``path`` (relative) -> line numbers."""
    found: dict[str, list[int]] = {}
    words = _ruleset_words()
    for path in source_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        for word in words:
            if _own_files(word, path):
                continue
            lines = branches_on(word, tree)
            if lines:
                found.setdefault(str(path.relative_to(ROOT)), []).extend(lines)
    return found


def test_no_code_branches_on_a_rule_set_outside_its_package():
    found = count_branches()
    total = sum(len(v) for v in found.values())
    assert total == 0, f"{total} branches on a rule set's name outside its package: {found}"


def test_the_counter_finds_a_branch():
    tree = ast.parse("if ruleset.name == 'guafeng':\n    pass\nx = a and is_guafeng(r)\ny = 1 if env.guafeng else 2\n")
    assert branches_on("guafeng", tree) == [1, 3, 4]
    assert branches_on("guafeng", ast.parse("name = 'guafeng'\nif name:\n    pass\n")) == []
