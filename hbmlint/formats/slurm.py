"""What a Slurm batch script's ``#SBATCH`` directives say about the GPUs its job gets.

sbatch reads ``#SBATCH`` lines at the top of the script, up to the first line that is neither
a comment nor blank (sbatch(1), "DESCRIPTION"). Of them, the GPU requests name the GPU type
and how many each node gets: ``--gres=gpu[:TYPE][:COUNT]``, ``--gpus-per-node=[TYPE:]COUNT``,
``--gpus=[TYPE:]COUNT`` / ``-G`` (the job's, so a node's where the job has one node) and
``--constraint`` / ``-C`` naming a GPU as a node feature (``-C h100``); ``--nodes`` / ``-N``
the node count (one by default). The job's shell then sees them as SLURM_GPUS_ON_NODE,
SLURM_GPUS_PER_NODE (with --gpus-per-node), SLURM_GPUS (with --gpus), SLURM_NNODES and
SLURM_JOB_NUM_NODES (slurm.schedmd.com/sbatch.html, "OUTPUT ENVIRONMENT VARIABLES"), which
launch scripts pass to the engine (``--tensor-parallel-size $SLURM_GPUS_ON_NODE``).

A type is taken only where the catalog knows it (``a100``, ``h100``, ``nvidia_h200``,
``A100_40GB``); a site's own name (``gpu80``) is left for --gpu. Across nodes a script may run
one engine per node or one over all of them, which its directives do not say: an engine whose
parallelism fits a node is given no count (the nodes' other GPUs may be other engines'), one
that needs more spans the job's nodes, so that more than the whole job holds is an error.
``--gpus-per-task`` counts times the tasks of a node (``--ntasks-per-node``, or ``--ntasks`` in
a one-node job).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..catalog import find_gpu
from ..catalog.labels import sized_gpu_type
from ..spec import GRES_TYPE, Label
from ..yamlsrc import Span
from .build import GpuFacts

_COUNT = re.compile(r"^\d+$")


@dataclass
class SlurmJob:
    gpu_type: str | None = None
    type_span: Span | None = None
    per_node: int | None = None  # GPUs each node of the job gets
    count_span: Span | None = None
    nodes: int = 1
    gpus_per_node_given: bool = False
    gpus: int | None = None  # --gpus: the job's
    gpus_span: Span | None = None
    gpus_per_task: int | None = None  # --gpus-per-task, with the tasks of a node below
    tasks_per_node: int | None = None
    tasks: int | None = None  # --ntasks: the job's
    memory_80: bool = False  # a --constraint feature that asks for the 80 GB part (80gb)
    # a gres type naming a memory size the catalog has no card of (h100-47, 80g), and where
    sized: tuple[str, Span] | None = None
    requested_by: str = "the Slurm job (#SBATCH)"

    def environment(self) -> dict[str, str]:
        """The SLURM_* variables the job's shell gets that these directives set."""
        env = {"SLURM_NNODES": str(self.nodes), "SLURM_JOB_NUM_NODES": str(self.nodes)}
        if self.per_node is not None:
            env["SLURM_GPUS_ON_NODE"] = str(self.per_node)
            if self.gpus_per_node_given:
                env["SLURM_GPUS_PER_NODE"] = str(self.per_node)
        if self.gpus is not None:
            env["SLURM_GPUS"] = str(self.gpus)
        return env

    def applied(self, gpu: GpuFacts, needed: int = 1) -> GpuFacts:
        """``gpu`` (what the command itself says) with the job's type and its count where the
        command says neither: a node's GPUs in a one-node job, or where the engine's
        parallelism (``needed`` GPUs) fits one node; every node's where it needs more (one
        engine over the job's nodes), so that more than the whole job holds is an error."""
        if gpu.type is None and not gpu.labels and self.gpu_type is not None:
            gpu = replace(gpu, type=self.gpu_type, type_span=self.type_span)
        elif gpu.type is None and self.gpu_type is None and self.sized is not None:
            # resolve says what the type's name says, and what it cannot
            gpu = replace(gpu, labels=[*gpu.labels, Label(GRES_TYPE, *self.sized)])
        if gpu.count is None and self.per_node is not None:
            count = self.per_node
            why = f"requested by {self.requested_by}"
            if self.nodes > 1:
                if needed <= self.per_node:
                    return gpu  # one engine a node, or one over some of them: not said
                count = self.per_node * self.nodes
                why = f"requested by {self.requested_by} on its {self.nodes} nodes"
            gpu = replace(
                gpu,
                count=count,
                count_span=self.count_span,
                # a job may share its GPUs among several programs: those the engine leaves
                # are not called idle, but it cannot use more than the job holds
                count_why=why,
            )
        return gpu


def job_of(text: str) -> SlurmJob | None:
    """The GPUs the ``#SBATCH`` directives of ``text`` request (or a PBS job's ``#PBS -l
    select=N:...:ngpus=G``), or None without any."""
    if "#SBATCH" not in text:
        return _pbs_job(text) if "#PBS" in text else None
    job = SlurmJob()
    found = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if number == 1 and stripped.startswith("#!"):
            continue
        if stripped and not stripped.startswith("#"):
            break  # sbatch stops reading directives at the first command
        if not stripped.startswith("#SBATCH"):
            continue
        span = Span(number, line.index("#SBATCH") + 1, number, len(line) + 1)
        words = stripped[len("#SBATCH") :].split("#", 1)[0].split()
        for option, value in _options(words):
            found |= _read(job, option, value, span)
    if job.per_node is None and job.gpus is not None and job.nodes == 1:
        job.per_node, job.count_span = job.gpus, job.gpus_span
    if job.memory_80 and job.gpu_type is not None:
        gpu = find_gpu(job.gpu_type)
        if gpu is not None and gpu.name == "A100-SXM4-40GB":
            job.gpu_type = "A100-SXM4-80GB"  # a bare A100 is the 40 GB card, unless said
    if job.per_node is None and job.gpus_per_task is not None:
        # --gpus-per-task: each task's, times the tasks a node runs (--ntasks-per-node, or
        # --ntasks where the job has one node; one task by default)
        tasks = job.tasks_per_node or (job.tasks if job.nodes == 1 else None) or 1
        job.per_node = job.gpus_per_task * tasks
    return job if found else None


def _options(words: list[str]) -> list[tuple[str, str]]:
    out = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("--") and "=" in word:
            name, _, value = word.partition("=")
            out.append((name, value))
        elif word.startswith("-") and i + 1 < len(words) and not words[i + 1].startswith("-"):
            out.append((word, words[i + 1]))
            i += 1
        elif word.startswith("-") and len(word) > 2 and not word.startswith("--"):
            out.append((word[:2], word[2:]))  # -N2, -Ch100
        i += 1
    return out


def _read(job: SlurmJob, option: str, value: str, span: Span) -> bool:
    value = value.strip("\"'")
    if option in ("--nodes", "-N"):
        if _COUNT.match(value):
            job.nodes = int(value)
            return True
        return False
    if option == "--gres":
        gpu = next((g for g in value.split(",") if g.split(":")[0] == "gpu"), None)
        if gpu is None:
            return False
        parts = gpu.split("(")[0].split(":")[1:]
        count = int(parts[-1]) if parts and _COUNT.match(parts[-1]) else 1
        kind = parts[0] if parts and not _COUNT.match(parts[0]) else None
        _set(job, kind, count, span)
        return True
    if option in ("--ntasks-per-node", "--ntasks", "-n") and _COUNT.match(value):
        if option == "--ntasks-per-node":
            job.tasks_per_node = int(value)
        else:
            job.tasks = int(value)
        return False  # tasks alone say nothing about GPUs
    if option == "--gpus-per-task":
        parts = value.split(":")
        if not _COUNT.match(parts[-1]):
            return False
        job.gpus_per_task, job.count_span = int(parts[-1]), span
        _set(job, parts[0] if len(parts) > 1 else None, None, span)
        return True
    if option in ("--gpus-per-node", "--gpus", "-G"):
        parts = value.split(":")
        if not _COUNT.match(parts[-1]):
            return False
        kind = parts[0] if len(parts) > 1 else None
        if option == "--gpus-per-node":
            _set(job, kind, int(parts[-1]), span)
            job.gpus_per_node_given = True
        else:
            job.gpus, job.gpus_span = int(parts[-1]), span
            _set(job, kind, None, span)
        return True
    if option in ("--constraint", "-C"):
        # features a node must all have, joined with & (a GPU the catalog knows, h100, and a
        # memory size sites name their 80 GB A100s by, 80gb or hbm80g); alternatives joined
        # with | or , name no one GPU, as before
        if re.search(r"[|,\[\]()]", value):
            return False
        said = False
        for feature in value.split("&"):
            feature = feature.strip()
            if _MEMORY_80.fullmatch(feature):
                job.memory_80, said = True, True
            elif re.fullmatch(r"[\w.-]+", feature) and find_gpu(feature) and job.gpu_type is None:
                job.gpu_type, job.type_span, said = feature, span, True
        return said
    return False


_MEMORY_80 = re.compile(r"(?:hbm)?80gb?", re.I)


def _set(job: SlurmJob, kind: str | None, count: int | None, span: Span) -> None:
    if kind is not None and find_gpu(kind) is not None:
        job.gpu_type, job.type_span = kind, span
    elif kind is not None and (sized := sized_gpu_type(kind)) is not None:
        _, _, exact = sized
        if exact is not None:  # a100-80, h200-141: the model and its size as sold
            job.gpu_type, job.type_span = exact.name, span
        elif job.gpu_type is None:
            job.sized = (kind, span)
    if count is not None:
        job.per_node, job.count_span = count, span


# PBS Pro's chunk request (`#PBS -l select=2:ncpus=64:ngpus=4`): N chunks, each with G GPUs, one
# chunk a node as cluster docs write it (PBS Professional Reference Guide, "select")
_PBS_SELECT = re.compile(r"^#PBS\s+-l\s+select=(\d+)((?::\w+=[^:\s]+)*)", re.M)


def _pbs_job(text: str) -> SlurmJob | None:
    found = _PBS_SELECT.search(text)
    if found is None:
        return None
    resources = dict(part.split("=", 1) for part in found.group(2).split(":")[1:])
    gpus = resources.get("ngpus", "")
    if not _COUNT.match(gpus):
        return None
    line = text.count("\n", 0, found.start()) + 1
    span = Span(line, 1, line, len(found.group(0)) + 1)
    job = SlurmJob(nodes=int(found.group(1)), requested_by="the PBS job (#PBS)")
    job.per_node, job.count_span = int(gpus), span
    gpu_type = resources.get("gpu_type") or resources.get("gputype")
    if gpu_type and find_gpu(gpu_type) is not None:
        job.gpu_type, job.type_span = gpu_type, span
    return job
