"""Writes hbmlint/exprgen_builtin.py, the built-in rules' generated functions, so that the
package's byte-compiled copy replaces compiling them at run time (see exprgen.generated), and
hbmlint/exprgen_findings.py, those of their wordings and fixes. Run it after changing a built-in
rule's expressions (tests/test_exprgen.py and tests/test_rule_programs_prebuilt.py say when a
file is out of date):

    python tools/write_exprgen_builtin.py
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

from hbmlint.expressions import OWN_OPERATORS, held_parameters, parse, template_fields
from hbmlint.exprgen import _written
from hbmlint.rules import _FLAT_KEYS, _first_reads, _gate, load_rules

# what every generated function reads besides its own globals (exprgen.generated passes them)
SHARED = ("_Quantity", "_attribute", "_expression", "_function")


def _literal(value: Any) -> str | None:
    """Code that makes ``value``, a constant global of a generated function (a tuple of the
    expression's constants, or a float repr() cannot write as a literal): None where this
    does not write it."""
    kind = type(value)
    if kind in (str, int, bool) or value is None or (kind is float and math.isfinite(value)):
        return repr(value)
    if kind is float:
        return f"float({str(value)!r})"  # inf, -inf, nan
    if kind is tuple:
        items = [_literal(item) for item in value]
        if None not in items:
            return "(" + "".join(f"{item}, " for item in items) + ")"
    return None


def _global(value: Any, expression: str) -> str | None:
    """Code that makes a generated function's own global: a constant, one of hbmlint's own
    operators (read from OWN_OPERATORS, so that it is the same function: a generated module
    does not import simpleeval, whose operators exprgen writes as Python's), or the closure
    that reads a name of a namespace not in the flat names (workload.declared), made again as
    expressions._build made it for ``expression``; None for any other closure of
    expressions.py (an ``_s`` global), which only parsing the expression can build."""
    for node, function in OWN_OPERATORS.items():
        if function is value and getattr(ast, node.__name__, None) is node:
            return f"OWN_OPERATORS[ast.{node.__name__}]"
    if getattr(value, "__qualname__", "") == "_name_attribute.<locals>.name_attribute":
        space, attr = value.flat_read[0].split(".")
        return f"_name_attribute({space!r}, {attr!r}, {expression!r})"
    return _literal(value)


def builtin_module() -> str:
    """The text of exprgen_builtin.py for the built-in rules as they are now: for each of their
    ``when`` and ``check`` expressions that exprgen.generated writes a function for, a factory
    that takes the function's globals and returns it, keyed on the function's source (which
    the factory holds, written out as code, word for word). generated uses a factory only
    where the source it writes is that key: a stale module only means compiling.

    And PROGRAMS: for each of those expressions (and each that is one read) whose function's
    own globals can be written as code, by its text and the rule's parameters' names, what
    rules._Program and rules._prefill_for would otherwise parse the expression to work out:
    its function's source and globals, its first reads (_first_reads) and its gate (_gate)."""
    entries: dict[str, str] = {}
    programs: dict[tuple[str, tuple[str, ...]], str] = {}
    for rule in load_rules()[0]:
        names = frozenset(rule.params)
        for expression in (rule.when, rule.check):
            if not expression:
                continue
            written = _written(expression, names, _FLAT_KEYS, one_read=True)
            if written is None:
                continue
            source, env = written
            arguments = ", ".join([*SHARED, *sorted(env)])
            entries[source] = f"lambda {arguments}: {source}"
            made = {key: _global(value, expression) for key, value in env.items()}
            if None in made.values():
                continue
            tree = parse(expression)
            own = "{" + ", ".join(f"{k!r}: {made[k]}" for k in sorted(made)) + "}"
            reads = tuple(_first_reads(tree, names))
            programs[(expression, tuple(sorted(names)))] = (
                f"({source!r}, {own}, {reads!r}, {_gate(tree, names)!r})"
            )
    lines = [
        '"""The built-in rules\' generated functions (exprgen.generated), compiled with the',
        "package as any module is, and what rules.py reads of the built-in rules' `when` and",
        "`check` without parsing them (PROGRAMS, for the flat names FLAT). Written by",
        "tools/write_exprgen_builtin.py: do not edit.",
        '"""',
        "",
        "# ruff: noqa",
        "# fmt: off",
        "import ast",
        "",
        "from .expressions import OWN_OPERATORS, _name_attribute",
        "",
        "FACTORIES = {",
    ]
    for source in sorted(entries):
        lines.append(f"    {source!r}:")
        lines.append(f"        {entries[source]},")
    lines.append("}")
    lines.append("FLAT = frozenset({")
    lines.extend(f"    {key!r}," for key in sorted(_FLAT_KEYS))
    lines.append("})")
    lines.append("PROGRAMS = {")
    for (expression, names), entry in sorted(programs.items()):
        lines.append(f"    ({expression!r}, frozenset({names!r})):")
        lines.append(f"        {entry},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _finding_texts(rule: Any) -> list[str]:
    """The expressions of a rule's wordings and fixes (what rules._finding evaluates)."""
    texts = []
    for wording in rule.messages:
        texts += [wording.when] if wording.when else []
        texts += [e for e, _ in template_fields(wording.text)]
    for fix in rule.fixes:
        texts += [fix.when] if fix.when else []
        texts += list(fix.set.values())
        texts += [e for e, _ in template_fields(fix.text)]
    return texts


def findings_module() -> str:
    """The text of exprgen_findings.py: for each expression of the built-in rules' wordings
    and fixes whose generated function (exprgen) calls no closure of expressions.py, by its
    text and the names of the rule's parameters that the text holds, that function, written
    out with its own globals as its parameters' defaults (one function to load, not a factory
    and a function)."""
    functions: dict[tuple[str, tuple[str, ...]], str] = {}
    for rule in load_rules()[0]:
        for expression in _finding_texts(rule):
            # keyed as parameter_evaluator keys its evaluator: on the names the text holds
            names = held_parameters(expression, frozenset(rule.params))
            written = _written(expression, names, _FLAT_KEYS, one_read=True)
            if written is None:
                continue
            source, env = written
            made = {key: _global(value, expression) for key, value in env.items()}
            if None in made.values():
                continue
            head = "lambda names, functions, params: "
            assert source.startswith(head)
            defaults = "".join(f", {k}={made[k]}" for k in sorted(made))
            functions[(expression, tuple(sorted(names)))] = (
                f"lambda names, functions, params, _expression={expression!r}{defaults}: "
                + source[len(head) :]
            )
    lines = [
        '"""The generated functions (exprgen) of the built-in rules\' wordings and fixes, by their',
        "text and the names of the rule's parameters that it holds, for the flat names FLAT,",
        "compiled with the package (rules._Program.finding_evaluator). Written by",
        "tools/write_exprgen_builtin.py: do not edit.",
        '"""',
        "",
        "# ruff: noqa",
        "# fmt: off",
        "import ast",
        "",
        "from .expressions import OWN_OPERATORS",
        "from .expressions import _attribute, _name_attribute",
        "from .expressions import called_function as _function",
        "from .quantity import Quantity as _Quantity",
        "",
        "# the flat names both modules are written for, by this tool at once",
        "from .exprgen_builtin import FLAT",
        "",
    ]
    lines.append("FUNCTIONS = {")
    for (expression, names), function in sorted(functions.items()):
        lines.append(f"    ({expression!r}, frozenset({names!r})):")
        lines.append(f"        {function},")
    lines.append("}")
    return "\n".join(lines) + "\n"


HBMLINT = Path(__file__).resolve().parent.parent / "hbmlint"
TARGET = HBMLINT / "exprgen_builtin.py"
FINDINGS = HBMLINT / "exprgen_findings.py"

if __name__ == "__main__":
    TARGET.write_text(builtin_module(), encoding="utf-8")
    print(f"wrote {TARGET}")
    FINDINGS.write_text(findings_module(), encoding="utf-8")
    print(f"wrote {FINDINGS}")
