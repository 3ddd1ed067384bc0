"""Patterns from public repositories hbmlint had never seen (sweep 18, 2026 deployments): each
fixture under tests/fixtures/real/ names its source in its first lines; each test says what a
user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of, lint

from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"

RAY_LEADER = REAL / "pod-ray-multinode-serving-leader.yaml"
HF_CACHE = REAL / "shell-hf-cache-snapshot-path.sh"
ORG_HYPHEN = REAL / "shell-flattened-org-hyphen-path.sh"
BRANCH_FLAGS = REAL / "compose-entrypoint-branch-flags-array.yml"
ROCM_ENV = REAL / "shell-rocm-aiter-env.sh"
SHIFT = REAL / "shell-function-shift-args.sh"
DOCKER_NAME = REAL / "shell-docker-run-name-like-image.sh"

COVERED = {RAY_LEADER.name, HF_CACHE.name, ORG_HYPHEN.name, BRANCH_FLAGS.name, ROCM_ENV.name}
AIBRIX_AMD = REAL / "aibrix-rayclusterfleet-amd.yaml"

NIM_SUBCHART = REAL / "nim-llm-subchart-values.yaml"

KSERVE_NIM = REAL / "kserve-nim-runtime"
COMMENT_ENDS = REAL / "shell-comment-ends-docker-run.sh"
DLC_SIZES = REAL / "k8s-vllm-dlc-cudagraph-sizes.yaml"
# manifests the engine really refuses (test_startup_rules holds the others to no HBM3xx error)
OLD_T4 = REAL / "refused" / "k8s-vllm-043-t4-bf16-auto.yaml"

COVERED |= {SHIFT.name, DOCKER_NAME.name, AIBRIX_AMD.name, NIM_SUBCHART.name, COMMENT_ENDS.name}
ANYSCALE = REAL / "anyscale-service-own-code.yaml"
COVERED |= {DLC_SIZES.name, f"refused/{OLD_T4.name}", ANYSCALE.name}
COVERED |= {f"kserve-nim-runtime/{name}" for name in ("runtime.yaml", "inferenceservice.yaml")}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _budgets(path: Path, rules, gpu: str):
    result = lint_file(path, path.name, rules, LintOptions(default_gpu=gpu, keep_budgets=True))
    return result, [item.budget for item in result.deployments]


def test_a_ray_leader_waiting_for_two_nodes_spans_both_pods_gpus(rules):
    # was HBM007 "8 GPUs requested but tensor x pipeline parallelism is 16": vLLM's
    # multi-node-serving.sh leader waits for --ray_cluster_size nodes before vllm serve runs
    result, [budget] = _budgets(RAY_LEADER, rules, "H100")
    assert errors(result) == []
    assert codes(result, "HBM011") == []
    assert budget.resolved.deployment.gpu.count == 16


def test_a_cluster_too_small_for_the_parallelism_is_left_unchecked_not_refused(rules, tmp_path):
    path = tmp_path / RAY_LEADER.name
    path.write_text(RAY_LEADER.read_text().replace("--ray_cluster_size=2", "--ray_cluster_size=1"))
    result = lint(path, rules, gpu="H100")
    assert errors(result) == []
    [note] = codes(result, "HBM011")
    assert "Ray cluster" in note.message and "not checked" in note.message


def test_a_hugging_face_cache_snapshot_names_the_model_to_fetch(rules):
    # was HBM006 "a local path hbmlint cannot identify": the cache directory is the repository's
    # id, so an offline run says which model to pull (the catalog lacks this one)
    result = lint(HF_CACHE, rules, gpu="H100")
    assert codes(result, "HBM006") == []
    [not_fetched] = codes(result, "HBM015")
    assert "hbmlint models pull mistralai/Mistral-Large-Instruct-2411" in not_fetched.message
    assert not_fetched.span.line == line_of(HF_CACHE, 'vllm serve "$MODEL"')


def test_a_directory_named_org_hyphen_name_is_that_catalog_model(rules):
    # was HBM006 with "did you mean google/gemma-4-31B-it"
    result, [budget] = _budgets(ORG_HYPHEN, rules, "RTX-PRO-6000")
    assert codes(result, "HBM006") == []
    assert budget.resolved.target.name == "google/gemma-4-31B-it"
    assert "google-gemma-4-31B-it" in budget.assumed["model"]


def test_a_hyphen_inside_a_name_is_not_read_as_an_organisation(rules, tmp_path):
    # 'my-Qwen2.5-7B-Instruct' is no Qwen id: the organisation must be the catalog model's own
    path = tmp_path / "run.sh"
    path.write_text(
        ORG_HYPHEN.read_text().replace("google-gemma-4-31B-it", "my-Qwen2.5-7B-Instruct")
    )
    result = lint(path, rules, gpu="RTX-PRO-6000")
    assert [f.code for f in result.diagnostics] == ["HBM006"]


def test_an_array_of_flags_set_in_a_branch_is_not_the_positional_model(rules):
    # was "the model is ${SPEC_ARGS[@]}, which hbmlint cannot read": the deployment unchecked
    result, [budget] = _budgets(BRANCH_FLAGS, rules, "RTX-3090")
    assert budget.resolved.target.name == "Qwen/Qwen3-8B"
    [note] = codes(result, "HBM011")
    assert "flags or nothing" in note.message and "not checked" in note.message
    assert note.span.line == line_of(BRANCH_FLAGS, "SPEC_ARGS=(--speculative-config")


def test_an_array_that_may_hold_a_model_word_still_may_be_the_model(rules, tmp_path):
    path = tmp_path / BRANCH_FLAGS.name
    lines = BRANCH_FLAGS.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "SPEC_ARGS=(--speculative-config" in line)
    lines[at] = "          SPEC_ARGS=(Qwen/Qwen3-14B)\n"
    text = "".join(lines)
    assert "Qwen/Qwen3-14B" in text
    path.write_text(text)
    result = lint(path, rules, gpu="RTX-3090")
    assert result.deployments == []
    [note] = codes(result, "HBM011")
    assert "the model is ${SPEC_ARGS[@]}" in note.message


def test_rocm_settings_say_the_script_runs_on_amd_gpus(rules):
    # with --gpu H100 it was budgeted on eight NVIDIA cards
    result = lint(ROCM_ENV, rules, gpu="H100")
    assert result.deployments[0].budget is None
    [unknown] = codes(result, "HBM005")
    assert "VLLM_ROCM_USE_AITER=1 (a ROCm setting)" in unknown.message
    assert "MI300X" in unknown.message
    assert unknown.span.line == line_of(ROCM_ENV, "VLLM_ROCM_USE_AITER=1")
    # on the AMD card it names, the deployment is checked (Llama 3.1 70B at TP 8 fits)
    assert lint(ROCM_ENV, rules, gpu="MI300X").diagnostics == []


def test_rocm_settings_beside_cuda_devices_are_a_script_for_both(rules, tmp_path):
    path = tmp_path / "both.sh"
    path.write_text(
        ROCM_ENV.read_text().replace(
            "export HSA_", "export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\nexport HSA_"
        )
    )
    result = lint(path, rules, gpu="H100")
    assert codes(result, "HBM005") == []
    assert result.deployments[0].budget is not None


def test_a_function_that_shifts_its_arguments_reads_them_as_they_are_after_it(rules):
    # was HBM004 "'0,1,2' is not a whole number" (an error): $1 after `shift` is the call's
    # second word, not its first. Then it was unknown (an HBM011 info); with the shift run once
    # before it, `local tp="$1"` is the call's second word, "2", and `local gpus="$1"` before
    # the shift the first (tests/test_shell_function_library.py reads the same through layers)
    result = lint(SHIFT, rules, gpu="H100")
    assert errors(result) == []
    assert codes(result, "HBM004") == [] and codes(result, "HBM011") == []
    [deployment] = result.deployments
    assert deployment.deployment.parallel.tensor == 2
    assert deployment.deployment.model.name == "Qwen/Qwen3-32B"
    assert deployment.deployment.gpu.count == 3  # CUDA_VISIBLE_DEVICES=0,1,2


def test_a_container_name_like_the_image_is_not_the_image(rules):
    # was: the model is 'vllm/vllm-openai:v0.11.0' (HBM006), the deployment unchecked
    result, [budget] = _budgets(DOCKER_NAME, rules, "L40S")
    assert budget.resolved.target.name == "meta-llama/Llama-3.1-8B-Instruct"
    assert budget.resolved.deployment.engine_version == "0.11.0"
    assert result.diagnostics == []


def test_a_ray_cluster_on_amd_gpus_is_not_budgeted_on_an_nvidia_default(rules):
    # with --gpu H100 it was budgeted as 2 x H100
    result = lint(AIBRIX_AMD, rules, gpu="H100")
    assert result.deployments[0].budget is None
    [unknown] = codes(result, "HBM005")
    assert "amd.com/gpu" in unknown.message and "MI300X" in unknown.message
    _, [budget] = _budgets(AIBRIX_AMD, rules, "MI300X")
    assert budget.resolved.gpu.name.startswith("MI300X")
    assert budget.resolved.deployment.gpu.count == 2


def test_nim_llm_values_under_an_umbrella_charts_key_are_read(rules, tmp_path):
    # was "not a manifest": nothing checked
    result, [budget] = _budgets(NIM_SUBCHART, rules, "H100")
    deployment = budget.resolved.deployment
    assert deployment.name == "nim-llm"
    assert budget.resolved.target.name == "meta-llama/Llama-3.1-8B-Instruct"
    assert budget.resolved.gpu.name.startswith("L4")
    assert deployment.gpu.count == 1
    # a subchart switched off runs nothing
    path = tmp_path / NIM_SUBCHART.name
    path.write_text(NIM_SUBCHART.read_text().replace("enabled: true", "enabled: false", 1))
    off = lint(path, rules, gpu="H100")
    assert off.deployments == [] and off.diagnostics == []


def test_an_inferenceservice_on_a_nim_runtime_of_the_run_is_budgeted(cli):
    # was "No deployments found": the NIM image is the runtime's, the GPUs the service's
    run = cli("budget", "--format", "json", KSERVE_NIM)
    assert run.exit_code == 0, run.output
    [entry] = run.json()
    assert entry["name"] == "llama3-70b-instruct-4xh100"
    assert entry["engine"] == "trtllm"  # no profile pinned: the least any profile needs
    assert (entry["gpu"], entry["gpu_count"], entry["tensor_parallel"]) == ("H100-SXM-80GB", 4, 4)
    assert entry["max_model_len"] == 8192
    assert cli("--format", "json", KSERVE_NIM).json() == []


def test_alone_the_service_says_its_nim_runtime_is_elsewhere(cli):
    run = cli("--format", "json", KSERVE_NIM / "inferenceservice.yaml")
    [note] = run.json()
    assert note["code"] == "HBM014" and note["severity"] == "info"
    assert "nvidia-nim-llama3-70b-instruct-1.0.0" in note["message"]
    assert note["line"] == line_of(KSERVE_NIM / "inferenceservice.yaml", "runtime: nvidia-nim")


def test_a_comment_ending_in_a_backslash_ends_the_engine_command(rules):
    # was only HBM014 "finds no engine command line": the script's bug itself, at the comment
    result = lint(COMMENT_ENDS, rules)
    [warning] = codes(result, "HBM017")
    assert warning.severity.name == "WARNING"
    assert warning.span.line == line_of(COMMENT_ENDS, "# required: host networking")
    assert "--shm-size=32g" in warning.message and "never reach the engine" in warning.message
    # the array's comment ending in a backslash ends nothing: no finding there
    assert all(f.span.line != line_of(COMMENT_ENDS, "# a bash array") for f in result.diagnostics)


def test_comments_on_their_own_lines_and_here_documents_are_not_flagged(rules, tmp_path):
    fixed = COMMENT_ENDS.read_text().replace(
        "  --network host   # required: host networking for NCCL \\\n",
        "  --network host \\\n",
    )
    assert "# required" not in fixed
    body = "cat > notes.txt <<EOF\nvllm serve x \\\n  --a 1  # not a command \\\n  --b 2\nEOF\n"
    path = tmp_path / "run.sh"
    path.write_text(fixed + body)
    result = lint(path, rules, gpu="L40S")
    assert codes(result, "HBM017") == []
    [deployment] = result.deployments
    assert deployment.budget.resolved.target.name == "Qwen/Qwen3-8B"


def test_every_cudagraph_capture_size_is_the_flags_and_the_dlc_tag_names_the_release(rules):
    # was HBM006 "model '2' is a local path": the flag takes several values (nargs="+")
    result, [budget] = _budgets(DLC_SIZES, rules, "H100")
    assert codes(result, "HBM006") == []
    assert budget.resolved.target.name == "Qwen/Qwen2.5-7B-Instruct"
    # AWS's tag names the 0.13 line (was: the newest release assumed)
    assert budget.resolved.deployment.engine_version == "0.13"
    assert budget.resolved.gpu.name.startswith("L4")  # g6.2xlarge


def test_an_old_vllm_keeps_a_bfloat16_checkpoint_on_a_t4_and_refuses(rules, tmp_path):
    # missed before: HBM306 judged only an explicit --dtype bfloat16
    result = lint(OLD_T4, rules)
    [error] = [f for f in result.diagnostics if f.code == "HBM327"]
    assert error.severity.name == "ERROR"
    assert error.span.line == line_of(OLD_T4, "- --model")
    # from 0.8.5 vLLM falls back to float16; --dtype half never needed the fallback
    for old, new in (("v0.4.3", "v0.9.0"), ('- "4096"', '- "4096"\n            - --dtype=half')):
        path = tmp_path / f"{len(old)}.yaml"
        path.write_text(OLD_T4.read_text().replace(old, new))
        assert errors(lint(path, rules)) == []


def test_a_variable_set_to_flags_or_nothing_in_branches_is_not_the_model(rules, tmp_path):
    # kEnder242/HomeLabAI src/start_vllm.sh: `LORA_ARGS="--enable-lora ..."` or `LORA_ARGS=""`,
    # then `... --model X $LORA_ARGS` (was "the model is $LORA_ARGS", unchecked)
    path = tmp_path / "start_vllm.sh"
    path.write_text(
        "#!/bin/bash\n"
        'if [ -n "$ADAPTERS" ]; then\n'
        '    LORA_ARGS="--enable-lora --max-loras 4"\n'
        "else\n"
        '    LORA_ARGS=""\n'
        "fi\n"
        "python3 -m vllm.entrypoints.openai.api_server \\\n"
        "    --model Qwen/Qwen2.5-7B-Instruct \\\n"
        "    --max-model-len 8192 \\\n"
        "    $LORA_ARGS\n"
    )
    result, [budget] = _budgets(path, rules, "L40S")
    assert budget.resolved.target.name == "Qwen/Qwen2.5-7B-Instruct"
    [note] = codes(result, "HBM011")
    assert "flags or nothing" in note.message and note.span.line == 10


def test_an_anyscale_service_running_its_own_serve_code_says_it_is_not_read(rules):
    # was silent ("All clear ... 0 deployments") though its image serves a model
    result = lint(ANYSCALE, rules)
    [note] = result.diagnostics
    assert note.code == "HBM014" and "import_path serve_qwen:app" in note.message
    assert note.span.line == line_of(ANYSCALE, "import_path: serve_qwen:app")


def test_sglangs_aiter_switch_says_the_script_runs_on_amd_gpus(rules, tmp_path):
    # alexsun07/recipe sglang_pd_disagg_mooncake/start_prefill.sh: DeepSeek-R1 at TP 8 with
    # SGLANG_USE_AITER=1 (MI300X); under --gpu H100 it was four HBM101 errors
    path = tmp_path / "start_prefill.sh"
    path.write_text(
        "#!/bin/bash\nexport SGLANG_USE_AITER=1\n"
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \\\n"
        "  --mem-fraction-static 0.5\n"
    )
    result = lint(path, rules, gpu="H100")
    assert errors(result) == []
    [unknown] = codes(result, "HBM005")
    assert "SGLANG_USE_AITER=1 (a ROCm setting)" in unknown.message


def test_an_unreadable_kv_cache_bytes_leaves_the_memory_fraction_unjudged(rules, tmp_path):
    # flash7777's optimize_and_serve.sh: `--gpu-memory-utilization 0.05 --kv-cache-memory-bytes
    # "$KV"`, $KV set in an if/else; vLLM takes the bytes and no fraction (was HBM101 "the engine
    # may use 3.96 GiB (5.0% ...)")
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        'if [ "$1" = "--big" ]; then KV=8G; else KV=3G; fi\n'
        "vllm serve Qwen/Qwen3-32B --gpu-memory-utilization 0.05 "
        '--kv-cache-memory-bytes "$KV" --max-model-len 32768\n'
    )
    result = lint(path, rules, gpu="H100")
    assert [f.code for f in result.diagnostics] == ["HBM011"]
    assert "--kv-cache-memory-bytes" in result.diagnostics[0].message


def test_an_error_resting_on_a_guessed_quantization_layout_is_a_warning(rules, tmp_path):
    # darksidewalker/darksidewalker-qwen36-27b-nvfp4-5090 scripts/go.sh: unsloth's Qwen3.6-27B
    # NVFP4 export, sized from its name with NVIDIA's layout (attention in FP8) as a guess, at
    # 262,144 tokens on one RTX 5090, which the repository serves (was an HBM102 error)
    path = tmp_path / "go.sh"
    path.write_text(
        "#!/bin/bash\nvllm serve unsloth/Qwen3.6-27B-NVFP4 --max-model-len 262144 "
        "--gpu-memory-utilization 0.92 --max-num-seqs 4 --kv-cache-dtype fp8\n"
    )
    result = lint(path, rules, gpu="RTX-5090")
    assert errors(result) == []
    [warning] = codes(result, "HBM102")
    assert warning.severity.name == "WARNING" and "a guess" in warning.message


def test_a_speculative_config_with_one_unreadable_value_keeps_its_drafter(rules, tmp_path):
    # ozskywalker / flash7777 scripts: `"num_speculative_tokens":'"$NST"'` made the whole JSON
    # unread, and the drafter silently left out of the budget
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\nNST=$(cat nst.txt)\n"
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --speculative-config "
        '\'{"model":"meta-llama/Llama-3.2-1B-Instruct","num_speculative_tokens":\'"$NST"\'}\'\n'
    )
    result, [budget] = _budgets(path, rules, "L4")
    assert budget.resolved.draft is not None
    assert budget.resolved.draft.name == "meta-llama/Llama-3.2-1B-Instruct"
    assert float(budget.draft_weights.to("GiB").magnitude) > 2
    [note] = codes(result, "HBM011")
    assert "num_speculative_tokens" in note.message and "taken as 1" in note.message
    # the script's own argument, written in the JSON itself, likewise
    path.write_text(path.read_text().replace("NST=$(cat nst.txt)\n", "").replace("$NST", "$1"))
    result, [budget] = _budgets(path, rules, "L4")
    assert budget.resolved.draft is not None
    assert budget.deployment.speculative.num_speculative_tokens == 1
    # the method or the model unreadable: nothing of the drafter is guessed
    path.write_text(path.read_text().replace("meta-llama/Llama-3.2-1B-Instruct", "$DRAFT"))
    _, [unread] = _budgets(path, rules, "L4")
    assert unread.resolved.draft is None


def test_a_commented_out_option_line_ends_the_command_too(rules, tmp_path):
    # tutu329/server-install ds-r1z-671b-8.sh: `# --enable-torch-compile ... \` between the
    # options of an SGLang command; the NEXTN drafter's flags after it never reach the engine
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n"
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 \\\n"
        "--trust-remote-code \\\n"
        "# --enable-torch-compile \\\n"
        "--speculative-algorithm NEXTN \\\n"
        "--speculative-num-steps 2\n"
    )
    [warning] = codes(lint(path, rules, gpu="H200"), "HBM017")
    assert (warning.span.line, warning.span.column) == (4, 1)
    assert "--speculative-algorithm" in warning.message
