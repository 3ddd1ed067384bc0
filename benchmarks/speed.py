"""Time the installed ``hbmlint`` command on generated manifests.

Generates ``--count`` varied, valid ServingManifests (seeded, so every run lints the same
files) into a temporary directory, then runs the ``hbmlint`` console script as a child
process and measures, per scenario:

* ``python -c pass``: the interpreter's own start-up, for context;
* one manifest: the start-up cost a pre-commit hook pays, median of 10 runs;
* the whole directory: throughput, median of ``--runs`` runs;
* the floor (read and compose the same YAML with libyaml) over the directory and over a folder
  with no file: the first ``--count``'s CPU split into start-up and per-file work, hbmlint's
  and the floor's.

For each it reports wall time, CPU time (user + sys of the child, from ``os.wait4``) and the
child's peak resident memory. Each scenario gets one untimed warm-up run first. Exit code 1
from hbmlint (findings) is expected; exit code 2, or any input finding (HBM0xx) on the
generated manifests, is a failure.

hbmlint's own modules are byte-compiled first, as ``pip install`` does: where
PYTHONDONTWRITEBYTECODE is set (CI images, this project's machines) an editable install would
otherwise compile every module from source on every run, while the peers, installed by pip,
start from bytecode.

Usage::

    python benchmarks/speed.py [--count 1000] [--count 10000] [--runs 3] [--jobs 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SEED = 20240601
SINGLE_RUNS = 10

# Catalog models: (name, billions of parameters, draft model of the same tokenizer or None).
LLAMA_DRAFT = "meta-llama/Llama-3.2-1B-Instruct"
MODELS: list[tuple[str, float, str | None]] = [
    ("meta-llama/Llama-3.1-8B-Instruct", 8.0, LLAMA_DRAFT),
    ("meta-llama/Llama-3.1-70B-Instruct", 70.6, LLAMA_DRAFT),
    ("meta-llama/Llama-3.3-70B-Instruct", 70.6, LLAMA_DRAFT),
    ("meta-llama/Llama-3.2-3B-Instruct", 3.2, LLAMA_DRAFT),
    ("meta-llama/Meta-Llama-3-8B-Instruct", 8.0, LLAMA_DRAFT),
    ("Qwen/Qwen2.5-7B-Instruct", 7.6, "Qwen/Qwen2.5-0.5B-Instruct"),
    ("Qwen/Qwen2.5-14B-Instruct", 14.8, "Qwen/Qwen2.5-0.5B-Instruct"),
    ("Qwen/Qwen2.5-32B-Instruct", 32.8, "Qwen/Qwen2.5-1.5B-Instruct"),
    ("Qwen/Qwen2.5-72B-Instruct", 72.7, "Qwen/Qwen2.5-1.5B-Instruct"),
    ("Qwen/Qwen3-8B", 8.2, "Qwen/Qwen3-0.6B"),
    ("Qwen/Qwen3-14B", 14.8, "Qwen/Qwen3-0.6B"),
    ("Qwen/Qwen3-32B", 32.8, "Qwen/Qwen3-1.7B"),
    ("mistralai/Mistral-7B-Instruct-v0.3", 7.2, None),
    ("mistralai/Mistral-7B-Instruct-v0.2", 7.2, None),
]

# GPU aliases as written in manifests: (alias, usable GiB, has FP8).
GPUS: list[tuple[str, float, bool]] = [
    ("H100", 79.2, True),
    ("H100-PCIe", 79.1, True),
    ("A100-80GB", 79.2, False),
    ("A100", 39.6, False),
    ("L4", 22.2, True),
    ("L40S", 44.4, True),
    ("H200", 139.8, True),
    ("H200-NVL", 139.8, True),
    ("B200", 178.4, True),
    ("MI300X-192GB", 192.0, True),
]

TENSOR_SIZES = (1, 2, 4, 8)


@dataclass
class Scenario:
    """The figures for one timed scenario (medians over its runs; peak RSS is the maximum)."""

    name: str
    files: int
    runs: int
    wall_s: float
    cpu_s: float
    peak_mib: float
    files_per_s: float | None
    wall_s_all: list[float] = field(default_factory=list)


@dataclass
class Sample:
    """One child process run."""

    wall_s: float
    cpu_s: float
    peak_mib: float
    exit_code: int
    stdout: str
    stderr: str


# --------------------------------------------------------------------------- generation


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid YAML scalar
    return str(value)


def _to_yaml(data: dict[str, Any], indent: int = 0) -> str:
    """Block-style YAML for nested dicts of scalars (enough for manifests, no dependency)."""
    lines: list[str] = []
    pad = "  " * indent
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"{pad}{key}:")
            lines.append(_to_yaml(value, indent + 1))
        else:
            lines.append(f"{pad}{key}: {_yaml_value(value)}")
    return "\n".join(lines)


def _manifest(rng: random.Random, index: int) -> dict[str, Any]:
    """One manifest; about 5% are deliberately too big for their GPUs."""
    model, params_b, draft = rng.choice(MODELS)
    gpu, gib, fp8 = rng.choice(GPUS)
    quantization = "fp8" if fp8 and rng.random() < 0.2 else None
    weights_gib = params_b * (1.0 if quantization else 2.0) * 1e9 / 2**30
    if rng.random() < 0.05:
        # Deliberately broken: a 70B-class model on one small card.
        model, params_b, draft = rng.choice([m for m in MODELS if m[1] > 60])
        gpu, gib, fp8 = "L4", 22.2, True
        quantization, tensor = None, 1
    else:
        fitting = [tp for tp in TENSOR_SIZES if weights_gib / tp < 0.6 * gib]
        tensor = rng.choice(fitting[:2]) if fitting else 8

    spec: dict[str, Any] = {}
    if rng.random() < 0.7:
        spec["engine"] = "vllm"
    spec["gpu"] = {"type": gpu, "count": tensor}
    spec["model"] = {"name": model}
    if quantization:
        spec["model"]["quantization"] = quantization
    if tensor > 1 or rng.random() < 0.5:
        spec["parallel"] = {"tensor": tensor}

    roll = rng.random()
    if roll < 0.2:
        pass  # serving omitted entirely: the engine's defaults apply
    else:
        serving: dict[str, Any] = {}
        if rng.random() < 0.8:
            serving["max_model_len"] = rng.choice([2048, 4096, 8192, 16384, 32768])
        if rng.random() < 0.6:
            serving["max_num_seqs"] = rng.choice([16, 32, 64, 128, 256])
        if rng.random() < 0.6:
            serving["gpu_memory_utilization"] = rng.choice([0.8, 0.85, 0.9, 0.92, 0.95])
        if fp8 and rng.random() < 0.25:
            serving["kv_cache_dtype"] = "fp8"
        if rng.random() < 0.1:
            serving["enforce_eager"] = True
        if serving:
            spec["serving"] = serving

    roll = rng.random()
    if roll < 0.3 and draft:
        spec["speculative"] = {
            "method": "draft_model",
            "model": draft,
            "num_speculative_tokens": rng.choice([3, 4, 5]),
        }
    elif roll < 0.5:
        spec["speculative"] = {"method": "ngram", "num_speculative_tokens": rng.choice([3, 5])}

    if rng.random() < 0.3:
        spec["workload"] = {
            "concurrency": rng.choice([1, 4, 16, 32]),
            "context_tokens": rng.choice([1024, 2048, 4096]),
        }

    short = model.split("/")[-1].lower()
    return {
        "apiVersion": "hbmlint/v1",
        "kind": "ServingManifest",
        "metadata": {"name": f"bench-{index:05d}-{short}"},
        "spec": spec,
    }


_FLAGS = {
    "max_model_len": "--max-model-len",
    "max_num_seqs": "--max-num-seqs",
    "gpu_memory_utilization": "--gpu-memory-utilization",
    "kv_cache_dtype": "--kv-cache-dtype",
}


def _kubernetes(document: dict[str, Any]) -> str:
    """The same deployment as a Kubernetes Deployment running `vllm serve` with flags, the way
    most repositories write it (GPU type from a node label, count from the GPU limit)."""
    spec = document["spec"]
    tensor = spec["gpu"]["count"]
    args = [spec["model"]["name"], "--tensor-parallel-size", str(tensor)]
    if spec["model"].get("quantization"):
        args += ["--quantization", spec["model"]["quantization"]]
    for key, value in spec.get("serving", {}).items():
        if key == "enforce_eager":
            args.append("--enforce-eager")
        else:
            args += [_FLAGS[key], str(value)]
    speculative = spec.get("speculative")
    if speculative:
        config = {k: v for k, v in speculative.items()}
        args += ["--speculative-config", json.dumps(config)]
    arg_lines = "\n".join(f"            - {json.dumps(a)}" for a in args)
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {document["metadata"]["name"]}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: {document["metadata"]["name"]}}}
  template:
    metadata:
      labels: {{app: {document["metadata"]["name"]}}}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: {spec["gpu"]["type"]}
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
          command: ["vllm", "serve"]
          args:
{arg_lines}
          resources:
            limits:
              nvidia.com/gpu: {tensor}
"""


def generate(directory: Path, count: int, seed: int = SEED) -> list[Path]:
    """Write ``count`` files into ``directory``: two in three native manifests, one in three
    Kubernetes Deployments with engine flags; the last file holds three documents."""
    rng = random.Random(seed)
    paths: list[Path] = []
    for index in range(count):
        if index == count - 1:
            documents = [_manifest(rng, index * 10 + k) for k in range(3)]
            name = f"m{index:05d}-multi.yaml"
        else:
            documents = [_manifest(rng, index)]
            name = f"m{index:05d}.yaml"
        path = directory / name
        if index % 3 == 2 and index != count - 1:
            text = _kubernetes(documents[0])
        else:
            text = "\n---\n".join(_to_yaml(d) for d in documents) + "\n"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


# --------------------------------------------------------------------------- measurement


def find_tool(name: str) -> str | None:
    """A console script next to this interpreter, or on PATH."""
    candidate = Path(sys.executable).with_name(name)
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    return shutil.which(name)


def find_hbmlint() -> str:
    """The ``hbmlint`` script next to this interpreter, or the one on PATH."""
    for name in ("hbmlint", "hbmlint.exe"):
        candidate = Path(sys.executable).with_name(name)
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("hbmlint")
    if not found:
        sys.exit("speed.py: no hbmlint script next to the interpreter or on PATH")
    return found


def run_child(argv: list[str]) -> Sample:
    """Run ``argv`` once; its own CPU time and peak RSS come from ``os.wait4``."""
    # Files, not pipes: a large report would otherwise fill the pipe while we wait4.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code  # reaped by wait4; tell Popen so it never waits again
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    # ru_maxrss is KiB on Linux, bytes on macOS.
    rss_bytes = usage.ru_maxrss if sys.platform == "darwin" else usage.ru_maxrss * 1024
    return Sample(wall, usage.ru_utime + usage.ru_stime, rss_bytes / 2**20, code, stdout, stderr)


def _check(sample: Sample, argv: list[str], allowed: tuple[int, ...]) -> None:
    if sample.exit_code not in allowed:
        sys.stderr.write(sample.stderr)
        sys.exit(f"speed.py: {' '.join(argv)} exited {sample.exit_code}")


def measure(
    name: str, argv: list[str], files: int, runs: int, allowed: tuple[int, ...]
) -> Scenario:
    """One untimed warm-up run, then ``runs`` timed ones."""
    return measure_together([(name, argv, files, allowed)], runs)[0]


Spec = tuple[str, list[str], int, tuple[int, ...]]  # name, argv, files, allowed exit codes


def measure_together(specs: list[Spec], runs: int) -> list[Scenario]:
    """Scenarios that are compared with each other, timed in turns (one run of each, then the
    next round): a shared machine's speed drifts over minutes, and timing one tool's runs
    after the other's would put the drift into their ratio. Each gets one untimed warm-up."""
    for _, argv, _, allowed in specs:
        _check(run_child(argv), argv, allowed)
    samples: list[list[Sample]] = [[] for _ in specs]
    for _ in range(runs):
        for taken, (_, argv, _, allowed) in zip(samples, specs, strict=True):
            sample = run_child(argv)
            _check(sample, argv, allowed)
            taken.append(sample)
    return [
        _scenario(name, files, runs, taken)
        for (name, _, files, _), taken in zip(specs, samples, strict=True)
    ]


def _scenario(name: str, files: int, runs: int, samples: list[Sample]) -> Scenario:
    wall = statistics.median(s.wall_s for s in samples)
    return Scenario(
        name=name,
        files=files,
        runs=runs,
        wall_s=round(wall, 4),
        cpu_s=round(statistics.median(s.cpu_s for s in samples), 4),
        peak_mib=round(max(s.peak_mib for s in samples), 1),
        files_per_s=round(files / wall, 1) if files else None,
        wall_s_all=[round(s.wall_s, 4) for s in samples],
    )


def validate_corpus(hbmlint: str, directory: Path) -> dict[str, Any]:
    """Lint once with JSON output: no input findings allowed; summarise the rest."""
    argv = [hbmlint, "lint", "--format", "json", str(directory)]
    sample = run_child(argv)
    _check(sample, argv, (0, 1))
    findings = json.loads(sample.stdout or "[]")
    codes = Counter(f["code"] for f in findings)
    bad = sorted(c for c in codes if c.startswith("HBM0"))
    if bad:
        sys.exit(f"speed.py: generated manifests have input findings {bad}; fix the generator")
    return {
        "findings": len(findings),
        "files_with_findings": len({f["file"] for f in findings}),
        "by_code": dict(sorted(codes.items())),
    }


# The floor for a Python linter: read every file and compose its YAML with libyaml, nothing else.
FLOOR = """
import sys, pathlib, yaml
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.yaml")):
    for _ in yaml.compose_all(path.read_text(encoding="utf-8"), Loader=loader):
        pass
"""


def byte_compile() -> str:
    """Byte-compile the hbmlint package the ``hbmlint`` script imports, as pip does when it
    installs one (compileall writes whatever PYTHONDONTWRITEBYTECODE says); its directory."""
    where = subprocess.run(
        [sys.executable, "-c", "import hbmlint, os; print(os.path.dirname(hbmlint.__file__))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),  # the installed package, not a checkout in the working dir
    ).stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", where], check=True)
    return where


def print_table(scenarios: list[Scenario]) -> None:
    header = (
        f"{'scenario':<34} {'files':>6} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9} {'files/s':>8}"
    )
    print(header)
    print("-" * len(header))
    for s in scenarios:
        rate = f"{s.files_per_s:8.0f}" if s.files_per_s is not None else f"{'-':>8}"
        print(f"{s.name:<34} {s.files:>6} {s.wall_s:8.3f} {s.cpu_s:8.3f} {s.peak_mib:9.1f} {rate}")


def _by_name(scenarios: list[Scenario]) -> dict[str, Scenario]:
    return {s.name: s for s in scenarios}


def targets(scenarios: list[Scenario], sizes: list[int]) -> list[tuple[str, float, float, bool]]:
    """Issue 18's targets as (what, measured, bound, met); CPU figures, the steady ones on a
    shared machine. Only those whose scenarios were run are listed."""
    by = _by_name(scenarios)
    rows: list[tuple[str, float, float, bool]] = []

    def ratio(ours: str, theirs: str, bound: float, what: str) -> None:
        if ours in by and theirs in by and by[theirs].cpu_s > 0:
            value = by[ours].cpu_s / by[theirs].cpu_s
            rows.append((what, round(value, 3), bound, value <= bound))

    ratio("hbmlint 1 file", "check-jsonschema 1 file", 0.6, "1 file CPU / check-jsonschema")
    ratio(
        "hbmlint dir (1000) --jobs 1",
        "check-jsonschema dir (1000)",
        0.5,
        "1,000 files CPU / check-jsonschema",
    )
    ratio("hbmlint dir (1000) --jobs 1", "floor dir (1000)", 4.0, "1,000 files CPU / Python floor")
    ordered = sorted(n for n in sizes if f"hbmlint dir ({n}) --jobs 1" in by)
    start_up = by["hbmlint 1 file"].cpu_s if "hbmlint 1 file" in by else 0.0
    if len(ordered) >= 2:
        # Per-file work without the start-up, at the smallest and the largest corpus.
        small, large = ordered[0], ordered[-1]
        per_small = (by[f"hbmlint dir ({small}) --jobs 1"].cpu_s - start_up) / small
        per_large = (by[f"hbmlint dir ({large}) --jobs 1"].cpu_s - start_up) / large
        growth = per_large / per_small if per_small > 0 else float("inf")
        rows.append(
            (
                f"CPU per file beyond start-up, {large} vs {small} files (linear: 1)",
                round(growth, 3),
                1.2,
                growth <= 1.2,
            )
        )
    for n in ordered:
        peak = by[f"hbmlint dir ({n}) --jobs 1"].peak_mib
        rows.append((f"peak MiB at {n} files, --jobs 1", peak, 200.0, peak <= 200.0))
    return rows


def start_up_and_per_file(scenarios: list[Scenario], count: int) -> dict[str, float] | None:
    """The 1,000-file (``count``) CPU of hbmlint and of the floor split into start-up and a per
    file part (hbmlint: its one-file run is start-up and one file; the floor: its script over
    no file), and what the ratio to the floor would be were hbmlint's start-up the floor's:
    whether the bound is out of reach of start-up work alone. None where a scenario is
    missing."""
    by = _by_name(scenarios)
    names = ("hbmlint 1 file", f"hbmlint dir ({count}) --jobs 1", "floor no file")
    floor_dir = f"floor dir ({count})"
    if count < 2 or any(n not in by for n in (*names, floor_dir)):
        return None
    one, whole, floor_start = (by[n].cpu_s for n in names)
    floor_whole = by[floor_dir].cpu_s
    per_file = (whole - one) / (count - 1)
    start_up = one - per_file
    floor_per_file = (floor_whole - floor_start) / count
    if floor_per_file <= 0 or floor_whole <= 0:
        return None
    return {
        "start_up_s": round(start_up, 4),
        "per_file_ms": round(per_file * 1000, 4),
        "floor_start_up_s": round(floor_start, 4),
        "floor_per_file_ms": round(floor_per_file * 1000, 4),
        "per_file_ratio": round(per_file / floor_per_file, 2),
        "ratio_with_floor_start_up": round((floor_start + count * per_file) / floor_whole, 2),
    }


def split_lines(split: dict[str, float], count: int) -> list[str]:
    """start_up_and_per_file's figures as the report prints them."""
    return [
        f"hbmlint: start-up {split['start_up_s']:.3f} s, per file {split['per_file_ms']:.3f} ms",
        f"floor:   start-up {split['floor_start_up_s']:.3f} s, per file "
        f"{split['floor_per_file_ms']:.3f} ms (hbmlint {split['per_file_ratio']:.2f}x per file)",
        f"with the floor's start-up, hbmlint's {count:,} files would be "
        f"{split['ratio_with_floor_start_up']:.2f}x the floor",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--count",
        type=int,
        action="append",
        help="manifests to generate (repeat for several sizes; default 1000)",
    )
    parser.add_argument("--runs", type=int, default=3, help="timed runs of the directory")
    parser.add_argument(
        "--jobs",
        type=int,
        action="append",
        help="also time the largest directory with --jobs N (repeat; scaling)",
    )
    parser.add_argument(
        "--no-peers", action="store_true", help="skip check-jsonschema, yamllint and the floor"
    )
    parser.add_argument("--json", metavar="OUT", type=Path, help="also write figures as JSON")
    args = parser.parse_args(argv)
    args.count = args.count or [1000]
    if min(args.count) < 1 or args.runs < 1 or min(args.jobs or [1]) < 1:
        parser.error("--count, --runs and --jobs must be at least 1")

    hbmlint = find_hbmlint()
    compiled = byte_compile()
    version = run_child([hbmlint, "--version"]).stdout.strip()
    # Peers on the same files: check-jsonschema validating hbmlint's own schema (the usual
    # pre-commit YAML validator, the yardstick), yamllint (a pure-Python YAML linter)
    # and the floor (read + compose with libyaml). Not dependencies: install them to compare.
    checker = None if args.no_peers else find_tool("check-jsonschema")
    yamllint = None if args.no_peers else find_tool("yamllint")
    schema = str(Path(__file__).resolve().parent.parent / "schemas" / "manifest.schema.json")
    scenarios = [measure("python -c pass", [sys.executable, "-c", "pass"], 0, SINGLE_RUNS, (0,))]
    corpus: dict[str, Any] = {}
    sizes = sorted(set(args.count))
    for count in sizes:
        # Large corpora get fewer timed runs: their variance is small and each run is long.
        runs = args.runs if count <= 10_000 else 1
        with tempfile.TemporaryDirectory(prefix="hbmlint-bench-") as tmp:
            directory = Path(tmp) / "manifests"
            directory.mkdir()
            paths = generate(directory, count)
            if count == sizes[0]:
                corpus = validate_corpus(hbmlint, directory)
            plain = [str(p) for p in paths if not p.name.endswith("-multi.yaml")]
            if count == sizes[0]:  # start-up, as pre-commit pays it per call
                single: list[Spec] = [("hbmlint 1 file", [hbmlint, str(paths[0])], 1, (0, 1))]
                if not args.no_peers:
                    # the floor's own start-up: its script over a folder with no YAML in it
                    empty = Path(tmp) / "empty"
                    empty.mkdir()
                    start = [sys.executable, "-c", FLOOR, str(empty)]
                    single.append(("floor no file", start, 0, (0,)))
                if checker:
                    command = [checker, "--schemafile", schema, plain[0]]
                    single.append(("check-jsonschema 1 file", command, 1, (0, 1)))
                scenarios += measure_together(single, SINGLE_RUNS)
            label = f"dir ({count})"
            ours = [hbmlint, "--jobs", "1", str(directory)]
            together: list[Spec] = [(f"hbmlint {label} --jobs 1", ours, count, (0, 1))]
            if not args.no_peers and count <= 10_000:
                floor = [sys.executable, "-c", FLOOR, str(directory)]
                together.append((f"floor {label}", floor, count, (0,)))
                if checker:
                    command = [checker, "--schemafile", schema, *plain]
                    together.append((f"check-jsonschema {label}", command, len(plain), (0, 1)))
                if yamllint:
                    command = [yamllint, "-d", "relaxed", str(directory)]
                    together.append((f"yamllint {label}", command, count, (0, 1)))
            scenarios += measure_together(together, runs)
            if count == sizes[-1]:
                for jobs in sorted(set(args.jobs or [])):
                    scenarios.append(
                        measure(
                            f"hbmlint {label} --jobs {jobs}",
                            [hbmlint, "--jobs", str(jobs), str(directory)],
                            count,
                            runs,
                            (0, 1),
                        )
                    )

    machine = {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
    }
    print(f"{version}; Python {machine['python']}; {machine['nproc']} CPUs; {machine['platform']}")
    print(f"package: {compiled} (byte-compiled before timing, as pip installs it)")
    print(
        f"corpus: {sizes[0]} files (seed {SEED}), {corpus['files_with_findings']} with "
        f"findings, {corpus['findings']} findings"
    )
    print_table(scenarios)
    rows = targets(scenarios, sizes)
    split = start_up_and_per_file(scenarios, sizes[0])
    if split:
        print()
        print(f"where the {sizes[0]:,}-file CPU goes (start-up: one file, or none for the floor):")
        for line in split_lines(split, sizes[0]):
            print(f"  {line}")
    if rows:
        print()
        print("targets (issue 18, CPU time):")
        for what, value, bound, met in rows:
            print(f"  {'met' if met else 'NOT met':<8} {what}: {value} (bound {bound})")
    if not checker and not args.no_peers:
        print("check-jsonschema not installed: no comparison (pip install check-jsonschema)")
    given = argv if argv is not None else sys.argv[1:]
    rerun = " ".join(["python", "benchmarks/speed.py", *given])
    print(f"rerun: {rerun}  (CPU is user + sys of each child: steady on a shared machine)")
    if args.json:
        report = {
            "hbmlint": version,
            "command": hbmlint,
            "rerun": rerun,
            "machine": machine,
            "count": args.count,
            "runs": args.runs,
            "seed": SEED,
            "corpus": corpus,
            "scenarios": [asdict(s) for s in scenarios],
            "targets": [{"what": w, "value": v, "bound": b, "met": m} for w, v, b, m in rows],
            "start_up_and_per_file": split,
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
