"""Declarative rules: load YAML rule files, validate them, evaluate them against a Budget.

A rule is data (see rules/*.yaml and schemas/rule.schema.json). Its expressions see the names
built by ``budget_names`` below and may call ``whatif(...)`` to ask what the budget would be
with some settings changed; the arithmetic itself lives once, in budget.py.
"""

from __future__ import annotations

import ast
import contextlib
import math
import operator
import os
from collections.abc import Callable
from dataclasses import field
from functools import lru_cache, partial
from itertools import compress
from pathlib import Path
from typing import Any

from . import catalog, files
from .budget import Budget, release
from .catalog.architecture import block_misfit
from .diagnostics import Diagnostic, Severity, input_diagnostic
from .diagnostics import Fix as DiagnosticFix
from .expressions import (
    Evaluator,
    ExpressionError,
    Lazy,
    Scope,
    _attribute,
    _compiled,
    called_function,
    check_template,
    evaluation_error,
    held_parameters,
    merged_evaluator,
    parameter_evaluator,
    parse,
    render_plan,
    template_fields,
    template_plan,
    with_base_functions,
)
from .quantity import Quantity
from .records import dataclass
from .schema import validate
from .units import Q, UnitError, bytes_quantity, parse_quantity, shown, tokens_quantity
from .yamlsrc import Span, YamlDocument, load_documents

# The rule whose parameters tradeoff() starts from (speculative.py names it too, for its
# messages; a test keeps the two equal without either module importing the other).
TRADEOFF_RULE = "speculative-tradeoff"


@dataclass
class Fix:
    text: str
    when: str | None = None
    # manifest field -> expression for its new value: what --fix writes (fixes.py)
    set: dict[str, str] = field(default_factory=dict)
    applicability: str = "unsafe"


@dataclass
class Message:
    """One wording of a rule's finding; a rule with several says the first whose ``when``
    holds (a KV cache with no room left reads as what is short, not as a negative size)."""

    text: str
    when: str | None = None


@dataclass
class Rule:
    id: str
    name: str
    summary: str
    severity: Severity
    check: str
    at: str
    messages: list[Message]
    when: str | None = None
    description: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    fixes: list[Fix] = field(default_factory=list)
    # engine -> release range ("all", ">=0.10", ">=0.5.4, <0.11"); empty: every engine
    engines: dict[str, str] = field(default_factory=dict)
    file: str = ""
    spans: dict[str, Span] = field(default_factory=dict)

    def span(self, key: str) -> Span:
        return self.spans.get(key, Span(1, 1))

    def __getstate__(self) -> dict[str, Any]:
        # what evaluate_rule works out once and keeps here (compiled functions) stays behind
        # when the rules go to worker processes
        return {k: v for k, v in self.__dict__.items() if k != "_program"}

    @property
    def calls_tradeoff(self) -> bool:
        """Whether any of the rule's expressions names tradeoff (only those rules get the
        function bound to their parameters; the others cannot call it). Worked out once."""
        known = self.__dict__.get("_calls_tradeoff")
        if known is None:
            texts = [self.check, self.when]
            for wording in self.messages:
                texts += [wording.text, wording.when]
            for fix in self.fixes:
                texts += [fix.text, fix.when, *fix.set.values()]
            known = self.__dict__["_calls_tradeoff"] = any("tradeoff" in t for t in texts if t)
        return known


def _get_spans(rule: Rule) -> dict[str, Span]:
    rows = rule.__dict__.pop("_span_rows", None)
    if rows is not None:
        rule._spans = {key: Span(*where) for key, *where in rows}
    return rule._spans


def _set_spans(rule: Rule, spans: dict[str, Span]) -> None:
    rule.__dict__.pop("_span_rows", None)
    rule._spans = spans


# ``spans`` stays the dataclass's field (the constructor takes it, equality and repr read it);
# behind it, a built-in rule's spans are made from builtin_rules_data's rows when first read:
# a run reads a rule's span only for a problem with the rule itself.
Rule.spans = property(_get_spans, _set_spans)  # type: ignore[assignment, method-assign]


def _package_dir(name: str) -> Path:
    """The directory of a data package (rules/ and schemas/ install as hbmlint.builtin_rules
    and hbmlint.schemas). Its __path__, not importlib.resources: that module and what it
    imports (tempfile, shutil, zipfile) cost more start-up than reading the rules."""
    import importlib

    return Path(next(iter(importlib.import_module(name).__path__)))


def builtin_rule_files() -> list[Path]:
    folder = _package_dir("hbmlint.builtin_rules")
    # sorted as their paths sort (in one folder: by the name, case-folded where the system
    # folds case), each path made once from the folder's (parsing 44 paths again cost more)
    names = [n for n in os.listdir(folder) if n.endswith((".yaml", ".yml"))]
    return [folder / name for name in sorted(names, key=os.path.normcase)]


def load_rules(
    paths: list[Path] | None = None, builtin_files: list[Path] | None = None
) -> tuple[list[Rule], list[Diagnostic]]:
    """Load rule files (the built-in ones by default); broken files become findings at their
    own file and line, and every other rule still loads. ``builtin_files``: what
    builtin_rule_files() returned a moment ago, where the caller has it (listing and sorting
    the folder's paths again costs more than reading the rules' cache)."""
    rules: list[Rule] = []
    findings: list[Diagnostic] = []
    if builtin_files is None:
        builtin_files = builtin_rule_files()
    builtin = set(builtin_files)
    texts = _rule_texts(builtin_files)
    packaged = _packaged_entries(_rules_source(texts))
    parsed = {} if packaged is not None else _parsed_builtin_rules(builtin_files, texts)
    for path in builtin_files if paths is None else paths:
        try:
            entry = packaged.get(path.name) if packaged is not None and path in builtin else None
            rule = _packaged_rule(entry, str(path)) if entry is not None else None
            if rule is not None:
                problems = []
            else:  # read the usual way: at the full positions of a fresh parse, if it fails
                rule, problems = load_rule_file(
                    path, validated=path in builtin, parsed=parsed.get(path)
                )
                if problems and path in parsed:
                    rule, problems = load_rule_file(path, validated=True)
        except (RecursionError, MemoryError) as exc:  # a rule file built to exhaust us
            rule, problems = (
                None,
                [
                    input_diagnostic(
                        "HBM009", f"rule file too complex to read ({type(exc).__name__})", str(path)
                    )
                ],
            )
        findings.extend(problems)
        if rule is not None:
            rules.append(rule)
    seen: dict[str, Rule] = {}
    for rule in rules:
        if rule.id in seen:
            findings.append(
                input_diagnostic(
                    "HBM009",
                    f"rule id {rule.id} is also used by {seen[rule.id].file}",
                    rule.file,
                    rule.span("id"),
                )
            )
        seen.setdefault(rule.id, rule)
    return list(seen.values()), findings


def _parsed_builtin_rules(
    paths: list[Path], texts: dict[Path, str] | None = None
) -> dict[Path, YamlDocument]:
    """The built-in rule files' parsed YAML (where builtin_rules_data was not written for them):
    from one entry of the catalogs' cache (checked against the files' own bytes on every read,
    see catalog/yamlcache.py) or parsed now and cached: composing 34 small YAML files with their
    positions was a tenth of a one-file lint, and reading the cache's JSON back a fortieth. Only
    a document's data and its top-level spans are kept (all a valid rule needs); a file that is
    not exactly one mapping is left out, and read the usual way. ``texts``: _rule_texts(paths),
    where the caller has read them."""
    from .catalog import yamlcache

    if texts is None:
        texts = _rule_texts(paths)
    source = _rules_source(texts)
    try:
        entries = yamlcache.cached(source, "rules", partial(_rule_entries, texts))
    except Exception:  # noqa: BLE001 - a cache problem only means parsing the files
        entries = _rule_entries(texts)
    found: dict[Path, YamlDocument] = {}
    for path in texts:
        entry = entries.get(path.name) if isinstance(entries, dict) else None
        if not (isinstance(entry, dict) and isinstance(entry.get("data"), dict)):
            continue
        spans = {(key,): Span(*where) for key, where in entry["spans"].items()}
        found[path] = YamlDocument(entry["data"], 0, spans, text=texts[path])
    return found


def _rule_texts(paths: list[Path]) -> dict[Path, str]:
    """The text of each rule file that can be read."""
    texts: dict[Path, str] = {}
    for path in paths:
        with contextlib.suppress(files.FileReadError):
            texts[path] = files.read_text(path)
    return texts


def _rules_source(texts: dict[Path, str]) -> bytes:
    """The rule files' names and texts as one string of bytes: what their parsed data is
    cached for."""
    return "\0".join(f"{p.name}\0{t}" for p, t in texts.items()).encode("utf-8")


def _rule_entries(texts: dict[Path, str]) -> dict[str, Any]:
    """Each rule file's data and top-level spans, by its name (see _parsed_builtin_rules)."""
    entries: dict[str, Any] = {}
    for path, text in texts.items():
        documents, error = load_documents(text)
        if error is None and len(documents) == 1 and isinstance(documents[0].data, dict):
            spans = documents[0].spans
            entries[path.name] = {
                "data": documents[0].data,
                "spans": {
                    str(key[0]): [s.line, s.column, s.end_line, s.end_column]
                    for key, s in spans.items()
                    if len(key) == 1
                },
            }
    return entries


def _packaged_entries(source: bytes) -> dict[str, Any] | None:
    """builtin_rules_data's entries (_packaged_entry), written by
    tools/write_builtin_rules_data.py for the built-in rule files as they were: only where
    ``source`` (_rules_source) is the one they were written for, compared whole (its digest cost
    40 times more). Loading a module's constants costs a fraction of decoding the cache's
    JSON."""
    try:
        from . import builtin_rules_data
    except ImportError:
        return None
    if source != builtin_rules_data.SOURCE:
        return None
    return builtin_rules_data.ENTRIES


def _packaged_entry(entry: dict[str, Any]) -> tuple:
    """What builtin_rules_data holds of a rule file's _rule_entries entry: its _rule_fields,
    its parameters as written and its top-level spans, all in tuples (constants of the
    module, which a run loads with no code to build them)."""
    data = entry["data"]
    params = tuple((data.get("params") or {}).items())
    spans = tuple((key, *where) for key, where in entry["spans"].items())
    return _rule_fields(data), params, spans


def _packaged_rule(entry: tuple, display: str) -> Rule | None:
    """The rule of a builtin_rules_data entry (_packaged_entry), or None where a parameter does
    not parse (the file is then read the usual way, for the problem's position)."""
    fields, written, rows = entry
    params: dict[str, Any] = {}
    try:
        for name, value in written:
            params[name] = parse_param(value)
    except UnitError:
        return None
    rule = _built_rule(fields, params, display, {})
    rule._span_rows = rows  # made into spans when first read (an error at a rule's line)
    return rule


def _rule_fields(data: dict[str, Any]) -> tuple:
    """A valid rule's data as Rule holds it, but for its parameters, file and spans: its
    wordings' texts on one line each, its fixes' settings and engines as strings, and lists and
    dicts as tuples (what builtin_rules_data writes them as; _built_rule makes the rule)."""
    raw = data["message"]
    wordings = [(raw, None)] if isinstance(raw, str) else [(m["text"], m.get("when")) for m in raw]
    fixes = tuple(
        (f, None, (), "unsafe")
        if isinstance(f, str)
        else (
            f["text"],
            f.get("when"),
            tuple((str(k), str(v)) for k, v in (f.get("set") or {}).items()),
            f.get("applicability", "unsafe"),
        )
        for f in data.get("fixes") or []
    )
    return (
        data["id"],
        data["name"],
        data["summary"],
        data["severity"],
        data["check"],
        data["at"],
        tuple((" ".join(text.split()), when) for text, when in wordings),
        data.get("when"),
        data.get("description", ""),
        fixes,
        tuple((str(k), str(v)) for k, v in (data.get("engines") or {}).items()),
    )


def _built_rule(fields: tuple, params: dict[str, Any], display: str, spans: dict) -> Rule:
    """The Rule of _rule_fields, with its parameters' values, file and top-level spans."""
    id_, name, summary, severity, check, at, wordings, when, description, fixes, engines = fields
    return Rule(
        id=id_,
        name=name,
        summary=summary,
        severity=Severity.parse(severity),
        check=check,
        at=at,
        messages=[Message(text, when) for text, when in wordings],
        when=when,
        description=description,
        params=params,
        fixes=[Fix(text, when, dict(set_), applied) for text, when, set_, applied in fixes],
        engines=dict(engines),
        file=display,
        spans=spans,
    )


def load_rule_file(
    path: Path, validated: bool = False, parsed: YamlDocument | None = None
) -> tuple[Rule | None, list[Diagnostic]]:
    """One rule. ``validated`` skips the JSON Schema check and the declared-names check: the
    built-in rules are checked against both by the test suite, and hbmlint's start-up should not
    pay for them on every run (a team's own rules are always checked). Every expression is
    parsed either way. ``parsed``: the file's document, already read (the built-in rules)."""
    display = str(path)
    if parsed is not None:
        document = parsed
    else:
        try:
            text = files.read_text(path)
        except files.FileReadError as exc:
            reason = f"cannot read rule file: {exc.reason}"
            return None, [input_diagnostic("HBM009", reason, display)]
        documents, error = load_documents(text)
        if error is not None:
            return None, [input_diagnostic("HBM009", error.message, display, error.span)]
        if len(documents) != 1:
            message = "a rule file holds exactly one rule"
            return None, [input_diagnostic("HBM009", message, display)]
        document = documents[0]
    problems = [] if validated else validate(document, "rule", display, code="HBM009")
    if problems:
        return None, problems
    data = document.data
    spans = {str(key[0]): span for key, span in document.spans.items() if len(key) == 1}
    params: dict[str, Any] = {}
    for name, value in (data.get("params") or {}).items():
        try:
            params[name] = parse_param(value)
        except UnitError as exc:
            problems.append(
                input_diagnostic(
                    "HBM009", f"params.{name}: {exc}", display, document.span(("params", name))
                )
            )
    rule = _built_rule(_rule_fields(data), params, display, spans)
    # Every expression is parsed now, so a typo is reported at load time with its line. The
    # built-in rules' expressions, names and units are checked by the test suite (test_rules.py,
    # test_names.py) and parsed here only when first used: a clean lint never renders most
    # messages and fixes.
    if not validated:
        problems += _expression_problems(rule, document, display, problems)
    return (None if problems else rule), problems


def _expression_problems(
    rule: Rule, document: YamlDocument, display: str, problems: list[Diagnostic]
) -> list[Diagnostic]:
    """What is wrong with a rule's expressions and templates: each parses, each template's
    formats are bounded, and (where neither ``problems``, the rule's own so far, nor these
    found anything) each name is declared and the units agree."""
    found: list[Diagnostic] = []
    expressions = [("check", rule.check), ("when", rule.when)]
    templates = []
    for i, wording in enumerate(rule.messages):
        key = "message" if len(rule.messages) == 1 else f"message.{i}"
        expressions += [(key, wording.when)]
        expressions += [(key, e) for e, _ in template_fields(wording.text)]
        templates += [(key, wording.text)]
    for i, fix in enumerate(rule.fixes):
        expressions += [(f"fixes.{i}", fix.when)]
        expressions += [(f"fixes.{i}", e) for e in fix.set.values()]
        expressions += [(f"fixes.{i}", e) for e, _ in template_fields(fix.text)]
        templates += [(f"fixes.{i}", fix.text)]
    checks = [(key, parse, e) for key, e in expressions if e is not None]
    checks += [(key, check_template, t) for key, t in templates]
    for key, check, expression in checks:
        try:
            check(expression)
        except ExpressionError as exc:
            found.append(input_diagnostic("HBM009", str(exc), display, document.span(key)))
    # Every expression parses: each name it uses must be declared.
    if not problems and not found:
        for key, expression in expressions:
            unknown = undeclared(expression, rule.params) if expression else []
            if unknown:
                names = ", ".join(dict.fromkeys(unknown))
                message = f"unknown name {names} (hbmlint/names.yaml lists the names rules use)"
                found.append(input_diagnostic("HBM009", message, display, document.span(key)))
    # Every name is known: the units must agree (bytes compared with tokens fails on every
    # deployment, or never trips).
    if not problems and not found:
        from .dimensions import UnitMismatch
        from .dimensions import check as check_units

        for key, expression in expressions:
            try:
                if expression:
                    check_units(expression, declared_names(), rule.params)
            except UnitMismatch as exc:
                message = f"units do not agree: {exc}"
                found.append(input_diagnostic("HBM009", message, display, document.span(key)))
    return found


@lru_cache(maxsize=1)
def declared_names() -> dict[str, Any]:
    """hbmlint/names.yaml: every name a rule expression may use, with unit and description."""
    import yaml

    # libyaml where installed: the pure-Python loader took a tenth of a one-file lint here
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(Path(__file__).with_name("names.yaml").read_text(), Loader=loader)


def undeclared(expression: str, params: Any = ()) -> list[str]:
    """The names ``expression`` uses that hbmlint/names.yaml does not declare (nor the rule's
    own parameters), e.g. ``["model.heads"]``; a typo is reported when the rule loads."""
    declared = declared_names()
    spaces, functions = declared["namespaces"], declared["functions"]
    found: list[str] = []
    for node in ast.walk(parse(expression)):
        if isinstance(node, ast.Attribute):
            base = node.value
            if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Call):
                # whatif(...).kv.tokens: the same names as the budget's
                func = base.value.func
                is_whatif = isinstance(func, ast.Name) and func.id == "whatif"
                if is_whatif and base.attr in spaces and node.attr not in spaces[base.attr]:
                    found.append(f"whatif(...).{base.attr}.{node.attr}")
            in_space = isinstance(base, ast.Name) and base.id in spaces
            if in_space and node.attr not in spaces[base.id]:  # type: ignore[union-attr]
                found.append(f"{base.id}.{node.attr}")  # type: ignore[union-attr]
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            known = node.id in spaces or node.id in functions or node.id in params
            if not known and node.id not in ("True", "False", "None"):
                found.append(node.id)
    return found


def parse_param(value: Any) -> Any:
    """A parameter: a number, a boolean, or a quantity with a unit ("10 percent", "2 GiB",
    "10 us")."""
    if isinstance(value, (bool, int, float)):
        return value
    for dimension in ("[]", "[information]", "[token]", "[time]"):
        try:
            return parse_quantity(value, dimension)
        except UnitError:
            continue
    raise UnitError(
        f"{shown(value)} is not a number, a ratio, a memory size, a token count or a time"
    )


def budget_names(budget: Budget) -> dict[str, Any]:
    """The names a rule expression can use. Documented in the README's rule section."""
    return {space: build() for space, build in namespaces(budget).items()}


def namespaces(budget: Budget) -> dict[str, Callable[[], Lazy]]:
    """budget_names' namespaces, each built when first asked for: a what-if budget's rules
    read one or two of them (``whatif(...).kv.tokens``). Each value is worked out when a rule
    first reads it (_NAMESPACES' tables; the overhead's names are the budget's own)."""
    facts = _Facts(budget)
    return {space: partial(build, facts) for space, build in _SPACES.items()}


_NO_TOKENS = tokens_quantity(0)


class _Facts:
    """What one budget's names are worked out from, and what several of them share."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.s = budget.settings
        self.resolved = resolved = budget.resolved
        self.dep = resolved.deployment  # (budget.deployment, without the property's call)
        self.target = resolved.target
        self.draft = resolved.draft

    @property
    def experts_split(self) -> bool:
        return not self.dep.parallel.expert

    def tokens_without_draft(self) -> Any:
        return self.budget.whatif(speculative_method="none").kv_tokens

    def state_slot_tokens(self) -> Any:
        """What speculating costs a model with recurrent state whatever the drafter: a state
        slot for each draft token a sequence (and their verification), which an n-gram drafter
        holds too: the capacity without speculation less an n-gram drafter's. 0 for a model
        without recurrent state, whose drafter takes the rest alone."""
        budget, s = self.budget, self.s
        # every deployment's rules read it, most without recurrent state: the shared zero
        # (Quantities are immutable) without making one to test or to return
        state = budget.kv_state_bytes_per_sequence
        if not state or not state.magnitude:
            return _NO_TOKENS
        if s.num_speculative_tokens <= 0 or not budget.has_drafter:
            return _NO_TOKENS
        ngram = budget.whatif(speculative_method="ngram").kv_tokens
        without = self.tokens_without_draft
        return max(min(without() - ngram, without() - budget.kv_tokens), _NO_TOKENS)

    def displaced_tokens(self) -> Any:
        """What the drafter's own weights and KV cache take: what an n-gram drafter in its place
        would give back, without the state slots any drafter needs."""
        return self.tokens_without_draft() - self.budget.kv_tokens - self.state_slot_tokens()

    def whole_sequences(self, tokens: Any) -> int:
        ratio = (tokens / self.budget.max_model_len).to("dimensionless").magnitude
        return max(0, math.floor(ratio))

    def next_tensor(self, current: int) -> int | None:
        """The next TP size the engine accepts: it divides the heads and, for an FP8
        block-quantized checkpoint, splits the weights into whole blocks. None on a MIG slice:
        a CUDA process enumerates one MIG device only, so no engine spreads over several."""
        if " MIG " in self.budget.resolved.gpu.name:  # resolve._mig_slice's name
            return None
        target, experts_split = self.target, self.experts_split
        size = _next_tensor_parallel(target.num_attention_heads, current)
        while size is not None and block_misfit(target, size, experts_split):
            size = _next_tensor_parallel(target.num_attention_heads, size)
        return size

    def tensor_to_fit(self) -> int | None:
        """The smallest larger TP size at which one max_model_len sequence fits, if any."""
        budget = self.budget
        size = self.next_tensor(self.s.tensor_parallel)
        while size is not None:
            if budget.whatif(tensor_parallel=size).kv_tokens >= budget.max_model_len:
                return size
            size = self.next_tensor(size)
        return None

    def misfit(self) -> tuple[str, Any] | None:
        return block_misfit(self.target, self.s.tensor_parallel, self.experts_split)

    def has_draft(self) -> bool:
        budget = self.budget
        found = budget.draft_weights.magnitude > 0 or budget.kv_bytes_per_token_draft.magnitude > 0
        return found or bool(budget.draft_host_weights and budget.draft_host_weights.magnitude)

    def n_predict(self) -> int:
        # vLLM reuses MTP layers (and takes n_predict from the draft's config): k above
        # n_predict must be a multiple of it (vllm/config/speculative.py); Medusa drafts one
        # token per head.
        s, draft = self.s, self.draft
        if s.speculative_method == "mtp":
            return max(self.target.mtp_layers, 1)
        if s.speculative_method == "medusa" and draft is not None:
            return draft.medusa_heads
        return 0

    def tokens_supported(self) -> bool:
        k, n_predict = self.s.num_speculative_tokens, self.n_predict()
        if self.s.speculative_method == "medusa":
            return not n_predict or k <= n_predict
        return not n_predict or k <= n_predict or k % n_predict == 0

    def draft_context(self) -> Any:
        spec, draft = self.dep.speculative, self.draft
        return spec.max_model_len or (draft.max_position_embeddings if draft else None)

    def workload_fits(self) -> tuple[Any, Any, Any]:
        """The declared workload's context, and the sequences and the context a sequence that
        the KV cache holds."""
        workload, kv_tokens = self.dep.workload, self.budget.kv_tokens
        block = self.s.block_size
        context = tokens_quantity(workload.context_tokens)
        per_sequence = kv_tokens / workload.concurrency
        return (
            context,
            max(0, math.floor((kv_tokens / context).to("").magnitude)),
            tokens_quantity(math.floor(per_sequence.to("token").magnitude / block) * block),
        )


def _fit_without_draft(c: _Facts) -> int:
    # without the drafter's own weights and KV (the state slots any drafter needs stay)
    context = tokens_quantity(c.dep.workload.context_tokens)
    tokens = c.budget.kv_tokens + c.displaced_tokens()
    return max(0, math.floor((tokens / context).to("").magnitude))


def _uses_draft_tp(c: _Facts) -> bool:
    return c.s.speculative_method in ("draft_model", "eagle", "eagle3")


# Each namespace's names, worked out from a budget's _Facts when a rule first reads them (a
# deployment's rules read about 37 of some 110). The overhead's names are the budget's own,
# and an undeclared workload has only `declared` (_SPACES builds those two).
_NAMESPACES: dict[str, dict[str, Callable[[_Facts], Any]]] = {
    "gpu": {
        "name": lambda c: c.resolved.gpu.name,
        "total": lambda c: c.budget.total,
        "usable": lambda c: c.budget.usable,
        # TensorRT-LLM's fraction is of the memory free after loading: the share of the card
        # it comes to; the others' fraction is of the card (or of what is free at start), as
        # the manifest sets it
        "usable_share": lambda c: c.budget.usable_share,
        "count": lambda c: c.resolved.gpu_count,
        "fp8": lambda c: c.resolved.gpu.fp8,
        "memory_fraction": lambda c: c.s.memory_fraction,
        "vendor": lambda c: c.resolved.gpu.vendor,
        "compute_capability": lambda c: getattr(c.resolved.gpu, "compute_capability", None) or 0.0,
        "unified_memory": lambda c: bool(getattr(c.resolved.gpu, "unified_memory", False)),
    },
    "model": {
        "name": lambda c: c.target.name,
        "vocab_size": lambda c: c.target.vocab_size,
        "weights": lambda c: c.budget.weights,
        "parameters": lambda c: c.target.parameters,
        "layers": lambda c: c.target.num_layers,
        "quantization": lambda c: c.s.quantization or "none",
        "dtype": lambda c: c.s.dtype,
        "dtype_requested": lambda c: c.dep.model.dtype or "auto",
        "quantization_requested": lambda c: c.dep.model.quantization or "none",
        "quantization_method": lambda c: c.dep.model.quantization_method or "none",
        "checkpoint_quantization": lambda c: getattr(c.target, "quant_method", None) or "none",
        # known to be unquantized: its config.json has no quantization_config (a name read as a
        # quantized upload keeps its format, not its quant_method), and the checkpoint is the one
        # named, not a catalog model taken from a local path's or a served name
        "checkpoint_unquantized": lambda c: (
            c.target.quantization is None
            and c.target.quant_method is None
            and c.budget.resolved.model_guessed_from is None
        ),
        "attention_heads": lambda c: c.target.num_attention_heads,
        "kv_heads": lambda c: c.target.num_kv_heads,
        "mla": lambda c: c.target.is_mla,
        "experts": lambda c: c.target.num_experts if c.target.is_moe else 0,
        "model_type": lambda c: getattr(c.target, "model_type", "") or "",
        "mtp_layers": lambda c: c.target.mtp_layers,
        "weight_block": lambda c: max(c.target.weight_block, default=0),
        "block_misfit": lambda c: (c.misfit() or ("", 0))[1],
        "block_misfit_what": lambda c: (c.misfit() or ("", 0))[0],
        "max_length": lambda c: tokens_quantity(c.target.max_length or 0),
        "max_length_sglang": lambda c: tokens_quantity(
            getattr(c.target, "max_length_sglang", None) or 0
        ),
    },
    "draft": {
        "present": _Facts.has_draft,
        # the drafter as the manifest names it (a catalog alias stays the user's name)
        "name": lambda c: (_written_draft(c.dep) or c.draft.name) if c.draft else "",
        "weights": lambda c: c.budget.draft_weights,
        "parameters": lambda c: c.draft.parameters if c.draft else 0,
        "quantization": lambda c: c.s.draft_quantization or "none",
        "tensor_parallel": lambda c: c.s.draft_tensor_parallel,
        "kv_bytes_per_token": lambda c: c.budget.kv_bytes_per_token_draft,
        "vocab_size": lambda c: c.draft.vocab_size if c.draft else 0,
        "parameter_ratio": lambda c: (c.draft.parameters / c.target.parameters) if c.draft else 0.0,
        "kv_cache_dtype": lambda c: c.s.draft_kv_cache_dtype or c.s.kv_cache_dtype,
        "kv_fp8": lambda c: _eight_bits_or_fewer(c.s.draft_kv_cache_dtype or c.s.kv_cache_dtype),
        "offloaded": lambda c: c.s.draft_offload,
        "separate_model": lambda c: c.s.speculative_method == "draft_model" and c.draft is not None,
        "tensor_parallel_set": lambda c: (
            c.dep.speculative.tensor_parallel is not None and _uses_draft_tp(c)
        ),
        "max_model_len": lambda c: tokens_quantity(c.draft_context() or c.s.max_model_len),
        "host_weights": lambda c: c.budget.draft_host_weights or bytes_quantity(0),
        "in_fraction": lambda c: c.budget.draft_weights_in_fraction,
        "max_length_sglang": lambda c: tokens_quantity(
            (getattr(c.draft, "max_length_sglang", None) or 0) if c.draft else 0
        ),
    },
    "speculative": {
        "method": lambda c: c.s.speculative_method,
        "num_speculative_tokens": lambda c: c.s.num_speculative_tokens,
        "n_predict": _Facts.n_predict,
        "tokens_supported": _Facts.tokens_supported,
        "verify_tokens": lambda c: tokens_quantity(c.budget.verify_tokens),
        "heterogeneous_vocab": lambda c: bool(c.dep.speculative.heterogeneous_vocab),
    },
    "parallel": {
        "tensor": lambda c: c.s.tensor_parallel,
        "pipeline": lambda c: c.s.pipeline_parallel,
        "data": lambda c: c.dep.parallel.data or 1,
        "expert": lambda c: bool(c.dep.parallel.expert),
        "dp_attention": lambda c: bool(c.dep.parallel.dp_attention),
        "next_tensor": lambda c: c.next_tensor(c.s.tensor_parallel),
        "block_tensor": lambda c: _block_tensor(c.target, c.s.tensor_parallel, c.experts_split),
        "tensor_to_fit": _Facts.tensor_to_fit,
    },
    "serving": {
        "max_model_len": lambda c: c.budget.max_model_len,
        "max_num_seqs": lambda c: c.s.max_num_seqs,
        "max_num_batched_tokens": lambda c: c.s.max_num_batched_tokens,
        "block_size": lambda c: c.s.block_size,
        "kv_cache_dtype": lambda c: c.s.kv_cache_dtype,
        "memory_fraction": lambda c: c.s.memory_fraction,
        "engine": lambda c: c.s.engine,
        "legacy_engine": lambda c: c.s.legacy_engine,
        "enforce_eager": lambda c: c.s.enforce_eager,
        # full CUDA graphs are captured (vLLM's default modes FULL_AND_PIECEWISE and
        # FULL_DECODE_ONLY); not with PIECEWISE (-O1) or none at all
        "full_cuda_graphs": lambda c: (
            not c.s.enforce_eager and (c.dep.serving.cudagraph_mode or "FULL").startswith("FULL")
        ),
        "max_model_len_set": lambda c: c.dep.serving.max_model_len is not None,
        "max_model_len_auto": lambda c: c.s.max_model_len_auto,
        "extensible_kv_cache": lambda c: c.s.extensible_kv_cache,
        "release_named": lambda c: c.s.engine_version is not None,
        "kv_cache_memory_bytes": lambda c: bytes_quantity(c.s.kv_cache_memory_bytes or 0),
        "max_num_seqs_set": lambda c: c.dep.serving.max_num_seqs is not None,
        "gpu_memory_utilization_set": lambda c: c.dep.serving.gpu_memory_utilization is not None,
        "max_num_batched_tokens_set": lambda c: c.dep.serving.max_num_batched_tokens is not None,
        "chunked_prefill": lambda c: _switch(c.dep.serving.chunked_prefill),
        "allow_long_max_model_len": lambda c: bool(c.dep.serving.allow_long_max_model_len),
        "model_overrides": lambda c: bool(c.dep.serving.model_overrides),
        "max_input_tokens_set": lambda c: c.dep.serving.max_input_tokens is not None,
        "max_model_len_suffixed": lambda c: "max_model_len" in (c.dep.serving.human_readable or ()),
        "max_num_batched_tokens_suffixed": lambda c: (
            "max_num_batched_tokens" in (c.dep.serving.human_readable or ())
        ),
        "block_size_set": lambda c: c.dep.serving.block_size is not None,
        "max_input_tokens": lambda c: tokens_quantity(c.dep.serving.max_input_tokens or 0),
        "kv_cache_max_tokens": lambda c: tokens_quantity(c.dep.serving.kv_cache_max_tokens or 0),
    },
    "weights": {
        "total": lambda c: c.budget.weights + c.budget.draft_weights,
        "in_fraction": lambda c: c.budget.weights_in_fraction,
    },
    "kv": {
        "bytes": lambda c: c.budget.kv_cache,
        "bytes_per_token": lambda c: c.budget.kv_bytes_per_token,
        "tokens": lambda c: c.budget.kv_tokens,
        "max_model_len_fit": lambda c: c.budget.kv_tokens,
        "fp8": lambda c: _eight_bits_or_fewer(c.s.kv_cache_dtype),
        "shortfall": lambda c: max(-c.budget.kv_cache, bytes_quantity(0)),
        "trtllm_state_cache": lambda c: c.budget.trtllm_state_cache,
        "trtllm_state_slots_half_fit": lambda c: c.budget.trtllm_state_slots_half_fit,
        "max_concurrency": lambda c: c.budget.max_concurrency,
        "tokens_low": lambda c: c.budget.kv_band_tokens(False),
        "tokens_high": lambda c: c.budget.kv_band_tokens(True),
        # vLLM's hybrid pool: blocks, one per running sequence's recurrent state
        "state_blocks": lambda c: c.budget.state_blocks_if(c.budget.kv_cache),
        "state_blocks_low": lambda c: c.budget.kv_band_blocks(False),
        "state_blocks_high": lambda c: c.budget.kv_band_blocks(True),
        "tokens_without_draft": _Facts.tokens_without_draft,
        "tokens_displaced_by_draft": _Facts.displaced_tokens,
        "tokens_displaced_by_state_slots": _Facts.state_slot_tokens,
        "sequences_displaced_by_draft": lambda c: c.whole_sequences(c.displaced_tokens()),
    },
    # a declared workload's (_SPACES builds an undeclared one: `declared` alone)
    "workload": {
        "declared": lambda c: True,
        "concurrency": lambda c: c.dep.workload.concurrency,
        "context_tokens": lambda c: tokens_quantity(c.dep.workload.context_tokens),
        "tokens_needed": lambda c: c.budget.workload_tokens,
        "concurrency_fit": lambda c: c.workload_fits()[1],
        "context_fit": lambda c: c.workload_fits()[2],
        "concurrency_fit_without_draft": _fit_without_draft,
    },
}


def _space(table: dict[str, Callable[[_Facts], Any]]) -> Callable[[_Facts], Lazy]:
    return lambda facts: Lazy.over(facts, table)


def _overhead_space(facts: _Facts) -> Lazy:
    budget = facts.budget
    return Lazy.of(
        {
            "total": budget.overhead_total,
            **budget.overhead,
            "warmup_attention": budget.warmup_attention,
        }
    )


def _workload_space(facts: _Facts) -> Lazy:
    if facts.dep.workload is None:
        return Lazy.of({"declared": False})
    return Lazy.over(facts, _NAMESPACES["workload"])


# Each namespace built from a budget's _Facts when a rule first reads one of its names: one
# table for every budget of a run (a rule scope's builders, a what-if's namespaces).
_SPACES: dict[str, Callable[[_Facts], Lazy]] = {
    space: _space(table) for space, table in _NAMESPACES.items()
}
_SPACES["workload"] = _workload_space
_SPACES["overhead"] = _overhead_space
# "space.name" -> the function its namespace works that name out with, for the namespaces that
# are their table (not workload, which may be undeclared, nor overhead): what a rule scope
# reads kv.tokens by without building the kv namespace (Scope.over's ``flat``)
_FLAT: dict[str, tuple[str, Callable[[_Facts], Any]]] = {
    f"{space}.{name}": (space, build)
    for space, table in _NAMESPACES.items()
    if space not in ("workload", "overhead")
    for name, build in table.items()
}
# what exprgen may read from a rule scope in one subscript (see exprgen.generated)
_FLAT_KEYS = frozenset(_FLAT)
# "space.name" of a namespace that is not its table, worked out without building it (the value
# its namespace gives): what a scope is filled with where the rules read it whatever the values
# (_prefill_for). workload.declared is the first read of HBM103's and HBM209's `when`: reading it
# on demand cost two misses and, for an undeclared workload (most), a namespace of its own.
_ALONE: dict[str, Callable[[_Facts], Any]] = {
    "workload.declared": lambda c: c.dep.workload is not None,
}


def _eight_bits_or_fewer(kv_cache_dtype: str) -> bool:
    """An FP8 or smaller KV cache (FP4, TurboQuant, ...): advice to store it in FP8 would not
    shrink it."""
    return catalog.kv_dtype_bytes(kv_cache_dtype) < 2


def _written_draft(dep: Any) -> str:
    """The drafter's name as the manifest writes it, or "" where it names none (an MTP head)."""
    model = getattr(getattr(dep, "speculative", None), "model", None)
    name = getattr(model, "name", None)
    return name if isinstance(name, str) else ""


def engine_applies(engines: dict[str, str], settings: Any) -> bool:
    """Whether a rule written for ``engines`` (engine -> release range) holds for the
    deployment's engine and release. A manifest that names no release runs the newest."""
    spec = engines.get(settings.engine)
    if spec is None:
        return False
    return _release_in(spec, settings.engine_version)


# (rule list, engine, release) -> the rules of the list written for them; the list is held, so
# its id is not reused while the entry lives
_RULES_FOR: dict[tuple[int, str, str | None], tuple[list[Rule], list[Rule]]] = {}


def rules_for(rules: list[Rule], settings: Any) -> list[Rule]:
    """The rules of ``rules`` written for the deployment's engine and release, in order (a
    rule for another engine holds by definition), worked out once per engine and release of
    a run instead of once per rule and deployment."""
    key = (id(rules), settings.engine, settings.engine_version)
    known = _RULES_FOR.get(key)
    if known is not None and known[0] is rules:
        return known[1]
    applies = [r for r in rules if not r.engines or engine_applies(r.engines, settings)]
    if len(_RULES_FOR) >= 256:  # a run holds a few engines and releases
        _RULES_FOR.clear()
    _RULES_FOR[key] = (rules, applies)
    return applies


@lru_cache(maxsize=1024)  # a few ranges and releases, asked for by every rule and deployment
def _release_in(spec: str, engine_version: str | None) -> bool:
    if spec.strip() == "all":
        return True
    have = release(engine_version)
    for part in spec.split(","):
        op, number = part.strip()[:2].strip(), part.strip()[2:].strip()
        if op.startswith("<") and op != "<=":
            op, number = "<", part.strip()[1:].strip()
        want = release(number)
        if want is None:
            continue
        if op == ">=" and have is not None and have < want:
            return False
        if op == "<" and (have is None or have >= want):
            return False  # the newest release is not below any bound
    return True


def _switch(value: bool | None) -> str:
    """An engine switch as the manifest sets it: "on", "off", or "default" (not written)."""
    return "default" if value is None else "on" if value else "off"


def _block_tensor(target: Any, current: int, experts_split: bool) -> int:
    """The largest TP size below ``current`` that splits an FP8 block-quantized checkpoint
    into whole blocks and divides its heads (1 when none does)."""
    size = current - 1
    while size > 1:
        heads = target.num_attention_heads % size == 0
        if heads and not block_misfit(target, size, experts_split):
            return size
        size -= 1
    return 1


def _next_tensor_parallel(attention_heads: int, current: int, limit: int = 8) -> int | None:
    """The next TP size the engine accepts (it must divide the attention heads), within a node."""
    size = current + 1
    while size <= limit:
        if attention_heads % size == 0 and size & (size - 1) == 0:
            return size
        size += 1
    return None


def rule_functions(budget: Budget) -> dict[str, Any]:
    cache: dict[tuple, Any] = {}

    def whatif(**changes: Any) -> Lazy:
        """The budget with settings changed: whatif(speculative_method="ngram").kv.tokens"""
        key = tuple(sorted(changes.items()))
        if key not in cache:
            cache[key] = Lazy.over(_Facts(budget.whatif(**changes)), _SPACES)
        return cache[key]

    def tradeoff(**params: Any) -> Lazy:
        """The speculative alternatives table (hbmlint/speculative.py) with these rule
        parameters (acceptance rates); returns best, current, gain and summary."""
        from . import speculative

        key = _table_key(params)
        if key not in cache:
            # the current setting's row first; the alternatives only when a rule asks for
            # best, gain, changes or summary (most deployments' rules stop at the current one)
            head = speculative.compare(budget, params, only_current=True)
            whole: list[Any] = []

            def table() -> Any:
                if not whole:
                    whole.append(speculative.compare(budget, params, head=head))
                return whole[0]

            def gain() -> float:
                found = table().gain
                return found if found is not None else 0.0

            def changes() -> bool:
                best = table().best
                return best is not None and best.key != "current"

            cache[key] = Lazy.of(
                {
                    "current": _alternative_names(head.current),
                    "current_starts": head.current.starts,
                    "context": Q(head.context, "token"),
                    "wanted": head.wanted,
                },
                {
                    # no best (nothing starts, or no speed estimate): nothing is advised
                    "best": lambda: _alternative_names(table().best or table().current),
                    "gain": gain,
                    "changes": changes,
                    "summary": lambda: speculative.summary(table()),
                },
            )
        return cache[key]

    def engine_at_least(version: str) -> bool:
        """Whether the deployment's engine release is ``version`` or newer; a manifest that
        names no release runs the newest."""
        have = release(budget.settings.engine_version)
        want = release(version)
        return have is None or want is None or have >= want

    return {"whatif": whatif, "tradeoff": tradeoff, "engine_at_least": engine_at_least}


@lru_cache(maxsize=1)
def _table_parameters() -> tuple[str, ...]:
    from . import speculative  # loaded when a rule first asks for the table

    return (*speculative.RATE_PARAMS, *speculative.MODEL_PARAMS)


_ABSENT = object()
# _table_key's answers by the identities of the parameter values given, with those values
_TABLE_KEYS: dict[tuple[int, ...], tuple[tuple[Any, ...], tuple]] = {}


def _table_key(params: dict[str, Any]) -> tuple:
    """The speculative table's cache key: the text of the parameters it reads, so that HBM208
    and HBM209 (whose own min_speedup the table never reads) share one table. Worked out once
    for each set of parameter objects, found by their identities: a rule passes the same
    objects (its own and the configuration's) on every call, and the entry holds them, so an
    identity is not reused while its entry lasts."""
    names = _table_parameters()
    values = tuple(params.get(name, _ABSENT) for name in names)
    identities = tuple(map(id, values))
    found = _TABLE_KEYS.get(identities)
    if found is None:
        given = [(name, str(v)) for name, v in zip(names, values, strict=True) if v is not _ABSENT]
        if len(_TABLE_KEYS) >= 256:  # a run's rules and configurations give a few
            _TABLE_KEYS.clear()
        found = _TABLE_KEYS[identities] = (values, ("tradeoff", *sorted(given)))
    return found[1]


def _alternative_names(row: Any) -> Lazy:
    return Lazy.of(
        {
            "key": row.key,
            "label": row.label,
            "change": row.change,
            "kv_tokens": Q(row.kv_tokens, "token"),
            "served": row.served,
            "tokens_per_step": row.tokens_per_step,
            "speedup": row.speedup or 0.0,
            "throughput": row.throughput or 0.0,
            "bound": row.bound,
            "starts": row.starts,
            "estimated": row.speedup is not None,
            "note": row.note,
            "shortfall": row.shortfall,
        }
    )


def _scope(
    budget: Budget, prefill: _Prefill | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The names and functions rules see, built once per budget and shared by every rule (so
    is the whatif cache): most of a lint's time would otherwise go to rebuilding them.
    ``prefill``: names the rules about to be evaluated read whatever the values (see
    _first_reads), worked out at once into the new scope (with the functions of the flat
    names the prefill was made from; none where the scope reads through other ones)."""
    scope = budget.__dict__.get("_rule_scope")
    if scope is None:
        names = Scope.over(_Facts(budget), _SPACES).with_flat(_FLAT)
        if prefill is not None and prefill[0] is _FLAT:
            for builds in prefill[1:3]:  # the flat names', then _ALONE's
                names.fill(builds)
        scope = (names, with_base_functions(rule_functions(budget)))
        budget._rule_scope = scope  # type: ignore[attr-defined]
    return scope


def forget_scope(budget: Budget) -> None:
    """Drop the cached scope (it holds closures), e.g. before a budget crosses processes."""
    budget.__dict__.pop("_rule_scope", None)
    budget.__dict__.pop("_whatifs", None)


def evaluate_rule(
    rule: Rule,
    budget: Budget,
    params: dict[str, Any] | None = None,
    tradeoff_params: dict[str, Any] | None = None,
) -> Diagnostic | None:
    """The rule's finding for this budget, or None when it holds. Raises ExpressionError.
    ``tradeoff_params`` are what ``tradeoff()`` starts from (the speculative-tradeoff rule's
    parameters with the configuration's overrides, so every rule that calls it uses the same
    acceptance rates); the calling rule's own parameters go on top."""
    if rule.engines and not engine_applies(rule.engines, budget.settings):
        return None
    program = _program_for(rule, params)
    step = (rule, program, _tradeoff_base(program, tradeoff_params))
    for _, outcome in _outcomes([step], budget):
        if isinstance(outcome, ExpressionError):
            raise outcome
        return outcome
    return None


def evaluate_rules(
    rules: list[Rule],
    budget: Budget,
    rule_params: dict[str, dict[str, Any]],
    tradeoff_params: dict[str, Any] | None = None,
) -> list[tuple[Rule, Diagnostic | ExpressionError]]:
    """What evaluate_rule says of this budget for each rule of ``rules`` written for its
    engine and release, in the rules' order, leaving out the rules that hold (almost all):
    (rule, its finding), or (rule, the ExpressionError evaluate_rule would raise).
    ``rule_params``: the configuration's parameters by rule id. What no deployment changes
    (which rules apply, each rule's program, what its tradeoff() starts from) is worked out
    once per run, not once per rule and deployment."""
    steps, prefill = _steps_for(rules, budget.settings, rule_params, tradeoff_params)
    return _outcomes(steps, budget, prefill)


def _outcomes(
    steps: _Steps, budget: Budget, prefill: _Prefill | None = None
) -> list[tuple[Rule, Diagnostic | ExpressionError]]:
    """Each step's rule against the budget: the rules that do not hold, in order, with their
    finding or the ExpressionError that evaluating them raised (an error of any other kind
    while working out ``when`` or ``check`` is wrapped as evaluate() wraps it). ``prefill``:
    the names the steps read whatever the values, for a scope made now (_scope). The scope is
    always one made by _scope (what a program's generated functions are written for). A
    prefill with gates (_with_gates) leaves out the steps they say hold."""
    budget_scope, functions = _scope(budget, prefill)
    if prefill is not None and len(prefill) > 3 and prefill[3]:
        steps = _past_gates(steps, prefill[3], budget_scope)
    outcomes: list[tuple[Rule, Diagnostic | ExpressionError]] = []
    for rule, program, tradeoff_base in steps:
        seen = functions
        if tradeoff_base is not None and program.when_calls_tradeoff:
            seen = _with_tradeoff(functions, tradeoff_base)
        own = program.own
        expression = rule.when
        try:
            if program.when is not None and not program.when(budget_scope, seen, own):
                continue
            if tradeoff_base is not None and seen is functions:
                # its tradeoff() made for the rule only once past a `when` that does not call
                # it (that `when` reads the same with the budget's functions as they are)
                seen = _with_tradeoff(functions, tradeoff_base)
            expression = rule.check
            if program.check(budget_scope, seen, own):
                continue
        except ExpressionError as exc:
            outcomes.append((rule, exc))
            continue
        except Exception as exc:  # what evaluate() would raise
            outcomes.append((rule, evaluation_error(expression, exc)))  # type: ignore[arg-type]
            continue
        try:
            outcomes.append((rule, _finding(rule, program, budget, budget_scope, seen)))
        except ExpressionError as exc:
            outcomes.append((rule, exc))
    return outcomes


# (rule list, engine, release, configured params, tradeoff params) -> what evaluate_rules runs
# for them: each (rule, its program, the parameters its tradeoff() starts from or None), and
# the names those steps read whatever the values (_Prefill). The entry holds the objects its
# key names by identity, so no identity is reused while it lives.
_Steps = list[tuple[Rule, "_Program", dict[str, Any] | None]]
# the flat names' table the prefill was made from, each name with its function there, each name
# of _ALONE with its function, and the steps' gates (_Gates)
_Prefill = tuple[
    Any,
    tuple[tuple[str, Callable[[Any], Any]], ...],
    tuple[tuple[str, Callable[[Any], Any]], ...],
    "_Gates",
]
# The prefilled names that steps' `when`s test first (``draft.present and ...``), what picks each
# step's gate's truth from theirs (True, after them, for a step without one), and the steps past
# the gates for each set of their truths: _past_gates.
_Gates = tuple[tuple[str, ...], Callable[[tuple], tuple], dict[tuple, "_Steps"]]
# and how many more deployments have been given the entry
_STEPS: dict[tuple, tuple[tuple, _Steps, _Prefill, list[int]]] = {}
# Deployments given one entry of _STEPS before its rules' programs start counting their
# evaluations (_Program.generate), and evaluations of an expression before it is compiled
# (exprgen): a lint of a few files never compiles (nor imports exprgen).
GENERATE_AFTER = 16


def _steps_for(
    rules: list[Rule],
    settings: Any,
    rule_params: dict[str, dict[str, Any]],
    tradeoff_params: dict[str, Any] | None,
) -> tuple[_Steps, _Prefill]:
    key = (
        id(rules),
        settings.engine,
        settings.engine_version,
        id(rule_params),
        id(tradeoff_params),
    )
    known = _STEPS.get(key)
    if (
        known is not None
        and known[0][0] is rules
        and known[0][1] is rule_params
        and known[0][2] is tradeoff_params
    ):
        uses = known[3]
        uses[0] += 1
        if uses[0] == GENERATE_AFTER:
            for _, program, _ in known[1]:
                program.generate()
        elif uses[0] == 2 * GENERATE_AFTER:
            # every `when` has been called on every deployment since, and so switched to its
            # generated function: from now on a rule's gate may leave its `when` uncalled
            known = _STEPS[key] = (known[0], known[1], _with_gates(known[1], known[2]), uses)
        return known[1], known[2]
    held = (rules, rule_params, tradeoff_params)
    steps: _Steps = []
    for rule in rules_for(rules, settings):
        program = _program_for(rule, rule_params.get(rule.id))
        steps.append((rule, program, _tradeoff_base(program, tradeoff_params)))
    prefill = _prefill_for(steps)
    if len(_STEPS) >= 256:  # a run holds a few engines and releases
        _STEPS.clear()
    _STEPS[key] = (held, steps, prefill, [0])
    return steps, prefill


def _prefill_for(steps: _Steps) -> _Prefill:
    """The flat names (weights.total) that evaluating ``steps`` reads on every deployment,
    whatever the values: those the first expression of each rule (its ``when``, or its
    ``check`` where it has none) reads before anything can cut it short, in the order first
    read. A name left out is read as before, on demand; one put in is one that would be worked
    out anyway (unless an earlier name of the same expression raised). Then those of them
    _ALONE works out (workload.declared)."""
    flat = _FLAT
    if not flat:
        return flat, (), ()
    found: dict[str, None] = {}
    for rule, program, _ in steps:
        text = rule.when if rule.when else rule.check
        built = _builtin_program(text, program.names)
        if built is not None:  # a built-in rule's, worked out when exprgen_builtin was written
            found.update(dict.fromkeys(built[2]))
            continue
        try:
            tree = parse(text)
        except ExpressionError:
            continue
        found.update(dict.fromkeys(_first_reads(tree, program.names)))
    alone = tuple((key, _ALONE[key]) for key in found if key in _ALONE)
    return flat, tuple((key, flat[key][1]) for key in found if key in flat), alone


def _with_gates(steps: _Steps, prefill: _Prefill) -> _Prefill:
    """``prefill`` with the steps' gates (_past_gates): for each step whose `when` tests a
    prefilled name first (_gate), that name."""
    prefilled = {key for builds in prefill[1:3] for key, _ in builds}
    tested: list[str | None] = []
    for rule, program, _ in steps:
        tested.append(None)
        built = _builtin_program(rule.when, program.names) if rule.when else None
        if built is not None:  # (a function was written for it: its closure is compiled)
            tested[-1] = built[3]
            continue
        try:
            # a compiled `when` only: simpleeval's reads every name before it tests any
            if rule.when and _compiled(rule.when, program.names) is not None:
                tested[-1] = _gate(parse(rule.when), program.names)
        except ExpressionError:
            pass
    gates = tuple(dict.fromkeys(key for key in tested if key in prefilled))
    if not gates or len(steps) < 2:
        return (*prefill[:3], ())
    at = [gates.index(key) if key in gates else len(gates) for key in tested]
    return (*prefill[:3], (gates, operator.itemgetter(*at), {}))


def _gate(tree: ast.AST, param_names: frozenset[str]) -> str | None:
    """The "space.name" a `when` is false with whenever its value is false: the `when` is that
    read, or an ``and`` whose first operand it is (which it then answers as it is)."""
    if type(tree) is ast.BoolOp and type(tree.op) is ast.And:  # type: ignore[attr-defined]
        tree = tree.values[0]  # type: ignore[attr-defined]
    if type(tree) is ast.Attribute:
        inner = tree.value  # type: ignore[attr-defined]
        if type(inner) is ast.Name and inner.id not in param_names:
            return f"{inner.id}.{tree.attr}"  # type: ignore[attr-defined]
    return None


def _past_gates(steps: _Steps, gates: _Gates, names: Any) -> _Steps:
    """``steps`` less those whose `when` is false by its gate's value (_with_gates, made for
    these steps): the gates read from the scope in one pass (names prefilled when it was made),
    not by calling each `when` to read its own (of a vLLM deployment's 35 rules, 11 or so are
    skipped so). A rule skipped holds, as its `when` would have said; the others keep their
    order. Where a gate's read or truth raises, every step is evaluated, and raises, as before."""
    keys, pick, past = gates
    try:
        truths = tuple(map(operator.truth, map(names.__getitem__, keys)))
    except Exception:  # noqa: BLE001 - raised again where the rule's `when` reads it
        return steps
    found = past.get(truths)
    if found is None:  # the same steps for every deployment whose gates say the same
        if len(past) >= 256:  # a few sets of truths a run
            past.clear()
        found = past[truths] = list(compress(steps, pick((*truths, True))))
    return found


def _first_reads(node: ast.AST, param_names: frozenset[str]) -> list[str]:
    """The "space.name" reads of an expression that happen whenever it is evaluated (and
    nothing it reads raises first): both sides of an operator or a first comparison, the first
    operand of ``and``/``or``, the test of an if-else; nothing under a call."""
    kind = type(node)
    if kind is ast.Attribute:
        inner = node.value  # type: ignore[attr-defined]
        if type(inner) is ast.Name and inner.id not in param_names:
            return [f"{inner.id}.{node.attr}"]  # type: ignore[attr-defined]
        return []
    if kind is ast.BoolOp:
        return _first_reads(node.values[0], param_names)  # type: ignore[attr-defined]
    if kind is ast.UnaryOp:
        return _first_reads(node.operand, param_names)  # type: ignore[attr-defined]
    if kind is ast.BinOp:
        left, right = node.left, node.right  # type: ignore[attr-defined]
        return _first_reads(left, param_names) + _first_reads(right, param_names)
    if kind is ast.Compare:
        left, right = node.left, node.comparators[0]  # type: ignore[attr-defined]
        return _first_reads(left, param_names) + _first_reads(right, param_names)
    if kind is ast.IfExp:
        return _first_reads(node.test, param_names)  # type: ignore[attr-defined]
    return []


@lru_cache(maxsize=1)
def _builtin_programs() -> tuple[dict[tuple[str, frozenset[str]], tuple], dict[str, Any]]:
    """exprgen_builtin's PROGRAMS and FACTORIES, imported when first needed; nothing where it
    was written for other flat names than these, or is not there."""
    try:
        from . import exprgen_builtin
    except ImportError:
        return {}, {}
    if exprgen_builtin.FLAT != _FLAT_KEYS:
        return {}, {}
    return exprgen_builtin.PROGRAMS, exprgen_builtin.FACTORIES


def _builtin_program(text: str, param_names: frozenset[str]) -> tuple | None:
    """What exprgen_builtin holds of a built-in rule's `when` or `check` with these parameters'
    names, written when the expression was parsed, checked and generated at build time (a test
    writes the module again and compares): its function's source and its own globals, its
    first reads (_first_reads) and its gate (_gate). None for any other expression."""
    return _builtin_programs()[0].get((text, param_names))


def _builtin_function(text: str, param_names: frozenset[str]) -> Evaluator | None:
    """The generated function exprgen_builtin holds for ``text`` (see _builtin_program), made
    as exprgen.generated makes it, without parsing the text; None where it holds none."""
    built = _builtin_program(text, param_names)
    factory = None if built is None else _builtin_programs()[1].get(built[0])
    if factory is None:
        return None
    made: Evaluator = factory(
        _Quantity=Quantity,
        _attribute=_attribute,
        _expression=text,
        _function=called_function,
        **built[1],
    )
    return made


@lru_cache(maxsize=1)
def _finding_functions() -> dict[tuple[str, frozenset[str]], Evaluator]:
    """exprgen_findings' FUNCTIONS, imported with a run's first finding of a built-in rule;
    nothing where it was written for other flat names than these, or is not there."""
    try:
        from . import exprgen_findings
    except ImportError:
        return {}
    if exprgen_findings.FLAT != _FLAT_KEYS:
        return {}
    return exprgen_findings.FUNCTIONS


def _guarded(function: Evaluator, expression: str) -> Evaluator:
    """``function`` (a generated function of ``expression``) raising what the expression's
    evaluator raises: an ExpressionError as it is, any other error wrapped (evaluation_error).
    Called only as _finding calls it: with a rule scope and its functions, already merged."""

    def guarded(names: Any, functions: Any, params: Any) -> Any:
        try:
            return function(names, functions, params)
        except ExpressionError:
            raise
        except Exception as exc:  # as evaluator's: unit and arithmetic errors, memory too
            raise evaluation_error(expression, exc) from None

    return guarded


def _program_for(rule: Rule, params: dict[str, Any] | None) -> _Program:
    """The rule's program for the configuration's ``params`` (kept on the rule for the last
    ``params`` given; a plain attribute read, not a __dict__ lookup: every rule of every
    deployment makes it)."""
    try:
        program = rule._program
    except AttributeError:
        program = None
    if program is None or program.params is not params:
        program = rule._program = _Program(rule, params)
    return program


def _tradeoff_base(program: _Program, tradeoff_params: dict[str, Any] | None) -> dict | None:
    """What a rule's tradeoff() calls start from (the tradeoff rule's parameters, then the
    calling rule's own on top); None for a rule that does not call it."""
    if not program.calls_tradeoff:
        return None
    return {**(tradeoff_params or {}), **program.own}


def _with_tradeoff(functions: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """The budget's functions with tradeoff() starting from ``base`` (what tradeoff()
    starts from, and the calling rule's parameters, config overrides included)."""
    if "tradeoff" not in functions:
        return functions
    table = functions["tradeoff"]
    # tradeoff() without arguments (what rules write: a check calls it up to three times)
    # answers the same table every time: asked for once
    plain: list[Any] = []

    def tradeoff(**kw: Any) -> Any:
        if kw:
            return table(**{**base, **kw})
        if not plain:
            plain.append(table(**base))
        return plain[0]

    return {**functions, "tradeoff": tradeoff}


def _finding(
    rule: Rule,
    program: _Program,
    budget: Budget,
    budget_scope: dict[str, Any],
    functions: dict[str, Any],
) -> Diagnostic:
    """The finding of a rule that does not hold (rare): its wording and fixes see the
    parameters over the budget's names."""
    own = program.own
    # each part compiled when first needed: one wording, and the fixes whose `when` holds
    when, plan = program.finding_evaluator, program.finding_plan
    unit = budget.byte_unit
    # the wordings' conditions in order, up to the first that holds (or the last wording)
    wordings = program.rule.messages
    chosen = wordings[-1]
    for wording in wordings:
        if not wording.when or when(wording.when)(budget_scope, functions, own):
            chosen = wording
            break
    message = render_plan(plan(chosen.text), budget_scope, functions, own, unit)
    offered = [
        DiagnosticFix(
            render_plan(plan(fix.text), budget_scope, functions, own, unit),
            applicability=fix.applicability,
            changes={
                path: _setting(when(new)(budget_scope, functions, own))
                for path, new in fix.set.items()
            },
        )
        for fix in program.rule.fixes
        if not fix.when or when(fix.when)(budget_scope, functions, own)
    ]
    dep = budget.deployment
    return Diagnostic(
        code=rule.id,
        name=rule.name,
        severity=rule.severity,
        message=message,
        file=dep.file,
        span=dep.location(rule.at),
        fixes=offered,
        deployment=dep.name,
    )


class _Program:
    """What evaluating a rule needs that no deployment changes, worked out once: its
    parameters (the configuration's ``params`` over its own), its ``when`` and ``check``
    compiled for them (merged_evaluator: the scope's functions are merged), and whether it
    calls tradeoff. Kept on the rule for the last ``params`` given, compared by identity: a run
    passes each rule the same dictionary for every deployment (and this holds it, so its
    identity is not reused)."""

    __slots__ = ("rule", "params", "own", "names", "when", "check", "calls_tradeoff")
    __slots__ += ("when_calls_tradeoff", "_evaluators", "_plans", "_slow")

    def __init__(self, rule: Rule, params: dict[str, Any] | None) -> None:
        self.rule = rule
        self.params = params
        self.own = {**rule.params, **(params or {})}
        self.names = frozenset(self.own)
        # the slots whose evaluator is a closure, to be generated (generate)
        self._slow: tuple[str, ...] = ()
        self.when = self._evaluator("when", rule.when) if rule.when else None
        self.check = self._evaluator("check", rule.check)
        self.calls_tradeoff = rule.calls_tradeoff
        # whether the `when` may call tradeoff() (its text names it: as calls_tradeoff reads)
        self.when_calls_tradeoff = bool(rule.when) and "tradeoff" in rule.when
        # what _finding has compiled of the rule's wordings and fixes, by text
        self._evaluators: dict[str, Evaluator] = {}
        self._plans: dict[str, Any] = {}

    def _evaluator(self, slot: str, expression: str) -> Evaluator:
        """A built-in rule's generated function where exprgen_builtin holds it (no parsing:
        counted as a closure would be, then in the slot itself); else the closure."""
        fast = _builtin_function(expression, self.names)
        if fast is not None:
            return self._counting(slot, expression, fast, fast)
        self._slow += (slot,)
        return merged_evaluator(expression, self.names)

    # What _finding evaluates, each compiled when a finding first needs it (most rules hold on
    # every deployment of a run, and a finding reads one wording and the fixes whose ``when``
    # holds: the other templates would be compiled for nothing). Evaluators with the
    # parameters' names, called with the parameters as ``params``: no scope built to hold them
    # over the budget's names. Neither compiling step raises: an expression's or a template's
    # problem is raised where it is evaluated or rendered, as before.

    def generate(self) -> None:
        """Evaluate the ``when`` and the ``check`` with their generated functions (exprgen),
        where they have one, once each has been evaluated GENERATE_AFTER more times: for a
        program evaluated on many deployments (compiling one costs what a few hundred
        evaluations with closures save; many a ``check`` is never reached). Once: a program
        may be in the steps of several engines or releases."""
        slots, self._slow = self._slow, ()
        for slot in slots:
            expression = self.rule.when if slot == "when" else self.rule.check
            setattr(self, slot, self._counting(slot, expression, getattr(self, slot)))

    def _counting(
        self, slot: str, expression: str, slow: Evaluator, fast: Evaluator | None = None
    ) -> Evaluator:
        """``slow``, which on its GENERATE_AFTER-th call from now puts the expression's
        generated function in ``slot`` (``fast`` where given; or ``slow`` itself, where there
        is none)."""
        left = [GENERATE_AFTER]

        def counting(names: Any, functions: Any, params: Any) -> Any:
            left[0] -= 1
            if not left[0]:
                made = fast
                if made is None:
                    from .exprgen import generated  # here: a lint of a few files never needs it

                    made = generated(expression, self.names, _FLAT_KEYS)
                setattr(self, slot, made or slow)
            return slow(names, functions, params)

        return counting

    def finding_evaluator(self, text: str) -> Evaluator:
        """A wording's or a fix's ``when``, or a fix's new value, compiled once."""
        made = self._evaluators.get(text)
        if made is None:
            # a built-in rule's: its generated function (exprgen_findings), no parsing
            held = held_parameters(text, self.names)
            fast = _finding_functions().get((text, held))
            made = parameter_evaluator(text, self.names) if fast is None else _guarded(fast, text)
            self._evaluators[text] = made
        return made

    def finding_plan(self, template: str) -> Any:
        """A wording's or a fix's text as a template plan, made once."""
        made = self._plans.get(template)
        if made is None:
            pieces, tail = template_plan(template, self.names)
            # each field's evaluator as finding_evaluator gives it: for a built-in rule's,
            # its generated function (what template_fields reads of the field, as the plan did)
            made = self._plans[template] = (
                tuple(
                    (
                        text,
                        field,
                        spec,
                        problem,
                        self.finding_evaluator(template_fields(field)[0][0]),
                    )
                    for text, field, spec, problem, _ in pieces
                ),
                tail,
            )
        return made


def _setting(value: Any) -> Any:
    """A fix's new value as the manifest writes it: a count of tokens or GPUs is a whole
    number, a name a string."""
    magnitude = getattr(value, "magnitude", value)
    if isinstance(magnitude, float) and magnitude.is_integer():
        return int(magnitude)
    return magnitude
