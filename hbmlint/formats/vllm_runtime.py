"""vLLM production-stack operator: ``VLLMRuntime`` (``production-stack.vllm.ai``). The file
holds no command line: the operator writes ``vllm serve MODEL`` and one flag per field
(vllm-project/production-stack operator/internal/controller/vllmruntime_controller.go,
deploymentForVLLMRuntime), so the same argv is built here, each word at the field it comes from,
and read with vLLM's parser:

``model.modelURL`` (the model), ``model.maxModelLen``, ``model.dtype``, ``model.maxNumSeqs``,
``vllmConfig.enableChunkedPrefill`` (``--enable-chunked-prefill`` or
``--no-enable-chunked-prefill``: the operator writes one or the other), ``tensorParallelSize``,
``gpuMemoryUtilization``, then ``vllmConfig.extraArgs`` as written. GPUs: ``deploymentConfig.
resources.gpu`` (one pod), the type from ``deploymentConfig.nodeSelectorTerms``; the image's tag
names the engine release.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import vllm
from ..engines.args import Token
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts
from .kubernetes import document_name
from .podspec import Path, Reader, container_env, metadata_labels, node_labels, value_at

NAME = "production-stack-operator"
GROUP = "production-stack.vllm.ai/"

# (field below spec, flag): the order the operator writes them in
_FLAGS: tuple[tuple[Path, str], ...] = (
    (("model", "maxModelLen"), "--max-model-len"),
    (("model", "dtype"), "--dtype"),
    (("vllmConfig", "tensorParallelSize"), "--tensor-parallel-size"),
    (("model", "maxNumSeqs"), "--max-num-seqs"),
    (("vllmConfig", "gpuMemoryUtilization"), "--gpu-memory-utilization"),
)


def detect(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and str(data.get("apiVersion", "")).startswith(GROUP)
        and data.get("kind") == "VLLMRuntime"
        and isinstance(data.get("spec"), dict)
    )


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    name, where = document_name(document, reader, "VLLMRuntime")
    spec: Path = ("spec",)
    model_path = (*spec, "model", "modelURL")
    model = value_at(data, model_path)
    if not model:
        reader.findings.append(
            input_diagnostic(
                "HBM003",
                "the VLLMRuntime names no model; set spec.model.modelURL",
                display,
                document.key_span((*spec, "model")),
                name,
            )
        )
        return [], reader.findings
    span = document.span(model_path)
    argv = [Token("vllm", span), Token("serve", span), Token(str(model), span)]
    chunked = value_at(data, (*spec, "vllmConfig", "enableChunkedPrefill"))
    chunked_span = document.span((*spec, "vllmConfig", "enableChunkedPrefill"))
    # the operator writes --no-enable-chunked-prefill when the field is false or left out
    flag = "--enable-chunked-prefill" if chunked is True else "--no-enable-chunked-prefill"
    argv.append(Token(flag, chunked_span if chunked is not None else span))
    for field, flag in _FLAGS:
        value = value_at(data, (*spec, *field))
        if value in (None, "", 0):  # the operator skips zero and empty fields
            continue
        where_value = document.span((*spec, *field))
        argv += [Token(flag, where_value), Token(str(value), where_value)]
    extra = value_at(data, (*spec, "vllmConfig", "extraArgs"))
    for i, value in enumerate(extra if isinstance(extra, list) else []):
        argv.append(Token(str(value), document.span((*spec, "vllmConfig", "extraArgs", i))))
    env = container_env(document, (*spec, "vllmConfig"))
    command = vllm.parse(argv[2:], span, env)
    deployment_config: Path = (*spec, "deploymentConfig")
    gpu = GpuFacts(labels=node_labels(document, None, (*deployment_config, "nodeSelectorTerms")))
    gpu_path = (*deployment_config, "resources", "gpu")
    if value_at(data, gpu_path) is not None:
        gpu.count, gpu.count_span = reader.count(gpu_path, name), document.span(gpu_path)
    image = value_at(data, (*deployment_config, "image", "name"))
    image_span = document.span((*deployment_config, "image", "name"))
    hints = metadata_labels(document, ("metadata",))
    return reader.build(command, name, gpu, where, image, image_span, hints), reader.findings
