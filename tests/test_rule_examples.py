"""Each rule file's own examples (its ``examples: {fail, pass}``), as ruff's and kube-linter's
per-rule fixtures: every fail example, written as a Kubernetes Deployment running vLLM (or the
SGLang, TGI or trtllm-serve server the example names), is found at the flag it names; every
pass example is not."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from helpers import REPO

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules
from hbmlint.schema import validate
from hbmlint.yamlsrc import load_documents


def _examples() -> list[tuple[str, str, dict]]:
    out = []
    for path in sorted((REPO / "rules").glob("*.yaml")):
        [document], error = load_documents(path.read_text())
        assert error is None
        code = document.data["id"]
        for outcome in ("fail", "pass"):
            for example in (document.data.get("examples") or {}).get(outcome, []):
                out.append((code, outcome, example))
    return out


EXAMPLES = _examples()


# engine -> (command, the flag that names the model (none: the first argument), the image when
# the example names none)
ENGINES = {
    "vllm": ('["vllm", "serve"]', "--model", "vllm/vllm-openai:v0.11.0"),
    "sglang": (
        '["python3", "-m", "sglang.launch_server"]',
        "--model-path",
        "lmsysorg/sglang:v0.5.2",
    ),
    "tgi": (
        '["text-generation-launcher"]',
        "--model-id",
        "ghcr.io/huggingface/text-generation-inference:3.3.4",
    ),
    "trtllm": ('["trtllm-serve", "serve"]', "", "nvcr.io/nvidia/tensorrt-llm/release:1.1.0"),
}


def deployment(example: dict) -> str:
    model = example.get("model", "Qwen/Qwen2.5-7B-Instruct")
    command, model_flag, image = ENGINES[example.get("engine", "vllm")]
    args = [f"{model_flag}={model}" if model_flag else model, *shlex.split(example["args"])]
    env = example.get("env") or {}
    lines = [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata: {name: llm}",
        "spec:",
        "  selector: {matchLabels: {app: llm}}",
        "  template:",
        "    metadata: {labels: {app: llm}}",
        "    spec:",
        "      nodeSelector:",
        f"        cloud.google.com/gke-accelerator: {example.get('accelerator', 'nvidia-l4')}",
        "      containers:",
        "      - name: vllm",
        f"        image: {example.get('image', image)}",
        f"        command: {command}",
        "        args:",
        *(f"        - {json.dumps(arg)}" for arg in args),
    ]
    if env:
        lines.append("        env:")
        lines += [f"        - {{name: {k}, value: {json.dumps(v)}}}" for k, v in env.items()]
    lines.append(f"        resources: {{limits: {{nvidia.com/gpu: {example.get('gpus', 1)}}}}}")
    return "\n".join(lines) + "\n"


def test_every_start_up_rule_has_examples_both_ways():
    codes = {(code, outcome) for code, outcome, _ in EXAMPLES}
    for path in sorted((REPO / "rules").glob("HBM3*.yaml")):
        code = path.name[:6]
        assert (code, "fail") in codes and (code, "pass") in codes, code


def test_rule_files_with_examples_follow_the_schema():
    for path in sorted((REPO / "rules").glob("*.yaml")):
        [document], _ = load_documents(path.read_text())
        assert validate(document, "rule", str(path)) == [], path.name


@pytest.mark.parametrize(
    ("code", "outcome", "example"),
    EXAMPLES,
    ids=[f"{c}-{o}-{i}" for i, (c, o, _) in enumerate(EXAMPLES)],
)
def test_rule_example(tmp_path: Path, code: str, outcome: str, example: dict):
    rules, problems = load_rules()
    assert not problems
    text = deployment(example)
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    result = lint_file(path, path.name, rules)
    assert not [d.message for d in result.diagnostics if f"rule {code}" in d.message]
    hits = [d for d in result.diagnostics if d.code == code]
    if outcome == "pass":
        assert not hits, hits[0].message
        return
    [hit] = hits
    [line] = [i for i, row in enumerate(text.splitlines(), 1) if f'"{example["at"]}' in row]
    assert hit.span.line == line
