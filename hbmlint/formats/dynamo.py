"""NVIDIA Dynamo ``DynamoGraphDeployment``: each service under ``spec.services``
(``nvidia.com/v1alpha1``) or component under ``spec.components`` (``nvidia.com/v1beta1``, a
list of ``name``/``type``/``podTemplate``) whose main container runs a Dynamo worker
(``python3 -m dynamo.vllm`` or ``dynamo.sglang``, plain or in an ``sh -c`` script) is one
deployment; the worker takes its engine's own flags (ai-dynamo/dynamo
components/src/dynamo/vllm/args.py passes them to vLLM's parser; dynamo.sglang to SGLang's).
Aggregated and disaggregated graphs alike: a prefill and a decode worker are two deployments.
``dynamo.trtllm`` workers take TensorRT-LLM's settings from their flags and from the YAML file
``--extra-engine-args`` names (engines/trtllm.py; found by formats/config_files.py): one the
container's own script writes before the worker starts (``cat > /tmp/engine_configs/agg.yaml <<
'EOF' ... EOF``, read as the shell-script format reads it: engines.written_files), else a ConfigMap
the worker mounts (from this file or another file of the run, by the container's
``volumeMounts`` and the pod's ``volumes``), else
the file at that path in the repository being linted (Dynamo's images hold the repository in
their ``workingDir``, so ``./examples/backends/trtllm/engine_configs/...`` is found from any
folder above the manifest). A file found nowhere makes the worker an info, never a guess: its
parallelism may be in it. The frontend and other services run no engine and are not read.

GPUs: the service's ``resources.limits.gpu`` (Dynamo's own resources, one pod; in v1beta1 the
container's ``nvidia.com/gpu`` limit) times ``multinode.nodeCount``; the type from the
``extraPodSpec`` (v1beta1: ``podTemplate.spec``) nodeSelector / node affinity.
Samples: ai-dynamo/dynamo examples/backends/vllm/deploy/{agg,disagg,disagg-multinode}.yaml.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import parse_engine_words, sglang, trtllm, vllm, written_files
from ..engines.args import EngineCommand, Token
from ..engines.config_file import ConfigFile, ConfigFiles, load_settings
from ..engines.shell import Locator, Written, expand_k8s, shell_script, split_script
from ..spec import Deployment
from ..yamlsrc import Span, YamlDocument
from .build import GpuFacts
from .config_files import mounted_config, pod_files, repository_file
from .kubernetes import document_name
from .podspec import (
    Path,
    Reader,
    container_argv,
    container_env,
    env_list,
    node_labels,
    value_at,
)

NAME = "dynamo"

WORKERS: dict[str, ModuleType | None] = {
    "dynamo.vllm": vllm,
    "dynamo.sglang": sglang,
    "dynamo.trtllm": trtllm,  # with its --extra-engine-args file, read below
}
_AFFINITY = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def detect(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("kind") == "DynamoGraphDeployment"
        and (
            isinstance(value_at(data, ("spec", "services")), dict)
            or isinstance(value_at(data, ("spec", "components")), list)
        )
    )


def _workers(document: YamlDocument) -> list[tuple[str, Path, Path, Path, list[Path]]]:
    """Each service or component: (name, its path, pod spec path, main container path, where
    its GPU count may be, first found wins)."""
    data = document.data
    found = []
    services = value_at(data, ("spec", "services"))
    if isinstance(services, dict):  # v1alpha1: a map of services, extraPodSpec.mainContainer
        for service, spec in services.items():
            if isinstance(spec, dict):
                spath: Path = ("spec", "services", service)
                pod: Path = (*spath, "extraPodSpec")
                gpus = [(*spath, "resources", s, "gpu") for s in ("limits", "requests")]
                found.append((str(service), spath, pod, (*pod, "mainContainer"), gpus))
    components = value_at(data, ("spec", "components"))
    if isinstance(components, list):  # v1beta1: a list of components with a podTemplate
        for i, spec in enumerate(components):
            if not isinstance(spec, dict):
                continue
            spath = ("spec", "components", i)
            pod = (*spath, "podTemplate", "spec")
            containers = value_at(data, (*pod, "containers"))
            if not isinstance(containers, list) or not containers:
                continue
            # The main container is named "main" in Dynamo's samples; else the first one.
            index = next(
                (
                    j
                    for j, c in enumerate(containers)
                    if isinstance(c, dict) and c.get("name") == "main"
                ),
                0,
            )
            cpath: Path = (*pod, "containers", index)
            gpus = [
                *[(*cpath, "resources", s, "nvidia.com/gpu") for s in ("limits", "requests")],
                *[(*spath, "resources", s, "gpu") for s in ("limits", "requests")],
            ]
            found.append((str(spec.get("name", i)), spath, pod, cpath, gpus))
    return found


def _commands(
    document: YamlDocument, cpath: Path, env: dict[str, Token]
) -> tuple[list[list[Token]], list[tuple[Written, Span]]]:
    """The container's commands, and the files its script writes (``cat > FILE << 'EOF'``)."""
    argv = container_argv(document, cpath)
    env_text = {k: t.text for k, t in env.items() if t.readable}
    script = shell_script(argv)
    if script is None:
        return [[expand_k8s(t, env_text) for t in argv]], []
    token, _ = script
    written: list[tuple[Written, Span]] = []
    locator = Locator(document.text, token.span)
    commands = split_script(token.text, env_text, locator, token.span, written=written)
    return commands, written


def _worker(
    commands: list[list[Token]], env: dict[str, Token]
) -> tuple[str, list[Token], Token, int] | None:
    """The Dynamo worker module a command runs, the words after it, where it is named, and
    which command of the script it is."""
    for index, command in enumerate(commands):
        for i, token in enumerate(command):
            if token.text in WORKERS:
                return token.text, command[i + 1 :], token, index
    return None


def _trtllm(
    document: YamlDocument,
    path: Any,
    pod: Path,
    cpath: Path,
    words: list[Token],
    token: Token,
    env: dict[str, Token],
    reader: Reader,
    name: str,
    script_files: ConfigFiles | None = None,
) -> EngineCommand | None:
    """A TRT-LLM worker's settings, with its extra-engine-args file: one its own script writes
    before it (``cat > FILE << 'EOF'``, ``script_files``), else a ConfigMap it mounts, else the
    repository's; None (and an info) when the worker names a file hbmlint cannot find."""
    reference = trtllm.config_path(words)
    if reference is None:
        return trtllm.parse_dynamo(words, token.span, env)
    file = reference.text
    found = script_files(reference) if script_files is not None and reference.readable else None
    if found is None and reference.readable:
        found = mounted_config(document, pod, cpath, file, reference.span)
    if found is None and reference.readable:
        workdir = value_at(document.data, (*cpath, "workingDir"))
        text = repository_file(path, file, workdir)
        settings = load_settings(text) if text is not None else None
        if settings is not None:
            found = ConfigFile(settings, lambda key: reference.span)
    if found is None:
        reader.findings.append(
            input_diagnostic(
                "HBM014",
                f"this TensorRT-LLM worker takes its settings (parallelism, memory fraction, "
                f"lengths) from {file}, which is neither written by its own script, nor a "
                "ConfigMap the pod mounts in the files linted, nor a file at that path in this "
                "repository; it is not checked",
                reader.display,
                reference.span,
                name,
                [
                    "Lint the ConfigMap's file with this one, or lint from the repository that "
                    "holds the engine config"
                ],
            )
        )
        return None
    return trtllm.parse_dynamo(words, token.span, env, found.settings, found.span_of)


def trtllm_worker(
    document: YamlDocument,
    path: Any,
    pod: Path,
    cpath: Path,
    env: dict[str, Token],
    reader: Reader,
    name: str,
) -> EngineCommand | None:
    """A ``python3 -m dynamo.trtllm`` worker in a plain pod (Dynamo run without its operator:
    a Deployment or StatefulSet per worker), read as in a graph: its flags and the
    extra-engine-args file the pod mounts. None when the container runs no such worker."""
    commands, written = _commands(document, cpath, env)
    found = _worker(commands, env)
    if found is None or WORKERS[found[0]] is not trtllm:
        return None
    _, words, token, index = found
    files = written_files(written, index, document.text)
    command = _trtllm(document, path, pod, cpath, words, token, env, reader, name, files)
    if command is not None:
        launcher = next(c for c in commands if any(t is token for t in c))
        at = next(i for i, t in enumerate(launcher) if t is token)
        command.nodes = _mpi_hosts(launcher[:at])
    return command


def _mpi_hosts(words: list[Token]) -> int | None:
    """The hosts ``mpirun -H a:4,b:4`` (``--host``) starts the worker's ranks on: one engine
    across that many pods (a StatefulSet's replicas reaching each other by ssh). None when it
    is not started by mpirun or names no hosts."""
    texts = [t.text for t in words]
    if not any(t.rsplit("/", 1)[-1] in ("mpirun", "mpiexec") for t in texts):
        return None
    for i, text in enumerate(texts[:-1]):
        if text in ("-H", "--host", "-host"):
            hosts = [h for h in texts[i + 1].split(",") if h]
            return len(hosts) if hosts and not words[i + 1].unresolved else None
    return None


def _shared_env(document: YamlDocument, spath: Path) -> dict[str, Token]:
    """The environment the operator gives a service before its container's own: the graph's
    (v1beta1 ``spec.env``: "prepended to every component's environment"; v1alpha1
    ``spec.envs``: "applied to all services ... unless overridden"), then the service's own
    ``envs`` / ``env``; the container's entries of the same name win (container_env)."""
    env: dict[str, Token] = {}
    for where in (("spec",), spath):
        for key in ("env", "envs"):
            items = value_at(document.data, (*where, key))
            if isinstance(items, list):
                env_list(document, (*where, key), None, items, env)
    return env


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    base, where = document_name(document, reader, "DynamoGraphDeployment")
    deployments: list[Deployment] = []
    for service, spath, pod, cpath, gpu_paths in _workers(document):
        if not isinstance(value_at(data, cpath), dict):
            continue
        name = f"{base}/{service}"
        env = container_env(document, cpath, _shared_env(document, spath))
        commands, written = _commands(document, cpath, env)
        found = _worker(commands, env)
        if found is None:
            # a shell given the worker's flags with no worker module before them
            from .unread_pods import shell_given_flags

            said = shell_given_flags(document, cpath, value_at(data, cpath), display)
            if said is not None:
                reader.findings.append(said)
            continue
        worker, words, token, index = found
        module = WORKERS[worker]
        if module is trtllm:
            files = written_files(written, index, document.text)
            command = _trtllm(document, path, pod, cpath, words, token, env, reader, name, files)
            if command is None:
                continue
        else:
            # --config FILE: read from the ConfigMap the worker mounts (SGLang's
            # ConfigArgumentMerger, which Dynamo's SGLang worker uses too, merges as vLLM does)
            command = parse_engine_words(
                module, words, token.span, env, pod_files(document, pod, cpath)
            )
        gpu = GpuFacts(
            labels=node_labels(
                document, (*pod, "nodeSelector"), (*pod, *_AFFINITY, "nodeSelectorTerms")
            )
        )
        for where_gpu in gpu_paths:
            if value_at(data, where_gpu) is not None:
                gpu.count = reader.count(where_gpu, name)
                gpu.count_span = document.span(where_gpu)
                break
        nodes = reader.count((*spath, "multinode", "nodeCount"), name)
        if gpu.count and nodes and nodes > 1:
            gpu.count *= nodes  # one worker spans nodeCount pods, each with these GPUs
        # the runtime image's tag is Dynamo's release, which ships one release of each engine
        image = value_at(data, (*cpath, "image"))
        image_span = document.span((*cpath, "image")) if image is not None else None
        deployments += reader.build(command, name, gpu, where, image, image_span)
    return deployments, reader.findings
