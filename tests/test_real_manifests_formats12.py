"""The format readers' gaps of session 11 (formats12), each on a pattern from a public
repository: each fixture under tests/fixtures/real/ names its source in its first lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

SERVED_ALIAS = REAL / "sglang-local-model-served-as-alias.yaml"
FLATTENED = REAL / "compose-vllm-flattened-hf-id-path.yml"

COVERED = {
    SERVED_ALIAS.name,
    FLATTENED.name,
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu))


def errors(result) -> list[str]:
    return [f"{f.code}: {f.message}" for f in result.diagnostics if f.severity is Severity.ERROR]


def by_code(result, code: str) -> list:
    return [f for f in result.diagnostics if f.code == code]


def test_a_served_name_is_named_in_the_warning_but_not_taken_for_the_checkpoint(rules):
    # /model holds an NVFP4 checkpoint served as deepseek-ai/DeepSeek-R1 (an FP8 repository):
    # budgeting the served name would size the wrong weights, so the model stays unknown
    result = lint(SERVED_ALIAS, rules, gpu="H100")
    assert errors(result) == []
    [found] = result.deployments
    assert found.budget is None
    [warning] = by_code(result, "HBM006")
    assert warning.severity is Severity.WARNING
    assert (warning.span.line, warning.span.column) == (28, 13)  # the --model-path line
    assert "served as 'deepseek-ai/DeepSeek-R1'" in warning.message
    assert "does not take for the checkpoint" in warning.message
    # the way to unblock it comes filled in, for the user to confirm
    assert "model-paths: {/model: deepseek-ai/DeepSeek-R1} if it holds that checkpoint" in (
        warning.message
    )


def test_a_served_name_the_directory_agrees_with_names_the_model(rules, tmp_path):
    # 'Llama-3.2-3B-Instruct' alone is ambiguous (meta-llama's and unsloth's copies); the served
    # name says which, and the directory's name agrees with it
    text = SERVED_ALIAS.read_text()
    text = text.replace("--model-path /model ", "--model-path /models/Llama-3.2-3B-Instruct ")
    text = text.replace("deepseek-ai/DeepSeek-R1", "meta-llama/Llama-3.2-3B-Instruct")
    text = text.replace("--quantization modelopt_fp4 ", "")
    agreed = tmp_path / "agreed.yaml"
    agreed.write_text(text)
    result = lint(agreed, rules, gpu="H100")
    [found] = result.deployments
    assert found.budget is not None
    assumed = found.budget.assumed["model"]
    assert assumed.startswith("meta-llama/Llama-3.2-3B-Instruct (from --served-model-name")
    assert "'Llama-3.2-3B-Instruct' matches" in assumed
    assert by_code(result, "HBM006") == []

    # a directory that does not say the same leaves the model unknown
    other = tmp_path / "other.yaml"
    other.write_text(text.replace("/models/Llama-3.2-3B-Instruct ", "/models/llama "))
    result = lint(other, rules, gpu="H100")
    [found] = result.deployments
    assert found.budget is None
    assert "served as 'meta-llama/Llama-3.2-3B-Instruct'" in by_code(result, "HBM006")[0].message


def test_a_directory_named_org_dash_dash_name_is_that_model(rules):
    result = lint(FLATTENED, rules, gpu="H100")
    assert errors(result) == []
    llama, embedding = result.deployments
    assert llama.budget is not None
    assert llama.budget.assumed["model"] == (
        "meta-llama/Meta-Llama-3-8B-Instruct (from the path's last part "
        "'meta-llama--Meta-Llama-3-8B-Instruct' (ORG--NAME); the manifest says "
        "/models/meta-llama--Meta-Llama-3-8B-Instruct)"
    )
    # an ORG--NAME the catalog does not hold is still unknown, not guessed at
    assert embedding.budget is None
    [warning] = by_code(result, "HBM006")
    assert "'/models/BAAI--bge-large-en-v1.5' is a local path" in warning.message
    assert warning.span.line == 34
