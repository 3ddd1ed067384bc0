"""A LazyPattern keeps each method it was asked for, so that later uses cost what the compiled
pattern's do; and the patterns of the engines, the shell reader, fixes and the other modules a
Kubernetes or native lint imports that only unusual files need are compiled on first use."""

from __future__ import annotations

import copy
import os
import pickle
import re
import subprocess
import sys

from hbmlint.lazyre import LazyPattern

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: H200-NVL
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
          command: ["vllm", "serve"]
          args: ["Qwen/Qwen3-8B", "--tensor-parallel-size", "2", "--max-model-len", "16384"]
          resources:
            limits:
              nvidia.com/gpu: 2
"""
SGLANG = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:latest
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "1"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
NATIVE = """\
apiVersion: "hbmlint/v1"
kind: "ServingManifest"
metadata:
  name: "llama"
spec:
  engine: "vllm"
  gpu:
    type: "H100"
    count: 1
  model:
    name: "meta-llama/Llama-3.1-70B-Instruct"
  serving:
    max_model_len: 131072
"""
# The modules whose patterns an ordinary file does not need (their module-level LazyPatterns)
MODULES = (
    "hbmlint.engines",
    "hbmlint.engines.args",
    "hbmlint.engines.shell",
    "hbmlint.engines.vllm",
    "hbmlint.engines.sglang",
    "hbmlint.formats.build",
    "hbmlint.rewrite",
    "hbmlint.resolve",
    "hbmlint.expressions",
    "hbmlint.suppressions",
    "hbmlint.fixes",
)


def test_methods_kept_after_first_use():
    lazy = LazyPattern(r"a(b+)c", re.I)
    assert "search" not in vars(lazy)
    assert lazy.search("xABBC").group(1) == "BB"
    kept = vars(lazy)["search"]
    assert kept.__self__ is lazy.compiled()  # the compiled pattern's own bound method
    assert lazy.search is kept
    assert lazy.groups == 1 and vars(lazy)["groups"] == 1


def test_copies_and_pickles_after_use_start_afresh():
    lazy = LazyPattern(r"a(b)")
    assert lazy.fullmatch("ab")
    for other in (copy.copy(lazy), copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy))):
        assert isinstance(other, LazyPattern) and other._compiled is None
        assert "fullmatch" not in vars(other)
        assert other.fullmatch("ab").group(1) == "b"


def test_an_ordinary_lint_compiles_none_of_them(tmp_path):
    for name, text in (("k8s.yaml", DEPLOYMENT), ("sglang.yaml", SGLANG), ("n.yaml", NATIVE)):
        (tmp_path / name).write_text(text)
    script = (
        "import importlib, sys\n"
        "from hbmlint.cli import main\n"
        "from hbmlint.lazyre import LazyPattern\n"
        "sys.argv = ['hbmlint', '--jobs', '1', '--format', 'json', sys.argv[1]]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        f"names = {MODULES!r}\n"
        "read = [n for n in names[:5] if n in sys.modules]\n"
        "lazy = {n: [k for k, v in vars(importlib.import_module(n)).items()\n"
        "            if isinstance(v, LazyPattern)] for n in names}\n"
        "made = [f'{n}.{k}' for n in names for k in lazy[n]\n"
        "        if vars(importlib.import_module(n))[k]._compiled is not None]\n"
        "print(len(read), sum(map(len, lazy.values())), made, file=sys.stderr)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        # the hbmlint installed, or PYTHONPATH's; run outside the source tree
        env={"PATH": "/usr/bin:/bin", **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}},
        cwd=tmp_path,
        check=False,
    )
    assert '"code": "HBM005"' in run.stdout, run.stderr  # the SGLang pod names no GPU
    read, count, made = run.stderr.strip().splitlines()[-1].split(" ", 2)
    assert read == "5"  # the engines' modules read the two pods
    assert int(count) >= 27
    assert made == "[]"
