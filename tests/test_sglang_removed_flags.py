"""SGLang flags that later releases refuse. 0.5.20 dropped the deprecated aliases 0.5.19 still
took (sgl-project/sglang#23906 split the CUDA graph flags by phase): --cuda-graph-max-bs, in
105 lines of the swept SGLang manifests, now prefixes --cuda-graph-max-bs-decode and
--cuda-graph-max-bs-prefill, and argparse exits on the ambiguous option. --enable-ep-moe and
--enable-deepep-moe raise from 0.5.3, --enable-flashinfer-mla and --enable-flashmla from
0.4.6. hbmlint read them as if every release took them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

COMPOSE = """\
services:
  sglang:
    image: lmsysorg/sglang:VERSION
    command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 8192 FLAGS
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
"""


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def lint(tmp_path: Path, rules, flags: str, version: str):
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.replace("VERSION", version).replace("FLAGS", flags))
    options = LintOptions(keep_budgets=True, default_gpu="H100")
    return lint_file(path, "compose.yaml", rules, options)


def removed(result):
    return [d for d in result.diagnostics if d.code == "HBM010"]


@pytest.mark.parametrize(
    ("flags", "version", "warned"),
    [
        ("--cuda-graph-max-bs 64", "v0.5.19-cu129", False),
        ("--cuda-graph-max-bs 64", "v0.5.20", True),
        ("--cuda-graph-max-bs=64", "latest", True),
        ("--cuda-graph-max-bs-decode 64", "v0.5.23", False),
        ("--cuda-graph-bs 1 2 4 8", "v0.5.21", True),
        ("--nsa-prefill-backend flashmla_sparse", "v0.5.19", False),
        ("--nsa-prefill-backend flashmla_sparse", "v0.5.22", True),
        # shawnawshk/llm-on-eks k8s-manifest/sglang (sweep 9) still passes it
        ("--enable-flashinfer-mla", "v0.4.5", False),
        ("--enable-flashinfer-mla", "v0.4.6", True),
        ("--enable-flashinfer-mla", "latest", True),
        ("--enable-ep-moe", "v0.5.2", False),
        ("--enable-ep-moe", "v0.5.3", True),
        ("--disable-cuda-graph", "latest", False),  # still taken, as a deprecated spelling
    ],
)
def test_only_the_releases_that_refuse_a_flag_warn(tmp_path, rules, flags, version, warned):
    assert bool(removed(lint(tmp_path, rules, flags, version))) is warned


def test_cuda_graph_max_bs_on_a_current_release_names_the_new_flag(tmp_path, rules):
    result = lint(tmp_path, rules, "--cuda-graph-max-bs 64", "v0.5.23")
    [warning] = removed(result)
    # the release is pinned, and argparse stops at the flag: an error, not a risk
    assert warning.severity.name == "ERROR"
    assert warning.message == (
        "--cuda-graph-max-bs was removed from SGLang in 0.5.20 and SGLang 0.5.23 refuses to "
        "start with it (argparse: ambiguous option: --cuda-graph-max-bs-decode or "
        "--cuda-graph-max-bs-prefill)"
    )
    assert [f.message for f in warning.fixes] == ["Use --cuda-graph-max-bs-decode"]
    assert warning.span.line == 4
    assert [d for d in result.diagnostics if d.severity.name == "ERROR"] == [warning]


def test_the_new_spelling_sizes_the_decode_graphs_as_the_old_one_did(tmp_path, rules):
    old = lint(tmp_path, rules, "--cuda-graph-max-bs 160", "v0.5.19")
    new = lint(tmp_path, rules, "--cuda-graph-max-bs-decode 160", "v0.5.19")
    default = lint(tmp_path, rules, "", "v0.5.19")
    budgets = [r.deployments[0].budget for r in (old, new, default)]
    assert budgets[0].kv_cache == budgets[1].kv_cache != budgets[2].kv_cache
