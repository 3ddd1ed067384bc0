"""Ray Serve LLM configuration: ``applications[].args.llm_configs`` of a Serve config file (the
``serveConfigV2`` of a KubeRay RayService, read from there by ray.py, or a file given to
``serve run``), and a single ``LLMConfig`` YAML file (``model_loading_config`` +
``engine_kwargs``).

Each LLM config is one vLLM engine: the model is ``model_loading_config.model_source`` (or
``model_id`` when there is no source), ``engine_kwargs`` are vLLM's engine arguments with
``_`` for ``-``, and ``accelerator_type`` names the GPU in Ray's spelling (``A10G``,
``A100-80G``, ``H100``). Ray places each replica on tensor x pipeline GPUs, so the GPU count is
that product. A Serve application that runs its own Python (``import_path: serve:model``) cannot
be read; where it mentions an engine, that is said (HBM014).
Docs: https://docs.ray.io/en/latest/serve/llm/ (quick start, production guide).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import vllm
from ..engines.args import Token, placeholder
from ..spec import Deployment
from ..yamlsrc import Span, YamlDocument, load_documents
from .build import GpuFacts, build
from .multihost import needed_gpus
from .podspec import value_at
from .vllm_config import mapping_argv

NAME = "ray-serve-llm"

# Serve builders that take LLM configs: `llm_configs` (a list) or `llm_config` (one); the
# prefill/decode builder (ray.serve.llm:build_pd_openai_app, PDServingArgs) `prefill_config`
# and `decode_config`, an LLMConfig each.
_ENGINE_MENTIONS = ("vllm", "sglang", "llm_config", "engine_kwargs")
_PD_CONFIGS = ("prefill_config", "decode_config")


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return False
    if _is_llm_config(data):
        return True
    apps = data.get("applications")
    if not isinstance(apps, list):
        return False
    return _llm_image(data) or any(_mentions_engine(app) for app in apps)


def _llm_image(data: Any) -> bool:
    """An Anyscale service's ``image_uri`` on the Ray LLM image (anyscale/ray-llm: Ray Serve
    with vLLM): its applications serve a model, in code of their own where no LLM config is
    given."""
    image = data.get("image_uri") if isinstance(data, dict) else None
    return isinstance(image, str) and "ray-llm" in image.lower()


def _is_llm_config(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("model_loading_config"), dict)


def _mentions_engine(value: Any) -> bool:
    text = json.dumps(value, default=str).lower() if value is not None else ""
    return any(word in text for word in _ENGINE_MENTIONS)


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    name = Path(display).stem
    if _is_llm_config(document.data):
        deployment, findings = read_llm_config(
            document, (), display, name, document.index, GpuFacts(), None
        )
        return ([deployment] if deployment else []), findings
    gpu = _compute_config_gpu(document)
    return read_serve_config(document, (), display, name, document.index, gpu, None)


def _compute_config_gpu(document: YamlDocument) -> GpuFacts:
    """The GPU an Anyscale service's ``compute_config`` gives its worker nodes, where those with
    GPUs agree on one: ``required_labels: {ray.io/accelerator-type: L4}`` (Ray's accelerator
    label) or an ``instance_type`` the catalog knows (``g6.12xlarge``; Anyscale's GCP names
    add the GPU after the machine type: ``a2-highgpu-4g-nvidia-a100-40gb-4``)."""
    from ..catalog.labels import instance_types

    config = document.data.get("compute_config") if isinstance(document.data, dict) else None
    nodes = config.get("worker_nodes") if isinstance(config, dict) else None
    found: dict[str, tuple] = {}
    for i, node in enumerate(nodes if isinstance(nodes, list) else []):
        if not isinstance(node, dict):
            continue
        labels = node.get("required_labels")
        named = labels.get("ray.io/accelerator-type") if isinstance(labels, dict) else None
        path: tuple = ("compute_config", "worker_nodes", i, "required_labels")
        if named:
            found.setdefault(str(named), (*path, "ray.io/accelerator-type"))
            continue
        shape = str(node.get("instance_type") or "").lower()
        if shape:
            shapes = instance_types()
            known = shapes.get(shape) or shapes.get(shape.partition("-nvidia-")[0])
            if known is not None:
                where = ("compute_config", "worker_nodes", i, "instance_type")
                found.setdefault(str(known["gpu"]), where)
    if len(found) != 1:
        return GpuFacts()
    [(gpu, where)] = found.items()
    return GpuFacts(type=gpu, type_span=document.span(where))


def embedded(document: YamlDocument, path: tuple, display: str) -> tuple[YamlDocument | None, list]:
    """The YAML held in a string field (RayService ``serveConfigV2: |``), with spans placed in
    the outer file: exactly for a literal block, at the field itself for any other style."""
    text = document.data
    for key in path:
        text = text[key]
    outer = document.span(path)
    documents, error = load_documents(str(text))
    shift = _block_shift(document.text, outer)

    def place(span: Span) -> Span:
        if shift is None:
            return outer
        lines, indent = shift
        end = None if span.end_line is None else span.end_line + lines
        end_column = None if span.end_column is None else span.end_column + indent
        return Span(span.line + lines, span.column + indent, end, end_column)

    if error is not None:
        finding = input_diagnostic(
            "HBM002", f"in {path[-1]}: {error.message}", display, place(error.span)
        )
        return None, [finding]
    if not documents:
        return None, []
    inner = documents[0]
    inner.spans = {p: place(s) for p, s in inner.spans.items()}
    inner.key_spans = {p: place(s) for p, s in inner.key_spans.items()}
    inner.text = document.text
    inner.index = document.index
    return inner, []


def _block_shift(text: str, span: Span) -> tuple[int, int] | None:
    """(lines, columns) from a literal block's content to the file, or None for other styles:
    the content starts on the line after the ``|`` indicator, at the first content line's
    indentation."""
    lines = text.splitlines()
    if span.line - 1 >= len(lines):
        return None
    head = lines[span.line - 1][span.column - 1 :].split("#", 1)[0].strip()
    if not head.startswith("|"):
        return None
    for line in lines[span.line :]:
        if line.strip():
            return span.line, len(line) - len(line.lstrip(" "))
    return None


def read_serve_config(
    doc: YamlDocument,
    base: tuple,
    display: str,
    name: str,
    index: int,
    gpu: GpuFacts,
    cluster_gpus: int | None,
) -> tuple[list[Deployment], list[Diagnostic]]:
    """Every LLM config of a Serve config's applications, as Deployments."""
    data = doc.data
    for key in base:
        data = data[key]
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    apps = data.get("applications") if isinstance(data, dict) else None
    for a, app in enumerate(apps if isinstance(apps, list) else []):
        if not isinstance(app, dict):
            continue
        apath = (*base, "applications", a)
        args = app.get("args") if isinstance(app.get("args"), dict) else {}
        configs: list[tuple[tuple, Any]] = []
        if isinstance(args.get("llm_configs"), list):
            configs = [
                ((*apath, "args", "llm_configs", i), c) for i, c in enumerate(args["llm_configs"])
            ]
        elif "llm_config" in args:
            configs = [((*apath, "args", "llm_config"), args["llm_config"])]
        else:
            configs = [((*apath, "args", key), args[key]) for key in _PD_CONFIGS if key in args]
        if not configs:
            if _mentions_engine(app) or _llm_image(doc.data):
                where = "import_path" if "import_path" in app else "name"
                findings.append(
                    input_diagnostic(
                        "HBM014",
                        f"Serve application '{app.get('name', a)}' runs its own code "
                        f"(import_path {app.get('import_path')}); hbmlint cannot read the engine "
                        "settings in it, so it was not checked",
                        display,
                        doc.span((*apath, where)),
                        name,
                        [
                            "Use Ray Serve LLM (import_path: ray.serve.llm:build_openai_app with "
                            "args.llm_configs), whose model and engine_kwargs hbmlint reads"
                        ],
                    )
                )
            continue
        for cpath, config in configs:
            if isinstance(config, str):
                findings.append(
                    input_diagnostic(
                        "HBM014",
                        f"this LLM config is in another file ({config}); lint that file too "
                        "(hbmlint reads an LLMConfig YAML file on its own)",
                        display,
                        doc.span(cpath),
                        name,
                    )
                )
                continue
            if not isinstance(config, dict):
                continue
            loading = config.get("model_loading_config")
            model_id = loading.get("model_id") if isinstance(loading, dict) else None
            label = f"{name}/{model_id}" if len(configs) > 1 or len(apps) > 1 else name
            if cpath[-1] in _PD_CONFIGS:  # a prefill and a decode server of one model
                label = f"{label}/{cpath[-1].removesuffix('_config')}"
            deployment, found = read_llm_config(
                doc, cpath, display, label, index, gpu, cluster_gpus
            )
            findings += found
            if deployment is not None:
                deployments.append(deployment)
    return deployments, findings


def read_llm_config(
    doc: YamlDocument,
    cpath: tuple,
    display: str,
    name: str,
    index: int,
    gpu: GpuFacts,
    cluster_gpus: int | None,
) -> tuple[Deployment | None, list[Diagnostic]]:
    config = doc.data
    for key in cpath:
        config = config[key]
    loading = config.get("model_loading_config")
    lpath = (*cpath, "model_loading_config")
    if not isinstance(loading, dict):
        return None, []
    source = loading.get("model_source")
    if isinstance(source, dict) and source.get("bucket_uri"):
        model, mspan = str(source["bucket_uri"]), doc.span((*lpath, "model_source", "bucket_uri"))
    elif isinstance(source, str) and source:
        model, mspan = source, doc.span((*lpath, "model_source"))
    else:
        model, mspan = str(loading.get("model_id") or ""), doc.span((*lpath, "model_id"))
    findings: list[Diagnostic] = []
    if placeholder(model):
        findings.append(
            input_diagnostic(
                "HBM012",
                f"the model '{model}' is a placeholder: fill it in before linting",
                display,
                mspan,
                name,
            )
        )
        return None, findings
    kwargs = config.get("engine_kwargs")
    argv = [Token(model, mspan)] if model else []
    if isinstance(kwargs, dict):
        flags, problems = mapping_argv(doc, (*cpath, "engine_kwargs"), kwargs, display, kwargs=True)
        argv += flags
        findings += problems
    degree = value_at(config, ("tensor_parallelism", "degree"))
    has_tp = isinstance(kwargs, dict) and (
        "tensor_parallel_size" in kwargs or "tensor-parallel-size" in kwargs
    )
    if degree is not None and not isinstance(degree, bool) and not has_tp:
        # Anyscale's RayLLM model configs give TP as `tensor_parallelism: {degree: N}` beside
        # engine_kwargs (anyscale/templates model_config/*.yaml), passed to vLLM as its size
        span = doc.span((*cpath, "tensor_parallelism", "degree"))
        argv += [Token("--tensor-parallel-size", span), Token(str(degree), span)]
    command = vllm.parse(argv, doc.span(cpath))
    facts = GpuFacts(
        type=gpu.type,
        type_span=gpu.type_span,
        memory=gpu.memory,
        memory_span=gpu.memory_span,
        labels=list(gpu.labels),
    )
    accelerator = config.get("accelerator_type")
    if isinstance(accelerator, str) and accelerator:
        facts.type, facts.type_span = accelerator, doc.span((*cpath, "accelerator_type"))
    needed = needed_gpus(command)
    if cluster_gpus is not None and needed > cluster_gpus:
        # Ray would wait for a placement group the cluster can never offer
        facts.count, facts.count_span = cluster_gpus, gpu.count_span
    deployment, found = build(
        command,
        name=name,
        display=display,
        document=index,
        gpu=facts,
        where=doc.span(cpath),
    )
    return deployment, findings + found
