"""What the catalog tests share: a catalog entry's architecture as the budget builds it, and a
weight figure in bytes."""

from __future__ import annotations

from pathlib import Path

from hbmlint import catalog


def architecture(model_id: str) -> catalog.Architecture:
    entry = catalog.find_model(model_id)
    assert entry is not None, model_id
    return catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])


def stored_bytes(weights) -> float:
    return float(weights.to("byte").magnitude)


def vllm_deployment(
    tmp_path: Path, model: str, gpu: str, *args: str, name: str = "llm", file: str = "deployment"
) -> Path:
    """A one-GPU Kubernetes Deployment ``name`` serving ``model`` with vLLM 0.11.0 on the node
    type ``gpu`` (a nvidia.com/gpu.product label), with ``args`` after the model, written to
    ``file``.yaml; its path."""
    words = ", ".join(f'"{word}"' for word in ("--model", model, *args))
    path = tmp_path / f"{file}.yaml"
    path.write_text(
        f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: {gpu}}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: [{words}]
        resources: {{limits: {{nvidia.com/gpu: "1"}}}}
""",
        encoding="utf-8",
    )
    return path
