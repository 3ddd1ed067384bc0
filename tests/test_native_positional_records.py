"""The native reader makes its records with positional arguments (a class called with keywords
first makes a dict of them): every field a manifest writes lands in the field of its name, and
the records keep the field order the reader passes them in."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hbmlint.formats import native
from hbmlint.spec import Deployment, GpuSpec, ModelRef, ParallelSpec, SpeculativeSpec
from hbmlint.units import parse_quantity
from hbmlint.yamlsrc import load_documents

MANIFEST = """\
apiVersion: hbmlint/v1
kind: ServingManifest
metadata:
  name: every-field
spec:
  engine: sglang
  engine_version: "0.5.2"
  gpu:
    type: H100
    memory: 80GiB
    count: 4
  model:
    name: meta-llama/Llama-3.1-8B-Instruct
    config: model/config.json
    dtype: bfloat16
    quantization: fp8
  parallel:
    tensor: 2
    pipeline: 2
  serving:
    max_model_len: 8192
  speculative:
    method: eagle
    model: yuhuili/EAGLE-LLaMA3.1-Instruct-8B
    config: draft/config.json
    dtype: float16
    quantization: none
    num_speculative_tokens: 3
    tensor_parallel: 1
    kv_cache_dtype: fp8
    max_model_len: 4096
    offload: true
    exit_layer: 7
    token_map: thunlp/LLaMA3-Instruct-8B-FR-Spec/freq_32768.pt
    hot_vocab_size: 32768
  workload:
    concurrency: 16
    context_tokens: 2048
"""


def _names(record: type) -> list[str]:
    return [f.name for f in dataclasses.fields(record)]


def test_the_records_keep_the_order_the_reader_passes():
    assert _names(Deployment)[:12] == [
        *("name", "file", "document", "engine", "engine_version", "gpu", "model"),
        *("parallel", "serving", "speculative", "workload", "locations"),
    ]
    assert _names(GpuSpec)[:3] == ["type", "memory", "count"]
    assert _names(ParallelSpec)[:2] == ["tensor", "pipeline"]
    assert _names(ModelRef)[:4] == ["name", "config", "dtype", "quantization"]
    assert _names(SpeculativeSpec)[:2] == ["method", "model"]
    # the drafter's other fields are read by name from the manifest, None where it is silent
    for spec_field in dataclasses.fields(SpeculativeSpec)[2:]:
        assert spec_field.default is None, spec_field.name
    assert tuple(_names(SpeculativeSpec)[2:]) == native._SPECULATIVE_AS_WRITTEN


def test_every_field_lands_in_its_own_field(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST, encoding="utf-8")
    documents, error = load_documents(MANIFEST)
    assert error is None
    deployments, findings = native.to_deployments(documents[0], path, "m.yaml")
    assert findings == []
    (deployment,) = deployments
    assert (deployment.name, deployment.file, deployment.document) == ("every-field", "m.yaml", 0)
    assert (deployment.engine, deployment.engine_version) == ("sglang", "0.5.2")
    assert deployment.gpu == GpuSpec("H100", parse_quantity("80GiB", "[information]"), 4)
    assert deployment.model == ModelRef(
        name="meta-llama/Llama-3.1-8B-Instruct",
        config=tmp_path / "model/config.json",
        dtype="bfloat16",
        quantization="fp8",
    )
    assert deployment.parallel == ParallelSpec(tensor=2, pipeline=2)
    assert deployment.serving.max_model_len == 8192
    assert deployment.speculative == SpeculativeSpec(
        method="eagle",
        model=ModelRef(
            name="yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
            config=tmp_path / "draft/config.json",
            dtype="float16",
            quantization="none",
        ),
        num_speculative_tokens=3,
        tensor_parallel=1,
        kv_cache_dtype="fp8",
        max_model_len=4096,
        offload=True,
        exit_layer=7,
        token_map="thunlp/LLaMA3-Instruct-8B-FR-Spec/freq_32768.pt",
        hot_vocab_size=32768,
    )
    assert (deployment.workload.concurrency, deployment.workload.context_tokens) == (16, 2048)
    assert deployment.locations["gpu.count"].line == 11
    assert deployment.writer is not None and deployment.source_format is None
    assert (deployment.hints, deployment.assumed, deployment.unread) == ([], {}, {})


def test_a_manifest_without_speculation_or_workload(tmp_path):
    text = MANIFEST.split("  speculative:")[0]
    documents, _ = load_documents(text)
    (deployment,), findings = native.to_deployments(documents[0], Path("m.yaml"), "m.yaml")
    assert findings == []
    assert deployment.speculative == SpeculativeSpec()
    assert deployment.workload is None
