"""Helpers the tests import (tests/ is on sys.path under pytest's default import mode)."""

from __future__ import annotations

import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
SHARED = REPO.parent / "shared"
# every YAML manifest of the fixtures and the examples, in order
MANIFESTS = sorted(
    p
    for folder in (REPO / "tests" / "fixtures", EXAMPLES)
    for p in folder.rglob("*")
    if p.suffix in (".yaml", ".yml")
)

# speculative configurations whose whole HBM208 table the tradeoff tests work out: a 3B draft
# of an 8B target at a long context, n-gram on two GPUs, an offloaded 1B draft on an A100
SPECULATIVE_TABLES = [
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 32768}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-3B-Instruct,
                  num_speculative_tokens: 4}
    workload: {concurrency: 12, context_tokens: 32768}
    """,
    """
    gpu: {type: H100, count: 2}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    parallel: {tensor: 2}
    speculative: {method: ngram, num_speculative_tokens: 3}
    """,
    """
    gpu: {type: A100-80GB}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    speculative: {method: draft_model, model: meta-llama/Llama-3.2-1B-Instruct,
                  num_speculative_tokens: 5, offload: true}
    workload: {concurrency: 4, context_tokens: 8192}
    """,
]


def manifest(spec: str, name: str = "test") -> str:
    """A native manifest around an indented ``spec:`` body."""
    body = textwrap.indent(textwrap.dedent(spec).strip("\n"), "  ")
    header = f"apiVersion: hbmlint/v1\nkind: ServingManifest\nmetadata: {{name: {name}}}\n"
    return f"{header}spec:\n{body}\n"


def budget_of(write, spec: str):
    """The budget of the one deployment of a native manifest around ``spec`` (written with the
    ``write`` fixture), linted without rules."""
    from hbmlint.lint import lint_file

    path = write(manifest(spec))
    result = lint_file(path, path.name, [])
    [item] = result.deployments
    assert item.budget is not None, result.diagnostics
    return item.budget


def tradeoff_params() -> dict:
    """The speculative-tradeoff rule's own parameters (what the CLI passes the table)."""
    from hbmlint.rules import load_rules

    return next(r for r in load_rules()[0] if r.name == "speculative-tradeoff").params


def vllm_compose(
    tmp_path: Path, command: str, version: str, name: str = "compose.yaml", gpus: int = 1
) -> Path:
    """A docker compose file whose one service runs ``command`` (``vllm serve MODEL ...``) in
    vLLM's image of ``version`` on ``gpus`` GPUs: the shape the engine-flag tests lint."""
    path = tmp_path / name
    path.write_text(
        "services:\n"
        "  vllm:\n"
        f"    image: vllm/vllm-openai:{version}\n"
        f"    command: >-\n      {command}\n"
        "    deploy:\n"
        "      resources:\n"
        "        reservations:\n"
        f"          devices: [{{driver: nvidia, count: {gpus}, capabilities: [gpu]}}]\n"
    )
    return path


def flag_tables() -> dict:
    """Each engine's command-line flag table, by the engine's name (trtllm-serve's own)."""
    from hbmlint.engines import sglang, tgi, trtllm, vllm

    return {
        "vllm": vllm.FLAGS,
        "sglang": sglang.FLAGS,
        "tgi": tgi.FLAGS,
        "trtllm": trtllm.FLAGS,
        "trtllm-serve": trtllm.SERVE_FLAGS,
    }


def manifest_findings(rules: list, codes: set[str]) -> list[tuple]:
    """Linting every manifest of MANIFESTS with ``rules`` afresh (the rules' step cache
    emptied): (file name, code, severity, message, fixes as text) of each finding whose code is
    in ``codes``, in order."""
    from hbmlint import lint
    from hbmlint import rules as rules_module

    rules_module._STEPS.clear()
    found = []
    for path in MANIFESTS:
        result = lint.lint_file(path, path.name, rules, lint.LintOptions())
        found += [
            (path.name, d.code, d.severity, d.message, [str(f) for f in d.fixes])
            for d in result.diagnostics
            if d.code in codes
        ]
    return found


def recorded_builds(keep_budgets: bool = False) -> list[tuple]:
    """Every budget that linting the fixtures and examples builds, as (resolved deployment,
    budget): what the tests of the budget's fast paths compare against."""
    from hbmlint import budget as budget_stage
    from hbmlint import lint
    from hbmlint.rules import builtin_rule_files, load_rules

    inputs = [
        *sorted((REPO / "tests" / "fixtures").rglob("*.yaml")),
        *sorted((REPO / "examples").rglob("*.yaml")),
    ]
    found: list[tuple] = []
    build = budget_stage.build

    def recording(resolved, notes=True):
        made = build(resolved, notes)
        found.append((resolved, made))
        return made

    rules, _ = load_rules(builtin_rule_files())
    budget_stage.build = recording
    try:
        for path in inputs:
            lint.lint_file(path, str(path), rules, lint.LintOptions(keep_budgets=keep_budgets))
    finally:
        budget_stage.build = build
    assert len(found) > 100
    return found


def catalog_architectures() -> list:
    """The architecture of every catalog model hbmlint budgets, read from its config."""
    from hbmlint import catalog

    found = []
    for model_id in catalog.model_ids():
        try:
            config = catalog.find_model(model_id)["config"]
            found.append(catalog.architecture_from_config(config, model_id, "catalog"))
        except catalog.ConfigError:  # a model hbmlint does not budget
            continue
    return found


def evaluation_outcome(function, names, functions, params) -> tuple:
    """What an evaluator gives, as comparable data: its value (type and repr) or its error."""
    try:
        value = function(names, functions, params)
    except Exception as exc:  # noqa: BLE001 - errors are compared too
        return ("error", type(exc), str(exc))
    return ("value", type(value), repr(value))


# A clean manifest of each kind a plain lint reads: native, and a Kubernetes Deployment
CLEAN_DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  template:
    metadata:
      annotations: {hbmlint.io/gpu: H100}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
          resources:
            limits: {nvidia.com/gpu: 1}
"""
_IMPORTED_PROBE = """
import sys
from hbmlint.cli import main
try:
    main([*sys.argv[2:]], standalone_mode=False)
except SystemExit:
    pass
print(*(name in sys.modules for name in sys.argv[1].split(",")), file=sys.stderr)
"""


def imported_by_clean_lints(tmp_path: Path, *modules: str) -> list[list[bool]]:
    """Lint a clean native manifest and a clean Kubernetes Deployment, each in a fresh Python
    (run from ``tmp_path``, not a checkout), asserting each reads as clean; for each, whether
    each of ``modules`` was imported by then."""
    import subprocess
    import sys

    native = manifest(
        """
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
        """
    )
    found = []
    for text in (native, CLEAN_DEPLOYMENT):
        path = tmp_path / "m.yaml"
        path.write_text(text)
        done = subprocess.run(
            [sys.executable, "-c", _IMPORTED_PROBE, ",".join(modules), "--jobs", "1", str(path)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
        assert "no findings" in done.stdout, done.stdout + done.stderr
        found.append([word == "True" for word in done.stderr.split()[-len(modules) :]])
    return found


def tool(name: str):
    """A script of tools/ (``write_catalog_data``, say), loaded as a module: what the tests of a
    generated module compare it with."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
