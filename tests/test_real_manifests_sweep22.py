"""Patterns from public repositories hbmlint had never seen (sweep 22, session 35): each test
names its source and says what a user sees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from real_lint import codes

from hbmlint.diagnostics import Severity
from hbmlint.lint import LintOptions, lint_file, lint_paths
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
OVERLAYS = REAL / "kustomize-overlays-smp-generator"

COVERED = {
    f"{OVERLAYS.name}/{name}"
    for name in (
        "base/kustomization.yaml",
        "base/deployment.yaml",
        "h100-qwen3-32b/kustomization.yaml",
        "h100-qwen3-32b/patch-nodeselector.yaml",
        "h100-qwen3-32b/patch-resources.yaml",
        "l4-gemma-3-1b-it/kustomization.yaml",
        "l4-gemma-3-1b-it/patch-nodeselector.yaml",
        "l4-gemma-3-1b-it/patch-resources.yaml",
    )
}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


def _line(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# --- kustomize overlays: strategic-merge patches and generated ConfigMaps ----------------------
# GoogleCloudPlatform/accelerated-platforms online-inference-gpu/vllm: 28 overlays of one base,
# each generating ConfigMap `runtime` (model, TP, max length, memory fraction) from an env file
# and adding the GPU with strategic-merge patches. Before, 20 of them passed in silence and the
# base was warned "no GPU"; kubectl kustomize showed an HBM101, two HBM102 and two HBM105.


def test_an_overlay_with_a_generated_configmap_and_merge_patches_is_budgeted(rules):
    overlay = OVERLAYS / "h100-qwen3-32b" / "kustomization.yaml"
    result = _lint(overlay, rules)
    [item] = result.deployments
    deployment = item.deployment
    assert deployment.name == "vllm-h100-qwen3-32b"  # the nameSuffix
    assert deployment.model.name == "/gcs/qwen/qwen3-32b"  # MODEL_ID from runtime.env
    assert item.budget.resolved.target.name == "Qwen/Qwen3-32B"  # the path's last two parts
    assert deployment.serving.max_model_len == 32768
    assert deployment.parallel.tensor == 1
    # the GPU from the strategic-merge patch, placed at the entry that names its file
    assert item.budget.resolved.gpu.name.startswith("H100")
    assert deployment.location("gpu.type").line == _line(overlay, "patch-nodeselector.yaml")
    # 32B in 16 bits on one 80 GB card at 0.95 leaves about one 32k sequence of KV cache: the
    # finding kubectl kustomize's output gets
    assert [f.code for f in result.diagnostics] == ["HBM105"]
    assert result.diagnostics[0].severity == Severity.WARNING


def test_a_small_model_overlay_of_the_same_base_is_clean(rules):
    result = _lint(OVERLAYS / "l4-gemma-3-1b-it" / "kustomization.yaml", rules)
    [item] = result.deployments
    assert item.budget.resolved.target.name == "google/gemma-3-1b-it"
    assert item.budget.resolved.gpu.name.startswith("L4")
    assert result.diagnostics == []


def test_the_base_an_overlay_builds_on_is_a_note_not_a_warning(rules, tmp_path):
    # a base that names its model itself (the repro of sweep 22, with the ConfigMap a resource
    # of the overlay) lacks only the GPU, which each overlay's patch adds
    shutil.copytree(OVERLAYS, tmp_path / "o")
    base = tmp_path / "o" / "base" / "deployment.yaml"
    text = base.read_text().replace("/gcs/$(MODEL_ID)", "Qwen/Qwen3-32B")
    base.write_text(text.replace("$(TENSOR_PARALLEL_SIZE)", "1"))
    # linted alone, nothing says an overlay chooses the GPU: a warning
    [alone] = codes(_lint(base, rules), "HBM005")
    assert alone.severity == Severity.WARNING
    # linted with its overlays (`hbmlint DIR`), the base's missing GPU is the overlays' to choose
    results = lint_paths([tmp_path / "o"], rules, LintOptions())
    [linted] = [r for r in results if r.display.endswith("base/deployment.yaml")]
    [gpu] = codes(linted, "HBM005")
    assert gpu.severity == Severity.INFO
    assert "kustomize base that the overlay" in gpu.message
    assert "kustomization.yaml builds on" in gpu.message


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(OVERLAYS, tmp_path / "o")
    return tmp_path / "o" / "h100-qwen3-32b"


def test_a_merge_patch_replaces_args_and_keeps_the_other_containers(rules, tmp_path):
    overlay = _copy(tmp_path)
    # args replace the base's whole list (a list of strings has no merge key); the container is
    # found by name, so the sidecar before it is kept and the GPU limit of the other patch stays
    (overlay / "patch-args.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: inference-server\n          args:\n"
        "            - --model=Qwen/Qwen3-8B\n            - --max-model-len=8192\n"
    )
    path = overlay / "kustomization.yaml"
    path.write_text(
        path.read_text().replace(
            "  - path: patch-resources.yaml\n",
            "  - path: patch-resources.yaml\n  - path: patch-args.yaml\n",
        )
    )
    result = _lint(path, rules)
    [item] = result.deployments
    assert item.deployment.model.name == "Qwen/Qwen3-8B"
    assert item.deployment.serving.max_model_len == 8192
    assert item.deployment.location("model").line == _line(path, "patch-args.yaml")
    assert item.budget.resolved.gpu_count == 1
    assert result.diagnostics == []


def test_a_merge_patch_can_delete_a_container_and_a_key(rules, tmp_path):
    overlay = _copy(tmp_path)
    # `$patch: delete` drops the engine container: the overlay runs no engine any more
    (overlay / "patch-resources.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: inference-server\n          $patch: delete\n"
    )
    result = _lint(overlay / "kustomization.yaml", rules)
    assert result.deployments == []


def test_generator_literals_and_a_merge_into_a_base_generator(rules, tmp_path):
    overlay = _copy(tmp_path)
    # the base generates `runtime`; the overlay merges one literal into it
    base = overlay.parent / "base"
    (base / "runtime.env").write_text((overlay / "runtime.env").read_text())
    (base / "kustomization.yaml").write_text(
        (base / "kustomization.yaml").read_text()
        + "configMapGenerator:\n  - name: runtime\n    envs: [runtime.env]\n"
    )
    path = overlay / "kustomization.yaml"
    path.write_text(
        path.read_text().replace(
            "  - envs:\n      - runtime.env\n    name: runtime\n",
            "  - name: runtime\n    behavior: merge\n    literals:\n      - MAX_MODEL_LEN=4096\n",
        )
    )
    result = _lint(path, rules)
    [item] = result.deployments
    assert item.budget.resolved.target.name == "Qwen/Qwen3-32B"  # from the base's generator
    assert item.deployment.serving.max_model_len == 4096  # the overlay's literal
    assert result.diagnostics == []


def test_a_replacement_into_the_engine_image_is_not_built_and_says_so(rules, tmp_path):
    overlay = _copy(tmp_path)
    path = overlay / "kustomization.yaml"
    path.write_text(
        path.read_text().replace(
            "spec.template.metadata.labels.[ai.gke.io/model]",
            "spec.template.spec.containers.[name=inference-server].image",
        )
    )
    result = _lint(path, rules)
    assert result.deployments == []
    [warning] = result.diagnostics
    assert (warning.code, warning.severity) == ("HBM014", Severity.WARNING)
    assert "strategic-merge patch changes" in warning.message
    assert "`replacements` into spec.template.spec.containers.[name=inference-server].image" in (
        warning.message
    )


def test_an_overlay_patching_a_web_ui_beside_the_engine_says_nothing(rules, tmp_path):
    # supernovae/synesis overlays/dev: merge and JSON patches of Open WebUI and a planner, in a
    # base that also holds the vLLM Deployment; the engine is untouched, so the overlay adds
    # nothing (was HBM014 "hbmlint cannot build what the overlay makes")
    base = tmp_path / "base"
    base.mkdir()
    (base / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        "resources: [webui.yaml, vllm.yaml]\n"
    )
    (base / "webui.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: open-webui}\nspec:\n"
        "  template:\n    spec:\n      containers:\n        - name: open-webui\n"
        "          image: ghcr.io/open-webui/open-webui:v0.8.8\n"
        "          env: [{name: OPENAI_API_BASE_URL, value: 'http://litellm:4000/v1'}]\n"
    )
    (base / "vllm.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: coder}\nspec:\n  template:\n"
        "    spec:\n      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}\n"
        "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
        "          args: [--model=Qwen/Qwen3-8B, --max-model-len=8192]\n"
        "          resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    overlay = tmp_path / "dev"
    overlay.mkdir()
    path = overlay / "kustomization.yaml"
    path.write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        "resources: [../base]\npatches:\n  - target: {kind: Deployment, name: open-webui}\n"
        "    patch: |\n      apiVersion: apps/v1\n      kind: Deployment\n"
        "      metadata: {name: open-webui}\n      spec:\n        template:\n          spec:\n"
        "            containers:\n              - name: open-webui\n"
        "                env: [{name: OPENAI_API_BASE_URL, value: 'http://planner:8000/v1'}]\n"
    )
    result = _lint(path, rules)
    assert result.diagnostics == [] and result.deployments == []


def test_a_helm_ingress_that_names_the_engine_is_not_a_template_to_render(rules, tmp_path):
    # louis030195/text-generation-inference-helm templates/ingress.yaml: a GKE static IP named
    # `text-generation-inference-ip` made the Ingress template a "render first" warning (a CI
    # with --fail-on warning failed on every TGI chart); an Ingress runs no engine
    templates = tmp_path / "templates"
    templates.mkdir()
    ingress = templates / "ingress.yaml"
    ingress.write_text(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n"
        "  name: {{ .Values.model.shortName }}\n  annotations:\n"
        "    kubernetes.io/ingress.global-static-ip-name: text-generation-inference-ip\n"
        "spec:\n  rules:\n  - host: {{ .Values.ingress.host }}\n"
    )
    assert _lint(ingress, rules).diagnostics == []
    # the Deployment template of the same chart still says to render it first
    deployment = templates / "deployment.yaml"
    deployment.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.model.shortName }}\n"
        "spec:\n  template:\n    spec:\n      containers:\n        - name: tgi\n"
        "          image: ghcr.io/huggingface/text-generation-inference:2.4.1\n"
        "          args: [--model-id, {{ .Values.model.id }}]\n"
    )
    [render] = _lint(deployment, rules).diagnostics
    assert (render.code, render.severity) == ("HBM012", Severity.WARNING)


# --- engines on devices hbmlint does not budget --------------------------------------------

GAUDI_TGI = REAL / "k8s-tgi-gaudi-own-image.yaml"
TPU_RHAIIS = REAL / "k8s-rhaiis-vllm-tpu-image.yaml"
TPU_LLMISVC = REAL / "llmisvc-tpu-v6e.yaml"
COVERED |= {GAUDI_TGI.name, TPU_RHAIIS.name, TPU_LLMISVC.name}


@pytest.mark.parametrize(
    ("path", "resource"),
    [(GAUDI_TGI, "habana.ai/gaudi"), (TPU_RHAIIS, "google.com/tpu")],
)
def test_an_engine_image_for_another_device_is_said_not_budgeted(rules, path, resource):
    # intel/gaudi-reference-cloud's TGI pods (moditamam/tgi-gaudi) and johnahull/llmd-gke's
    # Red Hat vLLM-TPU Deployment: images hbmlint reads no entrypoint of, on a Gaudi or a TPU,
    # passed as "All clear"; now the note a read engine on that device gets
    result = _lint(path, rules, gpu="H100")
    assert result.deployments == []
    [note] = result.diagnostics
    assert (note.code, note.severity) == ("HBM014", Severity.INFO)
    assert f"asks for {resource}" in note.message
    assert "not checked" in note.message


def test_a_tpu_llm_inference_service_is_not_budgeted_on_a_gpu(rules):
    # johnahull/llmd-gke pattern1: an LLMInferenceService on a TPU v6e slice (google.com/tpu:
    # 4) was warned "names no GPU type", and with --gpu H100 budgeted on four H100s
    result = _lint(TPU_LLMISVC, rules, gpu="H100")
    assert result.deployments == []
    assert codes(result, "HBM005") == []
    [note] = codes(result, "HBM014")
    assert note.severity == Severity.INFO and "google.com/tpu" in note.message


SGLANG_FLASHINFER = REAL / "compose-sglang-disable-flashinfer.yml"
COVERED.add(SGLANG_FLASHINFER.name)


def test_sglangs_removed_disable_flashinfer_is_a_removed_flag(rules):
    # Cloud-Linuxer/Qwen docker-compose.sglang.yml on lmsysorg/sglang:latest: SGLang's
    # --disable-flashinfer raised a deprecation error from 0.3.6 and is unknown since (an
    # ambiguous prefix from 0.5.20); passed as "All clear"
    result = _lint(SGLANG_FLASHINFER, rules, gpu="RTX-5090")
    [removed] = codes(result, "HBM010")
    assert removed.span.line == _line(SGLANG_FLASHINFER, "--disable-flashinfer")
    assert removed.severity == Severity.WARNING  # `latest`: the release is not pinned
    assert "--attention-backend triton" in removed.fixes[0]


# --- SGLang's KV cache dtype for DSA models -------------------------------------------------


def _dsa(tmp_path: Path, gpu: str, kv: str = "") -> Path:
    # the command of sgl-project/sglang PR#11309's DeepSeek-V3.2-Exp runs (TP 8, DP attention 8)
    path = tmp_path / f"dsv32-{gpu}.sh"
    path.write_text(
        "python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2-Exp --tp 8 --dp 8 "
        f"--enable-dp-attention{kv}\n"
    )
    return path


def _per_token(budget) -> int:
    return int(budget.kv_bytes_per_token.to("byte/token").magnitude)


def test_sglang_stores_a_dsa_models_cache_in_fp8_on_blackwell(rules, tmp_path):
    # SGLang's "auto" KV cache of a DSA model is fp8_e4m3 on compute capability 10 and up: its
    # logs on 8 x B200 count 48,072 bytes a token (61 layers x the 656-byte FlashMLA cell and
    # the indexer's 132), not bfloat16's 78,324 (the pool was 41-52% short of the logs)
    [item] = _lint(_dsa(tmp_path, "b200"), rules, gpu="B200").deployments
    budget = item.budget
    assert budget.settings.kv_cache_dtype == "fp8_e4m3"
    assert 47_500 < _per_token(budget) < 48_500
    # on a Hopper card the same command keeps bfloat16
    [hopper] = _lint(_dsa(tmp_path, "h200"), rules, gpu="H200").deployments
    assert hopper.budget.settings.kv_cache_dtype in ("bfloat16", "bf16")
    assert _per_token(hopper.budget) > 75_000
    # a dtype the command sets is kept
    [kept] = _lint(_dsa(tmp_path, "b200", " --kv-cache-dtype bf16"), rules, gpu="B200").deployments
    assert _per_token(kept.budget) > 75_000


# --- weights and overhead the sweep's logs corrected ----------------------------------------


GLM47_PRO6000 = REAL / "shell-vllm-glm47-fp8-4x-rtx-pro-6000.sh"
COVERED.add(GLM47_PRO6000.name)


def test_a_tensor_parallel_group_of_rtx_pro_6000s_holds_more_than_pcie_cards(rules):
    # AlexGS74/glm47-nvfp4-sm120 serve_glm47_fp8_vllm.sh: GLM-4.7-FP8 at TP 4 with EP on four
    # RTX PRO 6000, 131,072 tokens. The author logged vLLM's limit, 88,560 tokens (3.9 GiB of KV);
    # hbmlint's flat PCIe figure left 6.9 GiB (156,352 tokens) and said "All clear". The card's
    # P2P group figure (1.47 GiB, from vllm-0271-...-tp4's logged 1.70 GiB of non-torch memory)
    # brings the estimate to the edge the engine refused at
    result = _lint(GLM47_PRO6000, rules, gpu="RTX-PRO-6000-Blackwell-96GB")
    [item] = result.deployments
    tokens = item.budget.kv_tokens.magnitude
    assert 110_000 < tokens < 130_000
    [near] = codes(result, "HBM105")
    assert near.span.line == _line(GLM47_PRO6000, "--max-model-len")
    assert item.budget.overhead["non_torch"].to("GiB").magnitude > 1.6
    # another PCIe card in the same group keeps the flat figure (the GeForce and L40S logs)
    [pcie] = _lint(GLM47_PRO6000, rules, gpu="L40S").deployments
    assert pcie.budget.overhead["non_torch"].to("GiB").magnitude < 0.5


QWEN38_MTP_3090 = REAL / "k8s-vllm-qwen38-mtp-3090-homelab.yaml"
COVERED.add(QWEN38_MTP_3090.name)


def test_the_speculative_advisor_does_not_claim_a_refusal_the_budget_only_suspects(rules):
    # mitchross/talos-argocd-proxmox: Qwen3.8-27B W4A16 with MTP on one RTX 3090 at 65,536
    # tokens, which the author's comment says boots at 0.93. HBM105 says the engine "may"
    # refuse (the estimate's band holds 65,536); HBM208 said "as set: MTP layers: does not
    # start ... the current setting does not start" on the same point estimate
    result = _lint(QWEN38_MTP_3090, rules)
    [near] = codes(result, "HBM105")
    assert "may refuse" in near.message
    [tradeoff] = codes(result, "HBM208")
    assert "does not start" not in tradeoff.message
    assert "as set: MTP layers: falls short of one max_model_len sequence" in tradeoff.message
    assert tradeoff.fixes[0].message.endswith(
        "the current setting falls short of one max_model_len sequence."
    )


# --- reads: catalog siblings, cloud instance types, Jetson -------------------------------------


@pytest.mark.parametrize(
    ("model", "read_as"),
    [
        # KatherLab/host_vllm jobs/qwen3_vl_235b_1node.sh: the Thinking checkpoint (HBM015 before)
        ("Qwen/Qwen3-VL-235B-A22B-Thinking-FP8", "Qwen/Qwen3-VL-235B-A22B-Thinking-FP8"),
        ("Qwen/Qwen3-VL-235B-A22B-Thinking", "Qwen/Qwen3-VL-235B-A22B-Instruct"),
        # V3.1-Terminus: V3.1's weights updated, the same config.json
        ("deepseek-ai/DeepSeek-V3.1-Terminus", "deepseek-ai/DeepSeek-V3.1"),
    ],
)
def test_sibling_checkpoints_of_catalog_models_are_budgeted(rules, tmp_path, model, read_as):
    path = tmp_path / "serve.sh"
    path.write_text(f"vllm serve {model} --tensor-parallel-size 8 --max-model-len 32768\n")
    result = _lint(path, rules, gpu="H200")
    assert codes(result, "HBM015") == [] and codes(result, "HBM006") == []
    [item] = result.deployments
    assert item.budget.resolved.target.name == read_as


def test_a_gke_g4_node_is_read_as_its_rtx_pro_6000(rules, tmp_path):
    # Jiminator/sglang-rtx-pro-6000 runs on GCP's G4 (g4-standard-48: one RTX PRO 6000
    # Blackwell); the instance type was not read (HBM005)
    path = tmp_path / "deploy.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n"
        "    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g4-standard-48}\n"
        "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
        "          args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, '8192']\n"
        "          resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    result = _lint(path, rules)
    assert codes(result, "HBM005") == []
    [item] = result.deployments
    assert item.budget.resolved.gpu.name == "RTX-PRO-6000-Blackwell-96GB"


def test_a_jetson_image_is_not_budgeted_on_the_default_gpu(rules, tmp_path):
    # GiveThanksAlways/jetpack-nixos examples/vllm/run-vllm-docker.sh: dustynv/vllm (the
    # jetson-containers build for L4T) on a Jetson Orin; budgeted as one H100 with --gpu H100
    path = tmp_path / "run-vllm-docker.sh"
    path.write_text(
        "docker run --runtime nvidia -it --rm dustynv/vllm:0.8.6-r36.4-cu128-24.04 \\\n"
        "  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
    )
    result = _lint(path, rules, gpu="H100")
    assert result.deployments == []
    [note] = result.diagnostics
    assert (note.code, note.severity) == ("HBM014", Severity.INFO)
    assert "Jetson" in note.message


BIND_MOUNT = REAL / "shell-docker-bind-mount-model.sh"
COVERED.add(BIND_MOUNT.name)


def test_a_model_path_under_a_docker_bind_mount_is_read_from_the_host_directory(rules, tmp_path):
    # jwt625/PlayGround launch_kimi_k2.sh: `-v "${MODEL_PATH}:/model" ... --model /model` with
    # MODEL_PATH=/home/ubuntu/models/Kimi-K2-Thinking was HBM006 "a local path hbmlint cannot
    # identify"; Compose volumes were read so already
    result = _lint(BIND_MOUNT, rules, gpu="H100")
    assert codes(result, "HBM006") == []
    [item] = result.deployments
    assert item.budget.resolved.target.name == "moonshotai/Kimi-K2-Thinking"
    assert item.budget.resolved.model_guessed_from is not None  # a guess, said as one
    # --mount with source= and target= reads the same
    mount = tmp_path / "run.sh"
    mount.write_text(
        "docker run --gpus all --mount type=bind,source=/srv/hf/Qwen3-8B,target=/models/q "
        "vllm/vllm-openai:v0.11.0 --model /models/q --max-model-len 8192\n"
    )
    [qwen] = _lint(mount, rules, gpu="L4").deployments
    assert qwen.budget.resolved.target.name == "Qwen/Qwen3-8B"


ENV_DOWNLOAD = REAL / "kserve-initcontainer-snapshot-download-env.yaml"
COVERED.add(ENV_DOWNLOAD.name)


def test_a_download_whose_repository_is_a_container_variable_names_the_model(rules):
    # validatedpatterns/rag-llm-gitops: the InferenceService's init container runs
    # snapshot_download(repo_id=os.environ.get("MODEL_ID"), local_dir="/cache/models") with
    # MODEL_ID=ibm-granite/granite-3.3-8b-instruct, and the runtime serves /cache/models
    # (was HBM006 "a local path hbmlint cannot identify")
    result = _lint(ENV_DOWNLOAD, rules, gpu="L4")
    assert codes(result, "HBM006") == []
    [item] = result.deployments
    assert item.budget.resolved.target.name == "ibm-granite/granite-3.3-8b-instruct"


def test_an_engine_image_that_runs_a_client_or_a_download_is_not_an_unread_engine(rules, tmp_path):
    # mitchross/talos-argocd-proxmox benchmarks/vllm/job.yaml (`vllm bench serve` against the
    # server) and kaerfreki/freki-llm-stack pull-vllm-models.sh (`docker run --entrypoint bash
    # vllm/vllm-openai ... snapshot_download`): HBM014 "runs an inference engine" on each
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: vllm-benchmark}\nspec:\n  template:\n"
        "    spec:\n      restartPolicy: Never\n      containers:\n        - name: bench\n"
        "          image: vllm/vllm-openai:latest\n          command: [/bin/sh, -c]\n"
        "          args:\n            - vllm bench serve --base-url http://vllm:8080 --model q\n"
    )
    pull = tmp_path / "pull-vllm-models.sh"
    pull.write_text(
        "docker run --rm --entrypoint bash \\\n  -v hf:/root/.cache/huggingface \\\n"
        '  "vllm/vllm-openai:v0.25.0" \\\n  -lc "python3 -c \'from huggingface_hub import '
        'snapshot_download; snapshot_download(\\"Qwen/Qwen3-8B\\")\'"\n'
    )
    for path in (job, pull):
        assert _lint(path, rules).diagnostics == []
    # a script that starts the server from the same image still says what it could not read
    serve = tmp_path / "serve.sh"
    serve.write_text(
        "docker run --entrypoint bash vllm/vllm-openai:v0.25.0 -c 'vllm serve \"$1\"'\n"
        "vllm bench serve --model x\n"
    )
    assert [f.code for f in _lint(serve, rules).diagnostics] != []


TRTLLM_PROBE = REAL / "shell-trtllm-command-v-probe.sh"
COVERED.add(TRTLLM_PROBE.name)


def test_a_condition_that_probes_for_the_engine_does_not_run_it(rules, tmp_path):
    # k2jac9/spark-hack-toronto serve_trtllm.sh: `if ! command -v trtllm-serve ...` was read as
    # a trtllm-serve run with no model, a false error (HBM003)
    result = _lint(TRTLLM_PROBE, rules, gpu="GB10")
    assert errors_of(result) == []
    [item] = result.deployments
    assert item.deployment.model.name == "nvidia/Llama-3.1-8B-Instruct-FP8"
    for probe in ("hash trtllm-serve", "if which trtllm-serve >/dev/null; then :; fi"):
        path = tmp_path / "probe.sh"
        path.write_text(f"#!/bin/bash\n{probe}\n")
        assert _lint(path, rules).diagnostics == []


def errors_of(result):
    return [f for f in result.diagnostics if f.severity == Severity.ERROR]


def test_production_stack_values_that_ask_for_no_gpu_are_not_budgeted(rules, tmp_path):
    # lucabarze/ml-pipelines values-minimal.yaml: `requestGPU: 0` on the CUDA image was HBM005,
    # and with --gpu L4 an HBM102 error about a GPU the pod never gets
    values = tmp_path / "values.yaml"
    values.write_text(
        "servingEngineSpec:\n  modelSpec:\n  - name: llama\n    repository: vllm/vllm-openai\n"
        "    tag: latest\n    modelURL: meta-llama/Llama-3.1-8B-Instruct\n    replicaCount: 1\n"
        "    requestGPU: 0\n"
    )
    result = _lint(values, rules, gpu="L4")
    assert result.deployments == []
    [note] = result.diagnostics
    assert (note.code, note.severity, note.span.line) == ("HBM014", Severity.INFO, 8)
    assert "requestGPU: 0" in note.message
    # the same values under a subchart its umbrella switches off render nothing at all
    umbrella = tmp_path / "umbrella-values.yaml"
    umbrella.write_text(
        "vllm:\n  enabled: false\n  servingEngineSpec:\n    modelSpec:\n    - name: llama\n"
        "      repository: vllm/vllm-openai\n      tag: v0.10.0\n"
        "      modelURL: meta-llama/Llama-3.1-8B-Instruct\n      requestGPU: 1\n"
    )
    result = _lint(umbrella, rules, gpu="L4")
    assert result.deployments == []
    [off] = result.diagnostics
    assert (off.code, off.severity, off.span.line) == ("HBM014", Severity.INFO, 2)
    assert "vllm.enabled is false" in off.message


def test_the_vllm_chart_on_an_intel_gpu_is_not_budgeted_on_an_nvidia_one(rules, tmp_path):
    # dtandersen/charts vllm-xe: vLLM's chart-helm values asking for gpu.intel.com/xe was HBM005,
    # and with --gpu L4 budgeted on an L4
    values = tmp_path / "values.yaml"
    values.write_text(
        "image:\n  repository: vllm/vllm-openai-xpu\n  tag: latest\n"
        '  command: ["vllm", "serve", "Qwen/Qwen3-4B"]\n'
        "resources:\n  limits:\n    gpu.intel.com/xe: 1\n"
    )
    result = _lint(values, rules, gpu="L4")
    assert result.deployments == []
    [note] = result.diagnostics
    assert (note.code, note.severity) == ("HBM014", Severity.INFO)
    assert "gpu.intel.com/xe" in note.message


def test_a_cloud_machine_type_in_a_comment_names_its_gpu_not_a_namesake(rules, tmp_path):
    # anyscale/examples service.yaml comments `a2-highgpu-8g` (GCP's A100 40GB machines): the
    # fix said "--gpu A2-16GB", NVIDIA's A2 card
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n# runs on a GCP a2-ultragpu-1g VM\n"
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
    )
    [gpu] = codes(_lint(path, rules), "HBM005")
    assert gpu.fixes[0].startswith("Run with --gpu A100-SXM4-80GB")
    assert "'a2-ultragpu-1g'" in gpu.fixes[0]


def test_a_script_that_pins_the_engine_with_pip_runs_that_release(rules, tmp_path):
    # sostrowsk/dgx-spark-local-llm start-sglang.sh installs sglang[all]==0.5.16 and passes
    # --cuda-graph-max-bs, which 0.5.16 takes; assumed the newest, it was HBM010 "removed in
    # 0.5.20"
    path = tmp_path / "start-sglang.sh"
    path.write_text(
        'pip install "sglang[all]==0.5.16"\nexec python3 -m sglang.launch_server '
        "--model-path Qwen/Qwen3-8B --context-length 32768 --cuda-graph-max-bs 8\n"
    )
    result = _lint(path, rules, gpu="GB10")
    assert codes(result, "HBM010") == []
    [item] = result.deployments
    assert item.deployment.engine_version == "0.5.16"
    assert item.deployment.location("engine_version").line == 1
    # without the pin the newest is assumed and the flag is a removed one
    path.write_text(path.read_text().split("\n", 1)[1])
    assert codes(_lint(path, rules, gpu="GB10"), "HBM010") != []


def test_apptainer_run_of_an_engine_image_runs_its_launcher(rules, tmp_path):
    # klieret/ddss-llm-inference-platform docs/della/test_launch.sh: `singularity run --nv ...
    # TGI-image --model-id ...`, and `apptainer run --nv docker://vllm/vllm-openai ARGS` in a
    # Slurm job: the runscript is the image's entrypoint; both passed as "runs no engine"
    job = tmp_path / "run_vllm.sbatch"
    job.write_text(
        "#!/bin/bash\n#SBATCH --gres=gpu:1\nMODEL=meta-llama/Llama-3.1-8B-Instruct\n"
        "apptainer run --nv --bind /scratch:/scratch docker://vllm/vllm-openai:v0.8.5 "
        '--model "$MODEL" --max-model-len 50000\n'
    )
    [item] = _lint(job, rules, gpu="H100").deployments
    deployment = item.deployment
    assert (deployment.engine, deployment.engine_version) == ("vllm", "0.8.5")
    assert deployment.model.name == "meta-llama/Llama-3.1-8B-Instruct"
    assert deployment.serving.max_model_len == 50000
    tgi = tmp_path / "test_launch.sh"
    tgi.write_text(
        "singularity run --nv --env HF_HUB_OFFLINE=1 \\\n"
        "  docker://ghcr.io/huggingface/text-generation-inference:1.0.3 \\\n"
        "  --model-id=meta-llama/Llama-2-7b-chat-hf --num-shard 1\n"
    )
    [read] = _lint(tgi, rules, gpu="A100").deployments
    assert (read.deployment.engine, read.deployment.engine_version) == ("tgi", "1.0.3")


def test_export_of_a_bare_name_and_an_assignment_sets_the_assigned_one(rules, tmp_path):
    # romeramarc/Tfg-mn5-llm-serving posteval_7b.sbatch: `export ADAPTER MERGED="..."` was not
    # read as setting MERGED, so `--model "$MERGED"` was HBM011 "not set"
    path = tmp_path / "posteval.sbatch"
    path.write_text(
        "#!/bin/bash\n#SBATCH --gres=gpu:1\nADAPTER=/tmp/adapter\n"
        'export ADAPTER MERGED="Qwen/Qwen2.5-7B-Instruct"\n'
        'python -m vllm.entrypoints.openai.api_server --model "$MERGED" --max-model-len 4096 &\n'
    )
    result = _lint(path, rules, gpu="H100")
    assert codes(result, "HBM011") == []
    [item] = result.deployments
    assert item.deployment.model.name == "Qwen/Qwen2.5-7B-Instruct"


@pytest.mark.parametrize(
    ("node", "gpu"),
    [
        ("required_labels:\n        ray.io/accelerator-type: L4\n", "L4-24GB"),
        ("instance_type: a2-highgpu-4g-nvidia-a100-40gb-4\n", "A100-SXM4-40GB"),
    ],
)
def test_an_anyscale_services_worker_nodes_name_its_gpu(rules, tmp_path, node, gpu):
    # anyscale/examples wide_ep_fault_tolerance/service.yaml: the worker group's accelerator
    # label (or Anyscale's GCP instance name) names the GPU; was HBM005 "names no GPU type"
    path = tmp_path / "service.yaml"
    path.write_text(
        "name: svc\nimage_uri: anyscale/ray-llm:2.52.0-py311-cu128\ncompute_config:\n"
        f"  worker_nodes:\n    - {node}      min_nodes: 1\n"
        "applications:\n  - name: llm\n    import_path: ray.serve.llm:build_openai_app\n"
        "    args:\n      llm_configs:\n        - model_loading_config:\n            model_id: q\n"
        "            model_source: Qwen/Qwen2.5-7B-Instruct\n"
        "          engine_kwargs: {tensor_parallel_size: 1, max_model_len: 1024}\n"
    )
    result = _lint(path, rules)
    assert codes(result, "HBM005") == []
    [item] = result.deployments
    assert item.budget.resolved.gpu.name == gpu


def test_a_charts_render_first_warning_is_said_once(rules, tmp_path):
    # the vllm-stack chart vendored in a repository spells the engine in three templates: three
    # HBM012 warnings for one "render the chart first"; now the first template carries it
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: tgi\nversion: 0.1.0\n")
    template = (
        "apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: {{{{ .Values.name }}}}\nspec:\n"
        "  template:\n    spec:\n      containers:\n        - name: tgi\n"
        "          image: ghcr.io/huggingface/text-generation-inference:2.4.1\n"
        "          args: [--model-id, {{{{ .Values.model }}}}]\n"
    )
    (chart / "templates" / "deployment.yaml").write_text(template.format(kind="Deployment"))
    (chart / "templates" / "statefulset.yaml").write_text(template.format(kind="StatefulSet"))
    results = lint_paths([chart], rules, LintOptions())
    found = sorted(
        (r.display.rsplit("/", 1)[-1], f.severity) for r in results for f in r.diagnostics
    )
    assert found == [("deployment.yaml", Severity.WARNING), ("statefulset.yaml", Severity.INFO)]


def test_a_model_entrys_key_written_under_vllmconfig_is_told_to_move_up(rules, tmp_path):
    # reductoai/reducto-onprem-infra values/vllm-stack.yaml: hf_token (a secret reference) under
    # vllmConfig; the fix said to pass it as a flag, `--hf_token "{'secretName': ...}"`
    values = tmp_path / "vllm-stack.yaml"
    values.write_text(
        "servingEngineSpec:\n  modelSpec:\n  - name: citation\n    repository: vllm/vllm-openai\n"
        "    tag: v0.8.5.post1\n    modelURL: Qwen/Qwen2.5-7B-Instruct\n    requestGPU: 1\n"
        "    vllmConfig:\n      maxModelLen: 8192\n      hf_token:\n"
        "        secretName: hf-token-secret\n        secretKey: token\n"
    )
    [ignored] = codes(_lint(values, rules, gpu="L40S"), "HBM016")
    assert "vllmConfig.hf_token" in ignored.message
    assert ignored.fixes[0].startswith("Move hf_token up one level, beside vllmConfig")


def test_a_nim_image_built_from_shell_variables_is_read(rules, tmp_path):
    # vmware-private-ai's NIM getting-started script, as NVIDIA's docs write it:
    # IMG_NAME="nvcr.io/${Repository}:${Latest_Tag}" then `docker run ... $IMG_NAME` passed as
    # "All clear, 0 deployments"
    path = tmp_path / "run-nim.sh"
    path.write_text(
        'Repository=nim/meta/llama3-8b-instruct\nLatest_Tag="1.0.3"\n'
        'export IMG_NAME="nvcr.io/${Repository}:${Latest_Tag}"\n'
        "docker run -it --rm --runtime=nvidia --gpus '\"device=4\"' -p 8030:8000 $IMG_NAME\n"
    )
    [item] = _lint(path, rules, gpu="H100").deployments
    assert item.deployment.model.name == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert item.budget.resolved.gpu_count == 1


def test_a_backtick_substitution_in_double_quotes_is_a_command_substitution(rules, tmp_path):
    # xuancong84/llm-expts start-vllm.sh: model_base="`basename $1`" was kept as text and split,
    # so the model was read as '/`basename' (HBM006) with a note on $1
    path = tmp_path / "start-vllm.sh"
    path.write_text(
        '#!/bin/bash\nmodel_base="`basename $1`"\n'
        "vllm serve --model /$model_base --dtype bfloat16 --port 9000\n"
    )
    result = _lint(path, rules, gpu="H100")
    assert codes(result, "HBM006") == [] and result.deployments == []
    [unread] = codes(result, "HBM011")
    assert "`basename $1`" in unread.message


def test_an_image_in_capitals_is_a_placeholder_ci_fills_in(rules, tmp_path):
    # ngthecoder/qwen_serving k8s/vllm/deployment.yaml: `image: IMAGE_NAME` (CI writes an image
    # built FROM vllm/vllm-openai there) with vLLM's flags and a GPU passed as "All clear"
    path = tmp_path / "deployment.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: qwen}\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: vllm\n          image: IMAGE_NAME\n"
        "          args: [--model, Qwen/Qwen2-1.5B-Instruct, --max-model-len, '2048']\n"
        "          resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    [render] = _lint(path, rules).diagnostics
    assert (render.code, render.severity, render.span.line) == ("HBM012", Severity.WARNING, 9)


def test_the_budget_says_the_gpu_came_from_the_option(rules, tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    [item] = _lint(path, rules, gpu="A10G").deployments
    assert "given by --gpu or default-gpu" in item.budget.assumed["gpu"]


def test_the_drafters_displaced_sequences_read_as_a_count_of_sequences(rules, tmp_path):
    # HBM202 ended "full-length sequences displaced: 2 of 8,192 tokens", a count of sequences
    # written as if it were of tokens (sweep 22's spec decoding round)
    path = tmp_path / "serve.sh"
    path.write_text(
        "vllm serve Qwen/Qwen3-8B --max-model-len 8192 --gpu-memory-utilization 0.90 "
        "--max-num-seqs 64 --speculative-config "
        '\'{"method": "dflash", "model": "z-lab/Qwen3-8B-DFlash-b16", '
        '"num_speculative_tokens": 15}\'\n'
    )
    [finding] = codes(_lint(path, rules, gpu="L4"), "HBM202")
    assert "displaced: " not in finding.message
    assert "room for 2 full-length sequences of 8,192 tokens" in finding.message


def test_a_template_placeholder_with_spaces_in_a_script_is_one_word(rules, tmp_path):
    # CyVerse-Ansible/ansible-vllm templates/vllm-api-launcher.sh.j2: `--model {{ VLLM_MODEL }}`
    # was split into '{{' (HBM011) and then 'VLLM_MODEL' read as the model (HBM006)
    path = tmp_path / "vllm-api-launcher.sh"
    path.write_text(
        "#!/bin/bash\npython3 -m vllm.entrypoints.openai.api_server \\\n"
        "    --model {{ VLLM_MODEL }} \\\n    --max-model-len {{ VLLM_MAX_MODEL_LENGTH }}\n"
    )
    result = _lint(path, rules)
    assert codes(result, "HBM006") == [] and result.deployments == []
    model, length = codes(result, "HBM011")
    assert "'{{ VLLM_MODEL }}', a template placeholder" in model.message
    assert "'{{ VLLM_MAX_MODEL_LENGTH }}'" in length.message


SHELL_TO_ENTRYPOINT = REAL / "refused" / "compose-vllm-image-shell-command-no-entrypoint.yml"
COVERED.add("refused/" + SHELL_TO_ENTRYPOINT.name)


def test_a_shell_script_given_to_the_engine_images_entrypoint_is_a_refusal(rules, tmp_path):
    # realfoxtrot/vllm-stack: `command: /bin/sh -c "exec vllm serve ..."` with no `entrypoint:`
    # on vllm/vllm-openai runs `vllm serve /bin/sh -c ...`; read as the script, it passed
    result = _lint(SHELL_TO_ENTRYPOINT, rules, gpu="L4")
    [refused] = codes(result, "HBM013")
    assert refused.severity == Severity.ERROR
    assert refused.span.line == _line(SHELL_TO_ENTRYPOINT, "      /bin/sh -c")
    assert "takes '/bin/sh' as its model" in refused.message
    assert "entrypoint: [/bin/sh, -c]" in refused.fixes[0]
    # with the shell as the entrypoint the same script runs, and nothing is said of it
    fixed = tmp_path / "compose.yml"
    fixed.write_text(
        SHELL_TO_ENTRYPOINT.read_text().replace(
            "    command: >\n      /bin/sh -c ",
            "    entrypoint: [/bin/sh, -c]\n    command:\n      - ",
        )
    )
    assert codes(_lint(fixed, rules, gpu="L4"), "HBM013") == []
    # an image of another name may have another entrypoint: a warning that says so
    other = tmp_path / "other.yml"
    other.write_text(
        SHELL_TO_ENTRYPOINT.read_text().replace("vllm/vllm-openai:v0.11.0", "acme/vllm-openai:1")
    )
    [maybe] = codes(_lint(other, rules, gpu="L4"), "HBM013")
    assert maybe.severity == Severity.WARNING and "unless" in maybe.message


def test_a_compose_image_from_dotenv_with_a_positional_model_is_read(rules, tmp_path):
    # anthonywu/dgx-serve-vllm-gemma4 compose.yaml: `image: ${VLLM_IMAGE}` from .env and the
    # model as the command's first word; skipped ("not a manifest hbmlint reads") unless the
    # command began with --model
    (tmp_path / ".env").write_text(
        "VLLM_IMAGE=vllm/vllm-openai:v0.19.0\nMODEL_ID=Qwen/Qwen3-8B\nMAX_MODEL_LEN=32768\n"
    )
    compose = tmp_path / "compose.yaml"
    compose.write_text(
        "services:\n  vllm:\n    image: ${VLLM_IMAGE}\n    gpus: all\n"
        "    command:\n      - ${MODEL_ID}\n      - --max-model-len\n      - ${MAX_MODEL_LEN}\n"
    )
    [item] = _lint(compose, rules, gpu="H100").deployments
    assert (item.deployment.engine, item.deployment.engine_version) == ("vllm", "0.19.0")
    assert item.deployment.model.name == "Qwen/Qwen3-8B"
    assert item.deployment.serving.max_model_len == 32768


@pytest.mark.parametrize("nested", [False, True])
def test_the_kubeai_models_charts_catalog_entries_are_read_as_models(rules, tmp_path, nested):
    # bahn1075/mykubeai models/values.yaml: an enabled catalog entry of the kubeai/models chart
    # (Qwen2.5-Coder-7B on a T4) passed as "All clear"; the same entry as a Model is an HBM101
    entry = (
        "qwen2.5-coder-7b-t4:\n  enabled: true\n  url: hf://Qwen/Qwen2.5-Coder-7B-Instruct\n"
        "  engine: VLLM\n  args: [--max-model-len=32768, --gpu-memory-utilization=0.9]\n"
        "  resourceProfile: nvidia-gpu-t4:1\n"
        "off-model:\n  enabled: false\n  url: hf://Qwen/Qwen2.5-72B-Instruct\n  engine: VLLM\n"
        "  resourceProfile: nvidia-gpu-t4:1\n"
    )
    indent = "    " if nested else "  "
    head = "models:\n  catalog:\n" if nested else "catalog:\n"
    values = tmp_path / "values.yaml"
    values.write_text(head + "".join(indent + line + "\n" for line in entry.splitlines()))
    result = _lint(values, rules)
    [item] = result.deployments  # the disabled entry is not rendered
    assert item.deployment.name == "qwen2.5-coder-7b-t4"
    [weights] = codes(result, "HBM101")
    assert weights.span.line == _line(values, "url: hf://Qwen/Qwen2.5-Coder-7B-Instruct")


def _take566(tmp_path: Path, inline: bool) -> Path:
    # take566/kubernetes vllm/base + overlays/kubeadm: the base's ConfigMap says opt-125m at
    # 4,096 tokens (longer than the model's 2,048); the overlay patches it to Qwen2.5-1.5B at
    # 8,192, and patches nothing in the Deployment
    base = tmp_path / "base"
    base.mkdir()
    (base / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        "resources: [vllm-configmap.yaml, vllm-deployment.yaml]\n"
    )
    (base / "vllm-configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vllm-config}\ndata:\n"
        '  VLLM_MODEL: "facebook/opt-125m"\n  VLLM_MAX_LEN: "4096"\n'
    )
    (base / "vllm-deployment.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: vllm\n"
        "          image: vllm/vllm-openai:v0.11.0\n          command: [/bin/sh, -c]\n"
        '          args:\n            - >-\n              exec vllm serve "${VLLM_MODEL}"\n'
        '              --max-model-len "${VLLM_MAX_LEN}"\n'
        "          envFrom: [{configMapRef: {name: vllm-config}}]\n"
        "          resources: {limits: {nvidia.com/gpu: '1'}}\n"
    )
    overlay = tmp_path / "overlays" / "kubeadm"
    overlay.mkdir(parents=True)
    patch = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vllm-config}\ndata:\n"
        '  VLLM_MODEL: "Qwen/Qwen2.5-1.5B-Instruct"\n  VLLM_MAX_LEN: "8192"\n'
    )
    head = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    head += "resources: [../../base]\n"
    if inline:
        body = "".join("      " + line + "\n" for line in patch.splitlines())
        (overlay / "kustomization.yaml").write_text(head + "patches:\n  - patch: |-\n" + body)
    else:
        (overlay / "model-patch.yaml").write_text(patch)
        (overlay / "kustomization.yaml").write_text(head + "patches:\n  - path: model-patch.yaml\n")
    return overlay / "kustomization.yaml"


@pytest.mark.parametrize("inline", [False, True])
def test_an_overlay_that_patches_only_the_configmap_is_built(rules, tmp_path, inline):
    # the overlay was not built (it changed nothing of the Deployment), and the base's own
    # values gave a false error (HBM303: opt-125m at 4,096 tokens) for what the overlay deploys
    overlay = _take566(tmp_path, inline)
    result = _lint(overlay, rules, gpu="L4")
    [item] = result.deployments
    assert item.budget.resolved.target.name == "Qwen/Qwen2.5-1.5B-Instruct"
    assert item.deployment.serving.max_model_len == 8192
    assert errors_of(result) == []
    results = lint_paths([tmp_path], rules, LintOptions(default_gpu="L4"))
    found = [f for r in results for f in r.diagnostics]
    assert [f for f in found if f.severity == Severity.ERROR] == []
    for finding in found:
        if finding.code == "HBM303":  # the base read alone, with its own values
            assert finding.severity == Severity.WARNING
            assert "builds on it with values of its own" in finding.message


def test_the_rtx_4000_sff_ada_is_read_as_the_20_gb_card(rules, tmp_path):
    # bitnik/llm-platform's vllm-stack HelmRelease names its "RTX 4000 SFF Ada" in a comment: no
    # hint was given (the card was not in the catalog's names)
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n# one RTX 4000 SFF Ada\n"
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096\n"
    )
    [gpu] = codes(_lint(path, rules), "HBM005")
    assert gpu.fixes[0].startswith("Run with --gpu RTX-4000-Ada-20GB")


def test_an_unknown_kv_dtype_lists_the_engines_own_choices(rules, tmp_path):
    # a patched SGLang build's `--kv-cache-dtype int8ring_int4`: the refusal listed vLLM's
    # dtypes (fp16, turboquant_*) as if SGLang took them
    path = tmp_path / "serve.sh"
    path.write_text(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
        "--kv-cache-dtype int8ring_int4\n"
    )
    [refused] = codes(_lint(path, rules, gpu="H100"), "HBM004")
    assert "any SGLang release takes" in refused.message
    assert "turboquant" not in refused.message and "fp16" not in refused.message


def test_sglang_hisparse_pool_is_not_held_to_the_gpus_share(rules, tmp_path):
    # dw-flyingw/GLM-SGLANG's long-context Dynamo worker: --enable-hisparse keeps part of the pool
    # in host memory (HiSparseTokenToKVPoolAllocator: size x host_to_device_ratio, 2 by default,
    # SGLang 0.5.23), so a 713,600-token GPU pool serves a 1,048,576-token context; was HBM104
    command = (
        "python3 -m sglang.launch_server --model-path zai-org/GLM-5.2-FP8 --tp-size 8 "
        "--kv-cache-dtype fp8_e4m3 --page-size 64 --context-length 1048576 "
        "--mem-fraction-static 0.88{extra}\n"
    )
    path = tmp_path / "serve.sh"
    path.write_text(command.format(extra=" --enable-hisparse"))
    assert codes(_lint(path, rules, gpu="H200"), "HBM104") == []
    path.write_text(command.format(extra=""))
    assert [f.code for f in codes(_lint(path, rules, gpu="H200"), "HBM104")] == ["HBM104"]


def test_a_bases_unknown_model_is_said_once_at_the_overlay(rules, tmp_path):
    # jingggg-wenn's KServe base and its overlays: HBM006 on the base and again on each overlay
    # that builds it, one model; the base's is a note when an overlay of the run builds on it
    shutil.copytree(OVERLAYS, tmp_path / "o")
    base = tmp_path / "o" / "base" / "deployment.yaml"
    text = base.read_text().replace("/gcs/$(MODEL_ID)", "/models/our-own-finetune")
    base.write_text(text.replace("$(TENSOR_PARALLEL_SIZE)", "1"))
    results = lint_paths([tmp_path / "o"], rules, LintOptions())
    [linted] = [r for r in results if r.display.endswith("base/deployment.yaml")]
    [unknown] = codes(linted, "HBM006")
    assert unknown.severity == Severity.INFO and "kustomize base" in unknown.message


def test_a_repository_root_found_above_the_script_reads_its_sourced_file(rules, tmp_path):
    # jpezzulli/sglang-rtxpro6000: REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.."
    # && pwd)" then a file under it; the `/../..` form was not read as the script's folders
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "env.sh").write_text("MODEL=Qwen/Qwen3-8B\nTP=2\n")
    scripts = tmp_path / "scripts" / "serve"
    scripts.mkdir(parents=True)
    script = scripts / "run.sh"
    script.write_text(
        '#!/bin/bash\nREPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"\n'
        'source "$REPO_ROOT/config/env.sh"\nvllm serve "$MODEL" --tensor-parallel-size "$TP"\n'
    )
    [item] = _lint(script, rules, gpu="H100").deployments
    assert item.deployment.model.name == "Qwen/Qwen3-8B"
    assert item.deployment.parallel.tensor == 2


def test_nim_llm_values_take_the_charts_one_gpu_and_flag_resources_under_model(rules, tmp_path):
    # Neutrollized/free-tier-gke nim_custom_value.yaml: `resources` (and persistence) written
    # under `model:`, which the nim-llm chart never reads; with no top-level resources the chart's
    # default, one GPU, applies (was "this NIM is not budgeted")
    values = tmp_path / "nim_custom_value.yaml"
    values.write_text(
        'image:\n  repository: "nvcr.io/nim/google/gemma-3-1b-it"\n  tag: 1.12.0\n'
        "model:\n  ngcAPISecret: ngc-api\n  resources:\n    limits:\n      nvidia.com/gpu: 1\n"
    )
    result = _lint(values, rules, gpu="L4")
    [item] = result.deployments
    assert item.budget.resolved.gpu_count == 1
    [ignored] = codes(result, "HBM016")
    assert ignored.span.line == 6 and "model.resources" in ignored.message
