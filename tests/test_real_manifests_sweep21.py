"""Patterns from public repositories hbmlint had never seen (sweep 21, session 34): each test
names its source and says what a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
SGLANG_ROUTER = REAL / "shell-sglang-router-dp.sh"

COVERED = {SGLANG_ROUTER.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules, gpu: str | None = None):
    return lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))


def test_the_sglang_router_launcher_is_read_as_sglang_replicas(rules):
    # `python -m sglang_router.launch_server --dp-size 4 --tp 2` starts four SGLang servers of
    # two GPUs each behind the router (was read as no deployment at all: "All clear")
    result = _lint(SGLANG_ROUTER, rules, gpu="H200")
    [item] = result.deployments
    deployment = item.deployment
    assert deployment.engine == "sglang"
    assert deployment.model.name == "meta-llama/Llama-3.1-70B-Instruct"
    assert (deployment.parallel.tensor, deployment.parallel.data) == (2, 4)
    assert deployment.locations["model.name"].line == 23
    # a 70B in 16 bits over two 141 GB cards fits: each GPU holds half the weights
    weights = item.budget.weights.to("GiB").magnitude
    assert 60 < weights < 70
    assert codes(result, "HBM101") == []
    # on 40 GB cards half a 70B does not fit
    [too_big] = codes(_lint(SGLANG_ROUTER, rules, gpu="A100-40GB"), "HBM101")
    assert too_big.span.line == 23


DGX_SPARK_IMAGE = REAL / "shell-dgx-spark-image.sh"
GB10_COMPUTED_FRACTION = REAL / "shell-gb10-computed-fraction.sh"
COVERED |= {DGX_SPARK_IMAGE.name, GB10_COMPUTED_FRACTION.name}


def test_an_image_built_for_the_dgx_spark_names_the_gb10(rules, tmp_path):
    # `scitrera/dgx-spark-vllm:0.13.0-t4` runs only on a DGX Spark: the GB10 is taken from it
    # (was HBM005 "names no GPU type"), and with it the unified-memory check holds
    result = _lint(DGX_SPARK_IMAGE, rules)
    assert codes(result, "HBM005") == []
    [item] = result.deployments
    assert item.budget.resolved.gpu.name == "GB10-128GB"
    assert item.deployment.locations["gpu.type"].line == 16  # the image's line
    [fraction] = codes(result, "HBM322")
    assert fraction.span.line == 22
    # the same name in Compose and in a pod spec; "gb10" as a word only (not GB100 / GB200)
    compose = tmp_path / "docker-compose.yml"
    compose.write_text(
        "services:\n  vllm:\n    image: example/vllm-gb10:0.14\n"
        "    command: vllm serve Qwen/Qwen3-8B\n"
        "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all,"
        " capabilities: [gpu]}]}}}\n"
    )
    [item] = _lint(compose, rules).deployments
    assert item.budget.resolved.gpu.name == "GB10-128GB"
    compose.write_text(compose.read_text().replace("vllm-gb10", "vllm-gb100"))
    assert _lint(compose, rules).deployments[0].budget is None  # no GPU named


def test_a_computed_memory_fraction_is_not_judged_on_the_default(rules):
    # the script computes --gpu-memory-utilization "${GMEM}" from free memory and clamps it to
    # at most 0.85: HBM322 on the assumed default (0.92) was a false warning
    result = _lint(GB10_COMPUTED_FRACTION, rules, gpu="GB10")
    assert codes(result, "HBM322") == []
    [unread] = [f for f in codes(result, "HBM011") if "--gpu-memory-utilization" in f.message]
    assert unread.span.line == 54


MIG_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-mig}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "32768"]
        resources:
          limits:
            nvidia.com/mig-1g.10gb: "1"
"""


def test_a_mig_slice_is_budgeted_on_the_card_named_with_gpu(rules, tmp_path):
    # the mixed strategy's nvidia.com/mig-1g.10gb and --gpu A100-80GB: the engine sees the
    # slice's memory, not the card's (was budgeted on the whole 80 GB: "All clear")
    path = tmp_path / "pod.yaml"
    path.write_text(MIG_POD)
    result = _lint(path, rules, gpu="A100-80GB")
    [item] = result.deployments
    assert item.budget.resolved.gpu.name == "A100-SXM4-80GB MIG 1g.10gb"
    [weights] = codes(result, "HBM101")
    assert weights.span.line == 10
    # a CUDA process sees one MIG device: no tensor-parallel size is offered over slices
    assert not any("Raise tensor parallelism" in fix for fix in weights.fixes)


def test_the_mig_managers_single_profile_label_cuts_the_card(rules, tmp_path):
    # akamai-developers/multimodal-kuberay manifests/rayservice-nemotron-parse.yaml: workers
    # pinned to nodes labelled nvidia.com/mig.config all-1g.24gb, each asking for one
    # nvidia.com/gpu (one slice under the single strategy)
    path = tmp_path / "pod.yaml"
    path.write_text(
        MIG_POD.replace("nvidia.com/mig-1g.10gb", "nvidia.com/gpu").replace(
            "      containers:",
            "      nodeSelector: {nvidia.com/mig.config: all-1g.24gb}\n      containers:",
        )
    )
    [item] = _lint(path, rules, gpu="H100").deployments
    assert item.budget.resolved.gpu.name == "H100-SXM-80GB MIG 1g.24gb"
    # all-balanced names no one profile: the card stays whole
    path.write_text(path.read_text().replace("all-1g.24gb", "all-balanced"))
    [item] = _lint(path, rules, gpu="H100").deployments
    assert item.budget.resolved.gpu.name == "H100-SXM-80GB"


SPEC_HEREDOC = REAL / "shell-speculative-config-heredoc.sh"
COVERED |= {SPEC_HEREDOC.name}


def test_a_speculative_config_built_with_cat_heredoc_is_read(rules, tmp_path):
    # SPEC_CONFIG=$(cat <<EOF {"model": "${ASSISTANT_MODEL}", ...} EOF): the JSON, with its
    # variable expanded, is the flag's value (was HBM011 "cannot read", the drafter dropped)
    result = _lint(SPEC_HEREDOC, rules, gpu="H200")
    assert codes(result, "HBM011") == []
    [item] = result.deployments
    spec = item.deployment.speculative
    assert spec.model.name == "google/gemma-4-31B-it-assistant"
    assert spec.num_speculative_tokens == 5
    assert item.budget.draft_weights.to("GiB").magnitude > 0.5
    # a quoted delimiter keeps the body as written: ${ASSISTANT_MODEL} is not expanded
    path = tmp_path / "run.sh"
    path.write_text(SPEC_HEREDOC.read_text().replace("<<EOF", "<<'EOF'"))
    result = _lint(path, rules, gpu="H200")
    assert result.deployments[0].deployment.speculative.model.name == "${ASSISTANT_MODEL}"


V034_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: vllm}
spec:
  containers:
  - name: vllm
    image: vllm/vllm-openai:v0.34.0
    args: ["nvidia/Llama-3.1-70B-Instruct-FP8", "--max-model-len", "32768"]
    resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_vllm_034_sizes_the_kv_cache_from_what_is_free_after_warm_up(rules, tmp_path):
    # vLLM 0.34 with --gpu-memory-utilization unset: the extensible KV cache takes the card
    # (resolved 1.0) less what is in use at start and its margin (was budgeted at 0.92: a false
    # HBM102 for a 70B FP8 on one H100 at 32k, which fits one sequence)
    path = tmp_path / "pod.yaml"
    path.write_text(V034_POD)
    result = _lint(path, rules, gpu="H100")
    assert [f.code for f in result.diagnostics if f.severity.name == "ERROR"] == []
    [item] = result.deployments
    budget = item.budget
    assert budget.settings.memory_fraction == 1.0 and budget.settings.extensible_kv_cache
    # the CUDA context is not free at start; max(1 GiB, 0.75 x the activation peak) is kept free
    assert budget.total.to("GiB").magnitude - budget.usable.to("GiB").magnitude == 0.5
    activation = budget.overhead["activation"].to("GiB").magnitude
    assert budget.overhead["margin"].to("GiB").magnitude == max(1.0, 0.75 * activation)
    assert budget.kv_tokens.magnitude >= 32768
    # 0.33 takes 92% of the card: the same pod refuses there
    path.write_text(V034_POD.replace("v0.34.0", "v0.33.0"))
    [refused] = codes(_lint(path, rules, gpu="H100"), "HBM102")
    assert refused.severity.name == "ERROR"
    # a fraction the manifest sets keeps its meaning (the margin fits in what it leaves free)
    path.write_text(V034_POD.replace('"32768"]', '"32768", "--gpu-memory-utilization", "0.9"]'))
    [item] = _lint(path, rules, gpu="H100").deployments
    assert item.budget.settings.memory_fraction == 0.9
    assert "margin" not in item.budget.overhead


def test_the_unified_memory_check_knows_vllm_034_drops_it(rules, tmp_path):
    # 0.34's extensible KV cache no longer checks the fraction against free memory at start
    path = tmp_path / "serve.sh"
    path.write_text(
        "docker run --gpus all vllm/vllm-openai:v0.34.0 Qwen/Qwen3-8B --max-model-len 8192"
        " --gpu-memory-utilization 0.95\n"
    )
    assert codes(_lint(path, rules, gpu="GB10"), "HBM322") == []
    # with no release named, an older one may run: a warning that says so
    path.write_text("vllm serve Qwen/Qwen3-8B --max-model-len 8192 --gpu-memory-utilization 0.95\n")
    [fraction] = codes(_lint(path, rules, gpu="GB10"), "HBM322")
    assert "before 0.34" in fraction.message and "names no release" in fraction.message
    # and with the fraction unset, the default older releases take (0.92)
    path.write_text("vllm serve Qwen/Qwen3-8B --max-model-len 8192\n")
    [fraction] = codes(_lint(path, rules, gpu="GB10"), "HBM322")
    assert "not set" in fraction.message and "0.92" in fraction.message


AWQ_UNQUANTIZED = REAL / "refused" / "kserve-awq-flag-unquantized.yaml"
COVERED |= {"refused/" + AWQ_UNQUANTIZED.name}


def test_an_awq_flag_on_an_unquantized_checkpoint_is_a_refusal(rules, tmp_path):
    # --quantization=awq on mistralai/Mistral-7B-Instruct-v0.2: vLLM finds no AWQ config and
    # refuses ("Cannot find the config file for awq"); was "All clear", the weights at 4 bits
    result = _lint(AWQ_UNQUANTIZED, rules)
    [refused] = codes(result, "HBM309")
    assert refused.severity.name == "ERROR"
    assert "Cannot find the config file for awq" in refused.message
    assert refused.span.line == 16
    # fp8 quantizes such a checkpoint while it loads: no finding
    path = tmp_path / "isvc.yaml"
    path.write_text(AWQ_UNQUANTIZED.read_text().replace("--quantization=awq", "--quantization=fp8"))
    assert codes(_lint(path, rules), "HBM309") == []
    # a local directory taken for the model by its name may hold an AWQ export: not judged
    path.write_text(
        AWQ_UNQUANTIZED.read_text().replace(
            "--model=mistralai/Mistral-7B-Instruct-v0.2", "--model=/models/Mistral-7B-Instruct-v0.2"
        )
    )
    assert codes(_lint(path, rules), "HBM309") == []


OVERLAY_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: inference-server
          image: vllm/vllm-openai:v0.11.0
          command: [python3, -m, vllm.entrypoints.openai.api_server]
          args: ["--model=$(MODEL_ID)", "--max-model-len=$(MAX_MODEL_LEN)"]
          env:
            - name: MODEL_ID
              valueFrom: {configMapKeyRef: {key: MODEL_ID, name: runtime}}
            - name: MAX_MODEL_LEN
              valueFrom: {configMapKeyRef: {key: MAX_MODEL_LEN, name: runtime}}
"""
OVERLAY_CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {{name: runtime}}
data: {{MODEL_ID: {model}, MAX_MODEL_LEN: "{length}"}}
"""


def _overlays(root: Path, first: str, second: str) -> None:
    (root / "base").mkdir(parents=True)
    (root / "base" / "deployment.yaml").write_text(OVERLAY_DEPLOYMENT)
    overlays = ((first, "Qwen/Qwen3-32B", 32768), (second, "Qwen/Qwen3-8B", 1024))
    for overlay, model, length in overlays:
        (root / "overlays" / overlay).mkdir(parents=True)
        text = OVERLAY_CONFIGMAP.format(model=model, length=length)
        (root / "overlays" / overlay / "cm.yaml").write_text(text)


def test_a_configmap_each_overlay_defines_differently_is_not_picked_by_file_order(rules, tmp_path):
    # GoogleCloudPlatform/accelerated-platforms: every overlay of online-inference-gpu/vllm
    # defines ConfigMap `runtime`; the base's Deployment read whichever came last, so renaming
    # an overlay's folder turned "All clear" into HBM105
    from hbmlint.lint import lint_paths

    said = []
    for first, second in (("a-h100", "b-l4"), ("b-h100", "a-l4")):
        root = tmp_path / first
        _overlays(root, first, second)
        results = lint_paths([str(root)], rules, LintOptions(default_gpu="H100"))
        [base] = [r for r in results if r.display.endswith("deployment.yaml")]
        assert base.deployments == []  # the model is not guessed from either overlay
        [model] = [f for f in base.diagnostics if "--model" in f.message]
        assert "several files" in model.message and model.code == "HBM011"
        said.append(sorted((f.code, f.span.line) for f in base.diagnostics))
    assert said[0] == said[1]
    # one overlay's files alone: its ConfigMap is read
    root = tmp_path / "one"
    _overlays(root, "h100", "l4")
    results = lint_paths([str(root / "base"), str(root / "overlays" / "l4")], rules)
    [base] = [r for r in results if r.display.endswith("deployment.yaml")]
    assert base.deployments[0].deployment.model.name == "Qwen/Qwen3-8B"


def test_sglang_decode_context_parallelism_spreads_a_sequence_over_its_ranks(rules, tmp_path):
    # whn09/kimi-k3-sglang start_decode.sh: --tp-size 8 --dcp-size 8 --context-length 1048576;
    # SGLang's pool holds max_total_num_tokens x 8 (0.5.23 kv_cache_configurator.py): a 1M-token
    # context fits (was HBM104, --dcp-size not read)
    script = (
        "python3 -m sglang.launch_server --model-path moonshotai/Kimi-K3 --trust-remote-code"
        " --tp-size 8 --dcp-size 8 --context-length 1048576 --mem-fraction-static 0.85\n"
    )
    path = tmp_path / "start_decode.sh"
    path.write_text(script)
    result = _lint(path, rules, gpu="B300")
    assert result.deployments[0].deployment.parallel.decode_context == 8
    assert codes(result, "HBM104") == []
    # without it, one rank's pool is short of the context
    path.write_text(script.replace(" --dcp-size 8", ""))
    assert len(codes(_lint(path, rules, gpu="B300"), "HBM104")) == 1


IMAGE_FROM_DOTENV = REAL / "compose-image-from-dotenv" / "docker-compose.yml"
CPU_BACKEND = REAL / "shell-vllm-cpu-backend-env.sh"
TAG_AND_PUSH = REAL / "shell-docker-tag-push.sh"
COVERED |= {"compose-image-from-dotenv/docker-compose.yml", CPU_BACKEND.name, TAG_AND_PUSH.name}


def test_a_compose_image_set_in_dotenv_is_read(rules, tmp_path):
    # `image: ${VLLM_IMAGE}` with VLLM_IMAGE=vllm/vllm-openai:v0.8.5 in .env (was skipped: "All
    # clear, 0 deployments")
    [item] = _lint(IMAGE_FROM_DOTENV, rules, gpu="H100").deployments
    assert item.deployment.engine == "vllm" and item.deployment.engine_version == "0.8.5"
    assert item.deployment.model.name == "Qwen/Qwen3-14B"
    # with no .env, it says the image is not known
    path = tmp_path / "docker-compose.yml"
    path.write_text(IMAGE_FROM_DOTENV.read_text())
    result = _lint(path, rules)
    [unread] = codes(result, "HBM011")
    assert "${VLLM_IMAGE}" in unread.message and unread.span.line == 4
    assert result.deployments == []


def test_vllms_cpu_backend_variables_say_the_engine_runs_on_the_cpu(rules):
    # VLLM_CPU_KVCACHE_SPACE (vLLM's own CPU CI scripts): an info, not "names no GPU type"
    result = _lint(CPU_BACKEND, rules)
    assert codes(result, "HBM005") == []
    [cpu] = codes(result, "HBM014")
    assert "CPU" in cpu.message and cpu.span.line == 3


def test_an_image_tagged_and_pushed_is_not_an_engine_run(rules):
    # vLLM's release scripts: `docker tag ... vllm/vllm-openai:x86_64`, `docker push`, and the
    # Docker Hub tags URL (was an HBM014 "runs an inference engine" notice)
    result = _lint(TAG_AND_PUSH, rules)
    assert result.diagnostics == [] and result.deployments == []


SERVED_NAME_COMPOSE = """\
services:
  model:
    image: vllm/vllm-openai:v0.17.1
    entrypoint: [python3, -m, vllm.entrypoints.openai.api_server]
    command:
      - --model=/model
      - --served-model-name=Qwen3.5-2B
      - --max-model-len=65536
    deploy:
      resources: {reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}
"""


def test_a_served_name_without_its_org_fills_in_the_mapping_to_confirm(rules, tmp_path):
    # tanphong-sudo/qwen35-serving-contest: `--model=/model --served-model-name=Qwen3.5-2B`;
    # the served name is an alias, not taken for the checkpoint (an AWQ copy may be served so),
    # but the one catalog model of that name fills in the mapping (was "map it to ORG/NAME")
    path = tmp_path / "compose.yml"
    path.write_text(SERVED_NAME_COMPOSE)
    [unknown] = codes(_lint(path, rules, gpu="L4"), "HBM006")
    assert "served as 'Qwen3.5-2B'" in unknown.message
    assert "model-paths: {/model: Qwen/Qwen3.5-2B} if it holds that checkpoint" in unknown.message
    # a served name the catalog does not know leaves the placeholder
    path.write_text(SERVED_NAME_COMPOSE.replace("Qwen3.5-2B", "my-assistant"))
    [unknown] = codes(_lint(path, rules, gpu="L4"), "HBM006")
    assert "model-paths: {/model: ORG/NAME}" in unknown.message


SCRIPT_DIR_START = """\
#!/usr/bin/env bash
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$SCRIPT_DIR/config.sh"
vllm serve "$MODEL_ID" \\
  --tensor-parallel-size "$TP_SIZE" \\
  --pipeline-parallel-size "$PP_SIZE" \\
  --max-model-len "$MAX_MODEL_LEN"
"""
SCRIPT_DIR_CONFIG = """\
#!/usr/bin/env bash
export MODEL_ID="${MODEL_ID:-Qwen/Qwen3.5-35B-A3B}"
export TP_SIZE="${TP_SIZE:-8}"
export PP_SIZE="${PP_SIZE:-2}"
export MAX_MODEL_LEN="${MAX_MODEL_LEN:-262144}"
"""


def test_a_file_sourced_from_the_scripts_own_folder_is_read(rules, tmp_path):
    # tasd12-ty/qwen35-vllm-ray-deploy start_vllm_qwen35.sh: SCRIPT_DIR="$(cd "$(dirname
    # "${BASH_SOURCE[0]}")" && pwd)"; source "$SCRIPT_DIR/config.sh" (was HBM011 on every value)
    (tmp_path / "config.sh").write_text(SCRIPT_DIR_CONFIG)
    start = tmp_path / "start.sh"
    for idiom in (
        '"$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
        '$(dirname "$0")',
        '"$(dirname "$(readlink -f "$0")")"',
        '"$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &> /dev/null && pwd)"',
    ):
        start.write_text(
            SCRIPT_DIR_START.replace('"$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"', idiom)
        )
        result = _lint(start, rules, gpu="H100")
        assert codes(result, "HBM011") == [], idiom
        [item] = result.deployments
        deployment = item.deployment
        assert deployment.model.name == "Qwen/Qwen3.5-35B-A3B"
        assert (deployment.parallel.tensor, deployment.parallel.pipeline) == (8, 2)
    # a folder above the script's is not its own: unread, as before
    start.write_text(
        SCRIPT_DIR_START.replace(
            '"$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"', '"$(cd "$(dirname "$0")/.." && pwd)"'
        )
    )
    assert codes(_lint(start, rules, gpu="H100"), "HBM011")
