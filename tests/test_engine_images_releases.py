"""Container images read as the engine release they ship: SGLang's dated nightly builds, NGC's
TensorRT-LLM release and Triton TensorRT-LLM containers, NVIDIA Dynamo's runtimes from 1.2 on.
A flag removed after the image's release is no finding there, and the budget takes that
release's defaults; a tag that names no release is read as the newest, and the finding says
that was assumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hbmlint.engines import image_version
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
SGLANG_NIGHTLY = REAL / "srt-slurm-sglang-nightly-dev-image.yaml"
DYNAMO_VLLM = REAL / "pod-dynamo-vllm-runtime-1.3.yaml"
TRTLLM_RELEASE = REAL / "compose-trtllm-ngc-release.yml"
TGI_DLC = REAL / "gke-tgi-google-cloud-dlc.yaml"
DYNAMO_SGLANG_050 = REAL / "dynamo-sglang-runtime-0.5.0-a10g.yaml"
COVERED = {SGLANG_NIGHTLY.name, DYNAMO_VLLM.name, TRTLLM_RELEASE.name, TGI_DLC.name}
COVERED |= {DYNAMO_SGLANG_050.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules):
    options = LintOptions(default_gpu="H100-80GB", keep_budgets=True)
    return lint_file(path, path.name, rules, options)


def _variant(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    path = tmp_path / source.name
    text = source.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize(
    ("image", "release"),
    [
        # tags as swept manifests write them (SemiAnalysisAI/InferenceX configs and recipes,
        # ai-dynamo/dynamo recipes, alisachen-google/gcp-dynamo-cuj, mrzzy/slm-exploration)
        ("nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc18", "1.3.0rc18"),
        ("nvidia/tensorrt-llm/release:1.2.0", "1.2.0"),
        ("nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc23.post1", "1.3.0rc23.post1"),
        ("nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3", "0.12.0"),
        ("nvcr.io/nvidia/tritonserver:25.12-trtllm-python-py3", "1.1.0"),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1", "0.23.0"),
        ("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.1", "1.3.0rc19"),
        ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0", "0.5.11"),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0", "0.28.0"),
        # Google Cloud's Hugging Face TGI containers: TGI's MAJOR-MINOR after the CUDA release
        (
            "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/"
            "huggingface-text-generation-inference-cu124.2-3.ubuntu2204.py311",
            "2.3",
        ),
        # a Slurm recipe leaves out the registry
        ("nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2", "1.2.0rc6.post2"),
    ],
)
def test_the_release_an_image_ships_is_read(image, release):
    assert image_version(image) == release


def test_what_names_no_release_is_left_unread():
    # Triton's plain container holds no TensorRT-LLM; a Dynamo preview or a model's early-access
    # build is not the release it precedes; SGLang's moving tags and vLLM's commit nightlies
    # name no release and no day
    for image in (
        "nvcr.io/nvidia/tritonserver:24.08-py3",
        "nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0-dev.1-cuda13",
        "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0-deepseek-v4-dev.3",
        "nvcr.io/nvidia/tensorrt-llm/release:latest",
        "lmsysorg/sglang:dev-cu13",
        "lmsysorg/sglang:latest",
        "lmsysorg/sglang:deepseek-v4-hopper",
        "vllm/vllm-openai:nightly-5e35a6f4f9bbc217c599692157ca985c894373f7",
    ):
        assert image_version(image) is None, image


def test_a_dated_sglang_nightly_reads_as_the_newest_release_by_its_day():
    # PyPI: sglang 0.5.14 uploaded 2026-06-26, 0.5.15 on 2026-07-10 (release_dates.yaml)
    version = image_version("lmsysorg/sglang:nightly-dev-cu13-20260709-074bb928")
    assert version.startswith("0.5.14 ") and "2026-07-09" in version
    assert image_version("docker.io/lmsysorg/sglang:nightly-dev-20251215-4449c170").startswith(
        "0.5.6 "
    )


def test_a_flag_sglang_split_later_is_no_finding_on_an_earlier_nightly(rules, tmp_path):
    # --cuda-graph-max-bs became ambiguous in SGLang 0.5.20; the build of 2026-07-09 holds
    # 0.5.14, which takes it
    result = _lint(SGLANG_NIGHTLY, rules)
    assert [f for f in result.diagnostics if f.code == "HBM010"] == []
    assert [r.deployment.engine_version for r in result.deployments] == [
        image_version("lmsysorg/sglang:nightly-dev-cu13-20260709-074bb928")
    ] * 2
    # the same recipe on SGLang's moving tag: the newest refuses the flag, and says it assumed so
    latest = _variant(
        tmp_path,
        SGLANG_NIGHTLY,
        "lmsysorg/sglang:nightly-dev-cu13-20260709-074bb928",
        "lmsysorg/sglang:dev-cu13",
    )
    removed = [f for f in _lint(latest, rules).diagnostics if f.code == "HBM010"]
    assert len(removed) == 2
    assert all("the newest SGLang refuses" in f.message for f in removed)
    assert all("the newest is assumed" in f.message for f in removed)


def test_a_dynamo_runtime_is_judged_at_the_vllm_it_ships(rules, tmp_path):
    result = _lint(DYNAMO_VLLM, rules)
    [deployment] = result.deployments
    assert deployment.budget.settings.engine_version == "0.23.0"
    assert "engine_version" not in deployment.budget.assumed
    # --calculate-kv-scales went in vLLM 0.28: Dynamo 1.4.0 ships 0.26.0, 1.5.0 ships 0.28.0
    flagged = _variant(tmp_path, DYNAMO_VLLM, "--async-scheduling", "--calculate-kv-scales")
    assert [f for f in _lint(flagged, rules).diagnostics if f.code == "HBM010"] == []
    at = {}
    for tag in ("1.4.0", "1.5.0"):
        path = flagged.with_name(f"{tag}.yaml")
        path.write_text(flagged.read_text().replace("vllm-runtime:1.3.1", f"vllm-runtime:{tag}"))
        at[tag] = [f.message for f in _lint(path, rules).diagnostics if f.code == "HBM010"]
    assert at["1.4.0"] == []
    [message] = at["1.5.0"]
    assert "removed from vLLM in 0.28.0 and vLLM 0.28.0 refuses" in message
    assert message.startswith("--calculate-kv-scales")


def test_a_trtllm_release_container_gets_that_release_budget(rules, tmp_path):
    # before 1.0 the KV cache is sized after a sampler over max_batch_size sequences
    # (engines.yaml trtllm overhead_since): an older release leaves fewer tokens
    [old] = _lint(TRTLLM_RELEASE, rules).deployments
    assert old.budget.settings.engine_version == "0.21.0"
    newer = _variant(tmp_path, TRTLLM_RELEASE, "release:0.21.0", "release:1.0.0")
    [new] = _lint(newer, rules).deployments
    assert new.budget.settings.engine_version == "1.0.0"
    assert old.budget.kv_tokens < new.budget.kv_tokens
    # :latest names no release: the newest, and the budget says it assumed so
    latest = _variant(tmp_path, TRTLLM_RELEASE, "release:0.21.0", "release:latest")
    [unnamed] = _lint(latest, rules).deployments
    assert unnamed.budget.settings.engine_version is None
    assert unnamed.budget.kv_tokens == new.budget.kv_tokens


def test_a_google_cloud_tgi_container_gets_its_tgi_release_budget(rules, tmp_path):
    # the repository names TGI 2.2 (its tag is latest); the wiggle room, the KV block and the
    # prefill default changed between 2.2 and 3.3 (engines.yaml tgi), so TGI 3.3.5 budgets the
    # same Deployment differently
    [dlc] = _lint(TGI_DLC, rules).deployments
    assert dlc.budget.settings.engine_version == "2.2"
    image = (
        "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/"
        "huggingface-text-generation-inference-cu121.2-2.ubuntu2204:latest"
    )
    tgi3 = _variant(tmp_path, TGI_DLC, image, "ghcr.io/huggingface/text-generation-inference:3.3.5")
    [upstream] = _lint(tgi3, rules).deployments
    assert upstream.budget.settings.engine_version == "3.3.5"
    assert dlc.budget.kv_tokens != upstream.budget.kv_tokens


def test_dynamo_0_5_0_is_judged_at_most_at_the_sglang_out_by_its_release(rules, tmp_path):
    """Dynamo 0.5.0 (September 2025) is in no support matrix hbmlint read; it shipped an SGLang
    before 0.5.3, whose smaller static memory fraction on a 24 GB card leaves an 8B model no
    room. Read as the newest SGLang it was a false HBM101 error on AWS's ai-on-eks blueprint."""
    version = image_version("nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.5.0")
    assert version is not None and version.startswith("0.5.2 (at most")
    result = _lint(DYNAMO_SGLANG_050, rules)
    assert [f.code for f in result.diagnostics if f.severity.name == "ERROR"] == []
    [deployment] = result.deployments
    assert deployment.budget.settings.engine_version.startswith("0.5.2")
    # a tag in no table is still the newest release, said as assumed
    newest = _variant(tmp_path, DYNAMO_SGLANG_050, "sglang-runtime:0.5.0", "sglang-runtime:0.5.1")
    assert "engine_version" in _lint(newest, rules).deployments[0].budget.assumed


@pytest.mark.parametrize(
    ("image", "release"),
    [
        # ombori/deepseek-v4-flash-0731-sglang-4x-rtx-pro-6000: built FROM
        # lmsysorg/sglang:v0.5.16-cu130-runtime and tagged with its release
        ("sglang:v0.5.16-dsv4-sm120", "0.5.16"),
        ("registry.example.com/ai/vllm:0.9.1", "0.9.1"),
        # the team's own numbering, not a release of the engine the name says
        ("registry.example.com/ai/vllm:v1.2.0", None),
        # a vendor's own release numbers: Dynamo 0.5.1 is not SGLang 0.5.1
        ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.5.1", None),
    ],
)
def test_an_image_of_one_s_own_tagged_with_its_engine_s_release(image, release):
    assert image_version(image) == release
