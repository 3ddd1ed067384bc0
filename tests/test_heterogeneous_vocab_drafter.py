"""vLLM's use_heterogeneous_vocab: a draft model of another tokenizer, its tokens mapped onto the
target's (vLLM PR #38174; in the 0.25.0-0.33.0 wheels' SpeculativeConfig, not in 0.24.0's nor
0.34.0's, which forbid keys they do not have). Found in a speculative-decoding sweep (sweep 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


SCRIPT = (
    "#!/bin/bash\n"
    "docker run --gpus all vllm/vllm-openai:{tag} meta-llama/Llama-3.1-8B-Instruct \\\n"
    "  --max-model-len 8192 --speculative-config "
    '\'{{"method": "draft_model", "model": "Qwen/Qwen2.5-0.5B-Instruct", '
    '"num_speculative_tokens": 4{extra}}}\'\n'
)


def _findings(tmp_path: Path, rules, tag: str, extra: str) -> list[tuple[str, str]]:
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT.format(tag=tag, extra=extra))
    result = lint_file(path, path.name, rules, LintOptions(default_gpu="H100"))
    return [(f.code, f.severity.name) for f in result.diagnostics if f.severity.name != "INFO"]


def test_a_draft_of_another_tokenizer_is_an_error_without_the_mapping(rules, tmp_path):
    assert ("HBM203", "ERROR") in _findings(tmp_path, rules, "v0.30.0", "")


def test_the_mapping_lets_a_draft_of_another_tokenizer_start(rules, tmp_path):
    assert _findings(tmp_path, rules, "v0.30.0", ', "use_heterogeneous_vocab": true') == []


@pytest.mark.parametrize("tag", ["v0.24.0", "v0.34.0"])
def test_releases_without_the_key_refuse_it(rules, tmp_path, tag):
    found = _findings(tmp_path, rules, tag, ', "use_heterogeneous_vocab": true')
    assert ("HBM004", "ERROR") in found
