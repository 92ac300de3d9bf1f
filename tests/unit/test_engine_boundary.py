"""The engine knows no game: no kit's part name in an engine module, no import of a kit,
no import cycle between the engine's packages."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

import squadron_cad
from squadron_cad.kit import installed_kits

PACKAGE = Path(squadron_cad.__file__).parent
KITS = PACKAGE / "kits"
# The engine's own vocabulary: every kit's box group and layout say "box". A kit's part
# may be called that too (Squadron Leader's is); the word alone is not a part's name.
ENGINE_WORDS = {"box"}


def engine_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if KITS not in p.parents)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node, except those under `if TYPE_CHECKING:` (annotations only)."""
    nodes, stack = [], [tree]
    while stack:
        node = stack.pop()
        nodes.append(node)
        for child in ast.iter_child_nodes(node):
            typing_only = isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            if not typing_only:
                stack.append(child)
    return nodes


def imports_of(path: Path) -> set[str]:
    """Every squadron_cad module a file imports at run time, at any depth (lazy imports
    count; those under `if TYPE_CHECKING:` do not)."""
    found = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found |= {node.module, *names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("squadron_cad")}


def string_literals(path: Path) -> list[str]:
    """The file's string constants, but not docstrings, nor the keys of the files the
    engine writes (a dict key or a subscript such as layout["box"])."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skipped.add(id(first.value))
        elif isinstance(node, ast.Dict):
            skipped |= {id(key) for key in node.keys if key is not None}
        elif isinstance(node, ast.Subscript):
            skipped.add(id(node.slice))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skipped
    ]


def test_the_engine_has_modules_and_the_kits_are_apart() -> None:
    assert len(engine_modules()) > 40
    assert (KITS / "squadron_leader" / "__init__.py").is_file()


@pytest.mark.parametrize("kit_name", sorted(installed_kits()))
def test_no_engine_module_names_a_part_of_a_kit(kit_name: str) -> None:
    """A literal equal to a part's name, or one holding a name with an underscore in it
    (a plain word such as "box" is also the engine's own vocabulary)."""
    names = set(installed_kits()[kit_name].part_names) - ENGINE_WORDS
    compound = [re.escape(name) for name in names if "_" in name]
    inside = re.compile(r"\b(" + "|".join(compound) + r")\b") if compound else None
    found = [
        f"{path.relative_to(PACKAGE.parent)}: {text!r}"
        for path in engine_modules()
        for text in string_literals(path)
        if text in names or (inside is not None and inside.search(text))
    ]
    assert not found, "part names in engine modules:\n" + "\n".join(found)


def test_no_engine_module_imports_a_kit() -> None:
    found = [
        f"{module_name(path)} imports {name}"
        for path in engine_modules()
        for name in imports_of(path)
        if name.startswith("squadron_cad.kits")
    ]
    assert not found, "\n".join(found)


def test_the_engine_packages_import_without_cycles() -> None:
    """Packages of the engine (render, checks, fit, outputs, paper, and the top modules)
    form a graph without cycles; a kit only imports the engine."""
    graph = nx.DiGraph()
    for path in PACKAGE.rglob("*.py"):
        source = _unit(module_name(path))
        for name in imports_of(path):
            target = _unit(name)
            if target != source and not name.endswith("TYPE_CHECKING"):
                graph.add_edge(source, target)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"import cycles: {cycles}"
    kit_deps = {t for s, t in graph.edges if s.startswith("squadron_cad.kits")}
    assert all(
        not t.startswith("squadron_cad.kits") or t.startswith("squadron_cad.kits.")
        for t in kit_deps
    )


def _unit(module: str) -> str:
    """The unit of the import graph: a subpackage, or a top-level module, or a kit."""
    parts = module.split(".")
    if parts[1:2] == ["kits"]:
        return ".".join(parts[:3])
    return ".".join(parts[:2])
