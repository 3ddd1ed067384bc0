"""The GPUs a Slurm batch script's #SBATCH directives request (formats/slurm.py), as forms seen
in public job scripts write them (the sweep of session 30: KempnerInstitute, open-r1,
uw-swag, SURF and university clusters' scripts)."""

from __future__ import annotations

import pytest

from hbmlint.formats.slurm import job_of


@pytest.mark.parametrize(
    ("directives", "gpu_type", "per_node", "nodes"),
    [
        ("#SBATCH --gres=gpu:4", None, 4, 1),
        ("#SBATCH --gres=gpu:h100:2", "h100", 2, 1),
        ("#SBATCH --gres=gpu:nvidia_h200:4\n#SBATCH --nodes=2", "nvidia_h200", 4, 2),
        ("#SBATCH --gres=gpu:A100_40GB:1", "A100_40GB", 1, 1),
        ("#SBATCH --gres gpu:2", None, 2, 1),
        ("#SBATCH --gres=gpu", None, 1, 1),
        ("#SBATCH --gpus-per-node=4 # per node\n#SBATCH -N 4", None, 4, 4),
        ("#SBATCH --gpus=l40s:2", "l40s", 2, 1),
        ('#SBATCH --constraint="h100"\n#SBATCH --gpus-per-node=4', "h100", 4, 1),
        # a site's own feature names no GPU the catalog knows: left for --gpu
        ("#SBATCH --constraint=gpu80\n#SBATCH --gres=gpu:1", None, 1, 1),
        # GPUs per task, times the tasks of a node (sweep of session 32: HPC launchers)
        ("#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-task=1\n#SBATCH -C a100", "a100", 4, 1),
        ("#SBATCH --ntasks=2\n#SBATCH --gpus-per-task=h100:2", "h100", 4, 1),
        ("#SBATCH --gpus-per-task=1", None, 1, 1),
    ],
)
def test_the_directives_people_write(directives, gpu_type, per_node, nodes):
    job = job_of("#!/bin/bash\n" + directives + "\n\nvllm serve Qwen/Qwen3-8B\n")
    assert job is not None
    assert (job.gpu_type, job.per_node, job.nodes) == (gpu_type, per_node, nodes)


def test_directives_after_the_first_command_are_not_read():
    # sbatch stops at the first line that is neither a comment nor blank
    assert job_of("#!/bin/bash\nmodule load cuda\n#SBATCH --gres=gpu:4\n") is None


def test_the_jobs_shell_gets_slurms_variables():
    job = job_of("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\n")
    assert job is not None
    assert job.environment() == {
        "SLURM_NNODES": "2",
        "SLURM_JOB_NUM_NODES": "2",
        "SLURM_GPUS_ON_NODE": "8",
        "SLURM_GPUS_PER_NODE": "8",
    }


def _lint_script(tmp_path, text: str):
    from hbmlint.lint import LintOptions, lint_file
    from hbmlint.rules import load_rules

    rules, _ = load_rules()
    path = tmp_path / "job.sbatch"
    path.write_text(text)
    return lint_file(path, path.name, rules, LintOptions())


def test_an_engine_larger_than_the_whole_job_is_an_error_at_the_gpu_request(tmp_path):
    # TP 8 x PP 2 over Ray on a job of 2 nodes x 4 GPUs: 8 GPUs in all (was said nothing)
    job = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:h100:4\n"
    serve = "vllm serve meta-llama/Llama-3.1-8B-Instruct --distributed-executor-backend ray "
    result = _lint_script(
        tmp_path, job + serve + "--tensor-parallel-size 8 --pipeline-parallel-size 2\n"
    )
    [short] = [f for f in result.diagnostics if f.code == "HBM007"]
    assert short.severity.name == "ERROR" and short.span.line == 3
    assert "on its 2 nodes" in short.message and "= 16" in short.message
    # one that fits the job's 8 GPUs (over both nodes) is not told anything about them
    result = _lint_script(
        tmp_path, job + serve + "--tensor-parallel-size 4 --pipeline-parallel-size 2\n"
    )
    assert [f for f in result.diagnostics if f.code == "HBM007"] == []
    assert result.deployments[0].deployment.gpu.count == 8


def test_tasks_that_hold_fewer_gpus_than_the_engine_needs_is_an_error(tmp_path):
    text = (
        "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-task=1\n"
        "#SBATCH -C a100\nvllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 8\n"
    )
    [short] = [f for f in _lint_script(tmp_path, text).diagnostics if f.code == "HBM007"]
    assert short.severity.name == "ERROR" and short.message.startswith("4 GPUs requested")


def test_a_constraint_for_80_gb_makes_a_bare_a100_the_80_gb_card():
    job = job_of("#!/bin/bash\n#SBATCH -G A100:4\n#SBATCH --constraint=80gb\n")
    assert job is not None and job.gpu_type == "A100-SXM4-80GB"
    job = job_of("#!/bin/bash\n#SBATCH --gres=gpu:a100:4\n#SBATCH -C 'a100&hbm80g'\n")
    assert job is not None and job.gpu_type == "A100-SXM4-80GB"
    job = job_of("#!/bin/bash\n#SBATCH --gres=gpu:a100:4\n")
    assert job is not None and job.gpu_type == "a100"  # the 40 GB card unless said


def test_a_pbs_select_chunk_gives_the_gpus_of_each_node(tmp_path):
    text = (
        "#!/bin/bash\n#PBS -l select=1:ncpus=32:ngpus=4\n#PBS -q gpu\n"
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 8\n"
    )
    job = job_of(text)
    assert job is not None and (job.nodes, job.per_node) == (1, 4)
    [short] = [f for f in _lint_script(tmp_path, text).diagnostics if f.code == "HBM007"]
    assert short.severity.name == "ERROR" and "requested by the PBS job" in short.message


def test_an_intel_gpu_job_is_not_budgeted(tmp_path):
    # Aurora's vLLM jobs set Level Zero's device hierarchy: an Intel GPU, not an unknown one
    text = (
        "#!/bin/bash -l\nexport ZE_FLAT_DEVICE_HIERARCHY=FLAT\n"
        "vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 8\n"
    )
    result = _lint_script(tmp_path, text)
    assert [f.code for f in result.diagnostics] == ["HBM014"]
    assert "Intel GPU" in result.diagnostics[0].message


def test_alternative_constraints_name_no_one_gpu():
    # `-C "a100|h100"`: the scheduler picks either; no type is taken from it
    job = job_of('#!/bin/bash\n#SBATCH --gres=gpu:4\n#SBATCH -C "a100|h100"\n')
    assert job is not None and job.gpu_type is None
