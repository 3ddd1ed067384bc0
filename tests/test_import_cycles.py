"""hbmlint/ has no import cycle (issue 14), read from the source with ast, not by importing.

Two views. Between stages (each top-level module or package of hbmlint is one node) no cycle
at all, counting imports inside functions: data flows one way (design.md), and a lazy import
that closes a loop (speculative -> rules -> speculative, once) is still a loop. Within a
package, module-level imports do not cycle either; a function-level import of the package's own
helpers from a submodule (catalog/architecture.py's ``from . import dtype_bytes``) runs after
the package is loaded and is allowed there. Imports under ``if TYPE_CHECKING:`` never run and
are left out."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import REPO

PACKAGE = REPO / "hbmlint"


def _name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in PACKAGE.rglob("*.py")}


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(test)


def _imports(tree: ast.Module, module_level: bool) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run: at module level (also inside a top-level try or if), or
    anywhere; never under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if _type_checking(node):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
            continue
        if module_level and isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        ):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The hbmlint modules an import statement loads (a package's own names mean its
    __init__; a submodule named in ``from . import x`` means that submodule)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in MODULES}
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, *([node.module] if node.module else [])])
    else:
        target = node.module or ""
    out = set()
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        if sub in MODULES:
            out.add(sub)
        elif target in MODULES:
            out.add(target)
    return out


def _graph(module_level: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in _imports(tree, module_level):
            edges |= _targets(module, is_package, node)
        edges.discard(module)
        graph[module] = edges
    return graph


def _stage(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_cycle_between_stages_even_through_lazy_imports():
    stages: dict[str, set[str]] = {}
    for module, edges in _graph(module_level=False).items():
        here = _stage(module)
        stages.setdefault(here, set()).update(_stage(e) for e in edges if _stage(e) != here)
    assert _cycles(stages) == []


def test_no_module_level_cycle_within_a_package():
    assert _cycles(_graph(module_level=True)) == []


def test_the_checker_sees_a_cycle():
    """The checker itself finds a loop, a lazy one included, so the tests above can fail."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    tree = ast.parse("def f():\n    from .rules import load_rules\n")
    assert _imports(tree, module_level=True) == []
    [node] = _imports(tree, module_level=False)
    assert _targets("hbmlint.speculative", False, node) == {"hbmlint.rules"}
    assert "hbmlint.rules" in _graph(module_level=False)["hbmlint.cli"]
