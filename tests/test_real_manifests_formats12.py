"""The format readers' gaps of session 11 (formats12), each on a pattern from a public
repository: each fixture under tests/fixtures/real/ names its source in its first lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes as by_code
from real_lint import errors, lint

from hbmlint.diagnostics import Severity
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

SERVED_ALIAS = REAL / "sglang-local-model-served-as-alias.yaml"
FLATTENED = REAL / "compose-vllm-flattened-hf-id-path.yml"
RHAIIS = REAL / "llmisvc-rhaiis-3.0-removed-flag.yaml"
DYNAMO_RUNTIME = REAL / "dynamo-dgd-vllm-runtime-release.yaml"
SEPARATORS = REAL / "llmisvc-unicode-line-separators.yaml"
NGC_VLLM = REAL / "compose-ngc-vllm-container-release.yml"

COVERED = {
    SERVED_ALIAS.name,
    FLATTENED.name,
    RHAIIS.name,
    DYNAMO_RUNTIME.name,
    SEPARATORS.name,
    NGC_VLLM.name,
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


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


def test_a_directory_named_org_dash_dash_name_is_that_model(rules, tmp_path):
    result = lint(FLATTENED, rules, gpu="H100")
    assert errors(result) == []
    llama, embedding = result.deployments
    assert llama.budget is not None
    assert llama.budget.assumed["model"] == (
        "meta-llama/Meta-Llama-3-8B-Instruct (from the path's last part "
        "'meta-llama--Meta-Llama-3-8B-Instruct' (ORG--NAME); the manifest says "
        "/models/meta-llama--Meta-Llama-3-8B-Instruct)"
    )
    # /models/BAAI--bge-large-en-v1.5 is the BERT embedder: vLLM keeps no KV cache for it, so
    # it is named with its weights (an info), not budgeted
    assert embedding.budget is None
    [note] = by_code(result, "HBM006")
    assert note.severity == Severity.INFO and "BAAI/bge-large-en-v1.5" in note.message
    assert note.span.line == 34
    # an ORG--NAME the catalog does not hold is still unknown, not guessed at
    unknown = tmp_path / FLATTENED.name
    text = FLATTENED.read_text(encoding="utf-8")
    unknown.write_text(text.replace("BAAI--bge-large-en-v1.5", "acme--embedder-v9"), "utf-8")
    [warning] = by_code(lint(unknown, rules, gpu="H100"), "HBM006")
    assert "'/models/acme--embedder-v9' is a local path" in warning.message
    assert warning.severity == Severity.WARNING and warning.span.line == 34


def test_red_hat_ai_inference_server_3_0_is_the_vllm_it_ships(rules, tmp_path):
    # RHAIIS 3.0 ships vLLM 0.8.4, which still takes --disable-log-requests (removed in 0.17)
    result = lint(RHAIIS, rules)
    [found] = result.deployments
    assert found.deployment.engine_version == "0.8.4"
    assert by_code(result, "HBM010") == []

    # a later tag whose vLLM no public Red Hat table gives is not guessed: the newest vLLM
    # (with a flag the newest refuses: 0.33 takes --disable-log-requests again)
    later = tmp_path / "later.yaml"
    later.write_text(
        RHAIIS.read_text()
        .replace("vllm-cuda-rhel9:3.0.0", "vllm-cuda-rhel9:3.2.4")
        .replace("--disable-log-requests", "--disable-frontend-multiprocessing")
    )
    result = lint(later, rules)
    assert result.deployments[0].deployment.engine_version is None
    [removed] = by_code(result, "HBM010")
    assert "the newest vLLM refuses" in removed.message


def test_a_dynamo_runtime_tag_is_the_engine_release_it_ships(rules, tmp_path):
    result = lint(DYNAMO_RUNTIME, rules, gpu="H100")
    assert errors(result) == []
    [found] = result.deployments
    assert found.deployment.engine_version == "0.11.0"  # Dynamo 0.6.1 ships vLLM 0.11.0
    assert found.budget.assumed["gpu_memory_utilization"].startswith("0.9 (default before")

    # vLLM 0.11 still takes --swap-space (removed in 0.18): no warning on this image
    text = DYNAMO_RUNTIME.read_text().replace("--enforce-eager", "--enforce-eager --swap-space 4")
    swap = tmp_path / "swap.yaml"
    swap.write_text(text)
    assert by_code(lint(swap, rules, gpu="H100"), "HBM010") == []
    # a Dynamo tag in no table is the newest vLLM, which refuses it
    newer = tmp_path / "newer.yaml"
    newer.write_text(text.replace("vllm-runtime:0.6.1.post1", "vllm-runtime:9.0.0"))
    [removed] = by_code(lint(newer, rules, gpu="H100"), "HBM010")
    assert "--swap-space was removed from vLLM in 0.18.0 and the newest vLLM" in removed.message


def test_nvidia_ngc_vllm_container_is_the_vllm_its_release_notes_name(rules, tmp_path):
    # NGC vLLM 25.10 ships vLLM 0.10.2, which still takes --disable-log-requests
    result = lint(NGC_VLLM, rules, gpu="GB10")
    [found] = result.deployments
    assert found.deployment.engine_version == "0.10.2"
    assert by_code(result, "HBM010") == []
    # a month whose notes hbmlint has not read holds at most the newest vLLM by its end: 0.13.0
    # for December 2025, which takes the flag; from a month after 0.17 a warning says so
    later = tmp_path / "later.yml"
    later.write_text(NGC_VLLM.read_text().replace("vllm:25.10-py3", "vllm:25.12.post1-py3"))
    assert by_code(lint(later, rules, gpu="GB10"), "HBM010") == []
    later.write_text(NGC_VLLM.read_text().replace("vllm:25.10-py3", "vllm:26.07-py3"))
    [removed] = by_code(lint(later, rules, gpu="GB10"), "HBM010")
    assert "the image may hold an older release, and one before 0.17.0 takes it" in (
        removed.message
    )


@pytest.mark.parametrize(
    ("image", "release"),
    [
        # ai-dynamo/dynamo docs/reference/support-matrix.md, Backend Dependencies
        ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.8.1", "0.5.6.post2"),
        ("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2", "1.2.0rc6.post2"),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime-cu13:1.0.0", "0.16.0"),
        ("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0-dev.1-cuda13", None),  # no row
        ("registry.redhat.io/rhaiis/vllm-rocm-rhel9:3.0.1", "0.8.4"),
        ("registry.redhat.io/rhaiis/vllm-cuda-rhel9", None),  # no tag
        ("quay.io/example/ai-dynamo-fork:0.8.1", None),  # not NVIDIA's image
        ("nvcr.io/nvidia/vllm:26.03-py3", "0.17.1"),
        ("nvcr.io/nvidia/vllm-other:26.03-py3", None),  # another repository
    ],
)
def test_vendor_image_tags_read_as_engine_releases(image, release):
    from hbmlint.engines import image_version

    assert image_version(image) == release


def editor_line(text: str, needle: str) -> tuple[int, int]:
    """Where ``needle`` sits as an editor shows it: lines split at LF only."""
    for number, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def test_findings_after_a_unicode_line_separator_sit_where_an_editor_shows_them(rules, tmp_path):
    text = SEPARATORS.read_text(encoding="utf-8")
    assert "\u2028" in text and "\x85" in text
    result = lint(SEPARATORS, rules)
    [launch_line] = by_code(result, "HBM013")
    line, _ = editor_line(text, "python3 -m vllm.entrypoints")
    assert launch_line.span.line == line - 1  # the `- |` that opens the block
    # a word inside the block, found by its own text, is on its editor line too
    # (a flag the newest vLLM refuses, where the fixture's --disable-log-requests is)
    later = tmp_path / "later.yaml"
    refused = "--disable-frontend-multiprocessing"
    text = text.replace("rhel9:3.0.0", "rhel9:3.2.4").replace("--disable-log-requests", refused)
    later.write_text(text, encoding="utf-8")
    [removed] = by_code(lint(later, rules), "HBM010")
    assert (removed.span.line, removed.span.column) == editor_line(text, refused)


def test_a_flag_whose_value_an_overlay_patches_is_reported_at_the_patch(rules):
    # jingggg-wenn/llmops-demo's staging overlay replaces args/3, the value of the base's
    # --max-model-len (args/2): the finding about that length belongs at the patch's value,
    # not at the `- ../base` entry the unpatched flag word sits at
    overlay = REAL / "kustomize-json-patch-runtime" / "staging" / "kustomization.yaml"
    result = lint(overlay, rules)
    [too_long] = by_code(result, "HBM303")
    assert "131,072" in too_long.message
    text = overlay.read_text()
    assert (too_long.span.line, too_long.span.column) == editor_line(text, '"131072"')
    # the model, which no patch changes, is still placed at the base it comes from
    [read] = result.deployments
    assert read.deployment.locations["model.name"].line == editor_line(text, "- ../base")[0]


def test_a_node_pool_selected_by_name_is_said_to_name_no_gpu(rules):
    # gcp-dynamo-cuj selects its GB300 pool as cloud.google.com/gke-nodepool: np-3: a name the
    # cluster's owner chose, from which no GPU can be read
    result = lint(SERVED_ALIAS, rules)
    [no_gpu] = by_code(result, "HBM005")
    assert no_gpu.severity is Severity.WARNING
    assert "selects a node pool by the name its cluster gave it" in no_gpu.message
    assert "(cloud.google.com/gke-nodepool: np-3), which does not say the GPU" in no_gpu.message
    assert "cloud.google.com/gke-accelerator" in no_gpu.message  # the way to unblock it
