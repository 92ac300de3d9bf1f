"""The engine knows no game and the kits stand side by side: no kit's part name, parameter
section or vocabulary in an engine module, no import of a kit by the engine or by another
kit, no import cycle between the engine's packages, nor between any two modules.

The engine is every module outside kits/; its components/ (what several kits share) may
speak of rulers and stat cards, as that is what they are, but import no kit either."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import networkx as nx
import pytest

import squadron_cad
from squadron_cad import kit as kit_module
from squadron_cad.kit import Kit, installed_kits

PACKAGE = Path(squadron_cad.__file__).parent
KITS = PACKAGE / "kits"
COMPONENTS = PACKAGE / "components"
# The engine's own vocabulary: every kit's box group and layout say "box". A kit's part
# may be called that too (Squadron Leader's is); the word alone is not a part's name.
ENGINE_WORDS = {"box"}
# Words of the kits' part names and sections that are plain English or the engine's own
# (a box and its lid, its tin, dice, tokens, cards, a cutting plane, os.stat, "fpdf2 ships
# its metrics"); the rest name the games' things and have no place in the engine.
PLAIN_WORDS = {
    "all", "bank", "base", "box", "card", "clip", "cube", "destroy", "dice", "die",
    "entry", "guide", "holder", "lid", "marker", "marks", "movement", "plane", "range",
    "recover", "scan", "ship", "stacking", "stat", "straight", "tin", "token", "turn",
}  # fmt: skip
PARAMS_NAMES = {"params", "kit_params", "resolved"}  # what the engine calls a kit's parameters


def shipped_kits() -> dict[str, Kit]:
    """The kits installed with the package, not the toy kits other tests register."""
    toys = kit_module._REGISTERED
    return {name: kit for name, kit in installed_kits().items() if name not in toys}


def engine_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if KITS not in p.parents)


def kit_modules() -> dict[str, list[Path]]:
    return {
        folder.name: sorted(folder.rglob("*.py"))
        for folder in sorted(KITS.iterdir())
        if (folder / "__init__.py").is_file()
    }


def kit_only_sections() -> set[str]:
    """Parameter sections some kit has and the engine's base model does not."""
    from squadron_cad.params import KitParamsBase

    sections = {name for kit in shipped_kits().values() for name in kit.params_model.model_fields}
    return sections - set(KitParamsBase.model_fields)


def game_words() -> set[str]:
    """Each kit's own words: its name and title, and the words of its part names and of the
    parameter sections only kits have, that are not plain English."""
    words, sections = set(), kit_only_sections()
    for kit in shipped_kits().values():
        words |= {kit.title.lower(), kit.name.replace("-", " ")}
        names = [*kit.part_names, *(set(kit.params_model.model_fields) & sections)]
        words |= {w for name in names for w in name.split("_") if not w.isdigit()}
    return words - PLAIN_WORDS


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


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once for all the tests here (they only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imports_of(path: Path) -> set[str]:
    """Every squadron_cad module a file imports at run time, at any depth (lazy imports
    count; those under `if TYPE_CHECKING:` do not)."""
    found = set()
    for node in _runtime_nodes(parsed(path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found |= {node.module, *names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("squadron_cad")}


def string_literals(path: Path) -> list[str]:
    """The file's string constants, but not docstrings, nor the keys of the files the
    engine writes (a dict key or a subscript such as layout["box"])."""
    tree = parsed(path)
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


def test_no_kit_imports_another_kit() -> None:
    found = [
        f"{module_name(path)} imports {name}"
        for kit, paths in kit_modules().items()
        for path in paths
        for name in imports_of(path)
        if name.startswith("squadron_cad.kits.") and not name.startswith(f"squadron_cad.kits.{kit}")
    ]
    assert not found, "a kit imports another kit:\n" + "\n".join(found)


def test_no_engine_module_reads_a_kit_s_parameter_section() -> None:
    """`params.ruler`, `design.params.stat_dial`: a section only some kit has. (A kit's
    bench change, fit rules and sheets are the kit's to declare.)"""
    sections = kit_only_sections()
    found = []
    for path in engine_modules():
        for node in ast.walk(parsed(path)):
            if not isinstance(node, ast.Attribute) or node.attr not in sections:
                continue
            owner = node.value
            named = isinstance(owner, ast.Name) and owner.id in PARAMS_NAMES
            if named or (isinstance(owner, ast.Attribute) and owner.attr == "params"):
                found.append(
                    f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {ast.unparse(node)}"
                )
    assert not found, "kit sections read by the engine:\n" + "\n".join(found)


def test_no_engine_module_speaks_of_a_kit_s_things() -> None:
    """No game's words (a kit's name and title, the words of its part names and sections:
    altitude, dial, template, ruler, tracker, gauge, ...) in the engine's code, comments or
    texts, its components aside."""
    words = game_words()
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")s?\b", re.I)
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()[:90]}"
        for path in engine_modules()
        if COMPONENTS not in path.parents
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, f"game words {sorted(words)} in the engine:\n" + "\n".join(found)


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


def _unit(module: str) -> str:
    """The unit of the import graph: a subpackage, or a top-level module, or a kit."""
    parts = module.split(".")
    if parts[1:2] == ["kits"]:
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def imported_modules(module: str, code: str, modules: set[str], package: bool = False) -> set[str]:
    """The modules (of `modules`) that a module's code names in any import: at the top,
    inside a function or under `if TYPE_CHECKING:` (an annotation's import still ties the
    two modules). `from package import name` is the submodule when `name` is one, else the
    package. `package`: the code is the package's __init__."""
    home = module if package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            named = _from_module(node, home)
            for alias in node.names:
                name = f"{named}.{alias.name}"
                found.add(name if name in modules else named)
    return (found & modules) - {module}


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The module a `from ... import` names, a relative one made absolute."""
    if node.level == 0:
        return node.module or ""
    base = package.rsplit(".", node.level - 1)[0]
    return f"{base}.{node.module}" if node.module else base


def module_graph() -> nx.DiGraph:
    """Each module of the package -> every module of the package it imports."""
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(paths)
    for source, path in paths.items():
        code = path.read_text(encoding="utf-8")
        targets = imported_modules(source, code, set(paths), path.name == "__init__.py")
        graph.add_edges_from((source, target) for target in targets)
    return graph


def test_the_module_graph_counts_lazy_typing_and_relative_imports() -> None:
    code = (
        "from typing import TYPE_CHECKING\n"
        "from squadron_cad import errors\n"
        "if TYPE_CHECKING:\n"
        "    from squadron_cad.fit.layout import Layout\n"
        "def later():\n"
        "    import squadron_cad.geometry.frames\n"
        "    from . import units\n"
        "    from .. import resolve\n"
    )
    named = {
        "squadron_cad.errors",
        "squadron_cad.fit.layout",
        "squadron_cad.geometry.frames",
        "squadron_cad.fit.units",
        "squadron_cad.resolve",
    }
    modules = named | {"squadron_cad.fit", "squadron_cad.fit.report", "squadron_cad.kit"}
    assert imported_modules("squadron_cad.fit.report", code, modules) == named


def test_no_module_imports_itself_through_others() -> None:
    """No circle of imports between modules, counting lazy imports inside functions and
    those under `if TYPE_CHECKING:`: either is still a module leaning on one that leans on
    it. For each tangle, one circle through it is shown."""
    graph = module_graph()
    assert graph.number_of_edges() > graph.number_of_nodes() > 100
    tangles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    circles = []
    for tangle in sorted(tangles):
        edges = nx.find_cycle(graph.subgraph(tangle), source=tangle[0])
        loop = " -> ".join([edges[0][0], *(target for _, target in edges)])
        circles.append(f"{len(tangle)} modules tied ({', '.join(tangle)}), e.g. {loop}")
    assert not circles, "import cycles:\n" + "\n".join(circles)
