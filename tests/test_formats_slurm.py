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
