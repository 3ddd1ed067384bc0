"""The pod spec, shared by every format that embeds one (Kubernetes workloads, LeaderWorkerSet,
KServe, Ray, Helm values): where the pod templates are, their containers' command lines and
environment, GPU limits, and the node labels a pod requires."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

from ..catalog import find_gpu
from ..catalog.labels import image_build_gpu
from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import (
    assumed_vllm_image,
    image_engine,
    image_version,
    names_engine,
    read_invocation,
)
from ..engines.args import RENDER_HINT, EngineCommand, Token, placeholder
from ..engines.config_file import ConfigFile, ConfigFiles
from ..spec import (
    GPU_RESOURCE,
    IMAGE_BUILD,
    ROCM_IMAGE,
    VGPU_MEMORY,
    VGPU_PERCENT,
    Deployment,
    Label,
)
from ..yamlsrc import Span, YamlDocument
from . import accelerators
from .build import build as build_deployment
from .build import device_count

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
# Device-plugin resources of accelerators that are not the GPUs hbmlint budgets: a container
# that asks for one runs the engine's build for that device (vllm-tpu, a Gaudi or Neuron build)
OTHER_ACCELERATORS = accelerators.RESOURCES
# Which node labels name a GPU is the catalog's business (catalog/labels.yaml): a reader passes
# every label a pod requires, with where it is written, and resolve picks the GPU.

Path = tuple[Any, ...]


def value_at(data: Any, path: Path) -> Any:
    for key in path:
        if isinstance(data, dict):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and key < len(data):
            data = data[key]
        else:
            return None
    return data


def _resources(document: YamlDocument, cpath: Path, container: Any) -> Any:
    """value_at(document.data, (*cpath, "resources")), from ``container`` where the caller has
    it (value_at(document.data, cpath); None: looked up). A workload's reader asks half a dozen
    readers here about each container, and each lookup walks five or six keys."""
    if container is None:
        return value_at(document.data, (*cpath, "resources"))
    return container.get("resources") if isinstance(container, dict) else None


def object_name(data: dict) -> str:
    """A Kubernetes object's metadata.name, "" where it has none."""
    return str(value_at(data, ("metadata", "name")) or "")


def pod_specs(data: dict) -> list[tuple[Path, str]]:
    """Paths of the pod specs in a workload, with their role (``leader``/``worker``/``pod``)."""
    kind = data.get("kind")
    if kind == "Pod":
        return [(("spec",), "pod")]
    if kind == "LeaderWorkerSet":
        base = ("spec", "leaderWorkerTemplate")
        found = []
        if isinstance(value_at(data, (*base, "leaderTemplate", "spec")), dict):
            found.append(((*base, "leaderTemplate", "spec"), "leader"))
        if isinstance(value_at(data, (*base, "workerTemplate", "spec")), dict):
            found.append(((*base, "workerTemplate", "spec"), "worker"))
        return found
    if kind == "CronJob":
        return [(("spec", "jobTemplate", "spec", "template", "spec"), "pod")]
    return [(("spec", "template", "spec"), "pod")]


def containers(data: dict, pod_path: Path) -> Iterator[tuple[int, dict]]:
    items = value_at(data, (*pod_path, "containers"))
    if isinstance(items, list):
        for i, container in enumerate(items):
            if isinstance(container, dict):
                yield i, container


def serving_containers(data: dict, pod_path: Path) -> list[tuple[Path, dict]]:
    """The containers that run for the pod's whole life, each with its path under the pod:
    ``containers``, then the native sidecars (``initContainers`` with ``restartPolicy:
    Always``, Kubernetes 1.28+), which start before them and keep running beside them. Other
    init containers run to completion first (a model download) and are never an engine."""
    # the pod found once for both lists (value_at finds neither under anything but a mapping),
    # each list read in one loop, not through generators: every workload, every file
    pod = value_at(data, pod_path)
    found: list[tuple[Path, dict]] = []
    if not isinstance(pod, dict):
        return found
    items = pod.get("containers")
    if isinstance(items, list):
        for i, container in enumerate(items):
            if isinstance(container, dict):
                found.append((("containers", i), container))
    items = pod.get("initContainers")
    if isinstance(items, list):
        for i, container in enumerate(items):
            if isinstance(container, dict) and container.get("restartPolicy") == "Always":
                found.append((("initContainers", i), container))
    return found


def _words(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)] if value is not None else []


def runs_engine(container: dict) -> bool:
    text = " ".join(_words(container.get("command")) + _words(container.get("args")))
    if names_engine(text):
        return True
    if "command" in container:
        return False
    image = container.get("image")
    return image_engine(image) is not None or assumed_vllm_image(
        image, _words(container.get("args"))
    )


def container_env(
    document: YamlDocument,
    path: Path,
    injected: dict[str, Token] | None = None,
    container: Any = None,
) -> dict[str, Token]:
    """The container's environment as Kubernetes builds it: ``envFrom`` first, then ``env`` (a
    later entry wins), over what the platform injects (``injected``: LeaderWorkerSet's LWS_*).

    ``valueFrom`` is read where the file holds its source (a ConfigMap or Secret in the same
    file); otherwise the variable is known to be set but not to what, and its token says where
    the value comes from (``Token.unresolved``: "NAME is read from ..."), so a finding can name
    the source."""
    env: dict[str, Token] = dict(injected or {})
    objects = file_objects(document.text) if document.text else built_objects(document)
    # the container found once: its fields are one dict lookup each (what value_at would do);
    # ``container``: value_at(document.data, path) where the caller has it (see _resources)
    if container is None:
        container = value_at(document.data, path)
    if not isinstance(container, dict):
        return env
    sources = container.get("envFrom")
    for j, source in enumerate(sources if isinstance(sources, list) else []):
        if not isinstance(source, dict):
            continue
        prefix = str(source.get("prefix") or "")
        for kind, key in (("ConfigMap", "configMapRef"), ("Secret", "secretRef")):
            ref = source.get(key)
            if not isinstance(ref, dict):
                continue
            span = document.span((*path, "envFrom", j))
            found = _lookup(kind, str(ref.get("name")), span, objects)
            if found is not None:
                for name, token in found.items():
                    env[prefix + name] = token
    return env_list(document, (*path, "env"), objects, container.get("env"), env)


def env_list(
    document: YamlDocument,
    path: Path,
    objects: dict | None = None,
    items: Any = None,
    env: dict[str, Token] | None = None,
) -> dict[str, Token]:
    """A list of EnvVars (``name`` with ``value`` or ``valueFrom``) at ``path`` (``items``: the
    list, where the caller has it) into ``env``: a later entry wins; ``valueFrom`` is read where
    ``objects`` (file_objects of the file, by default) holds its source."""
    env = {} if env is None else env
    if items is None:
        items = value_at(document.data, path)
    if objects is None:
        objects = file_objects(document.text) if document.text else built_objects(document)
    for i, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict) or "name" not in item:
            continue
        name = str(item["name"])
        if "value" in item:
            value = item["value"]
            text = "" if value is None else str(value)
            span = document.span((*path, i, "value"))
            env[name] = _expanded(text, span, env) if "$(" in text else Token(text, span)
        elif isinstance(item.get("valueFrom"), dict):
            span = document.span((*path, i, "valueFrom"))
            env[name] = value_from(name, item["valueFrom"], span, objects)
        else:
            env[name] = Token("", document.span((*path, i)))  # set, and empty
    return env


# $(NAME) in an env value: Kubernetes expands it from the variables defined before it (the
# platform's injected ones, envFrom, earlier entries); $$ is a literal $ (Kubernetes docs,
# "Define dependent environment variables")
_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def _expanded(text: str, span: Span, env: dict[str, Token]) -> Token:
    """An env value with the references Kubernetes expands expanded (one it cannot is left as
    written, as Kubernetes leaves it); unreadable where a variable it names is."""
    unresolved: list[str] = []

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        known = env.get(match.group(1))
        if known is None:
            return match.group(0)
        unresolved.extend(known.unresolved)
        return known.text

    return Token(_REFERENCE.sub(one, text), span, tuple(unresolved))


def value_from(name: str, source: dict, span: Span, objects: dict) -> Token:
    """An EnvVar's ``valueFrom`` (``source``): the value where ``objects`` holds its ConfigMap or
    Secret, else a token that says where the value comes from."""
    for kind, key in (("ConfigMap", "configMapKeyRef"), ("Secret", "secretKeyRef")):
        ref = source.get(key)
        if isinstance(ref, dict):
            owner, field = str(ref.get("name")), str(ref.get("key"))
            found = (_lookup(kind, owner, span, objects) or {}).get(field)
            if found is not None:
                return found
            origin = (
                f"read from {kind} '{owner}', key '{field}', which is not in this file nor in "
                "the others linted with it"
            )
            if (kind, owner) not in objects and AMBIGUOUS in _tree_objects.get((kind, owner), {}):
                origin = (
                    f"read from {kind} '{owner}', key '{field}', which several files linted "
                    "with this one define with different values (overlays, each with its "
                    "own): lint one overlay's files, or the rendered manifest "
                    "(kubectl kustomize DIR | hbmlint -), to know which"
                )
            return Token("valueFrom", span, (f"{name} is {origin}",))
    ref = source.get("fieldRef")
    if isinstance(ref, dict):
        origin = f"the pod's {ref.get('fieldPath')}, set by Kubernetes (downward API)"
        return Token("valueFrom", span, (f"{name} is {origin}",))
    ref = source.get("resourceFieldRef")
    if isinstance(ref, dict):
        origin = f"the container's {ref.get('resource')}, set by Kubernetes (downward API)"
        return Token("valueFrom", span, (f"{name} is {origin}",))
    return Token("valueFrom", span, (f"{name} is set from valueFrom",))


# ConfigMaps and Secrets found in the other files of the run (`hbmlint manifests/`): a
# Deployment often takes its model from a ConfigMap applied from a file of its own. Set once a
# run by lint (use_tree_objects) before any file is read; values only, by (kind, name). Formats
# add their own cross-file objects the same way (kserve.tree_objects: serving runtimes).
_tree_objects: dict[tuple[str, str], dict[str, str]] = {}
# the key lint puts in place of the values of an object that several files of the run define
# with different values (its value: one of those files), so that none of them is picked
AMBIGUOUS = "\x00defined differently in several files"


def use_tree_objects(objects: dict[tuple[str, str], dict[str, str]]) -> None:
    """The ConfigMaps and Secrets of the files being linted, for references across files."""
    _tree_objects.clear()
    _tree_objects.update(objects)


def tree_object(kind: str, name: str) -> dict[str, str] | None:
    """The values of a ConfigMap or Secret defined in another file of the run, or None."""
    return _tree_objects.get((kind, name))


class Elsewhere(YamlDocument):
    """An object from another file of the run (a serving runtime, a base model): every value of
    it is placed at ``at``, the reference to it in the file being linted (the line to look at
    there; the other file's lines mean nothing in this one)."""

    def __init__(self, data: Any, at: Span):
        super().__init__(data=data, index=0)
        self.at = at

    def span(self, path: Any) -> Span:
        return self.at

    def key_span(self, path: Any) -> Span:
        return self.at


def tree_kind(kind: str) -> list[tuple[str, dict[str, str]]]:
    """Every object of ``kind`` the other files of the run define, as (name, values)."""
    return [(name, values) for (k, name), values in _tree_objects.items() if k == kind]


def object_elsewhere(kinds: tuple[str, ...], name: str, at: Span, prefix: str = "") -> Any:
    """The object ``name`` of one of ``kinds`` (in that order) that another file of the run
    defines as JSON (a format's tree_objects, keyed ``prefix + kind``), as an Elsewhere document
    placed at ``at``; None where none does."""
    import json  # only a run with such objects in another file gets here (a clean lint: never)

    for kind in kinds:
        for found, values in tree_kind(prefix + kind):
            if found == name:
                try:
                    return Elsewhere(json.loads(values.get("json", "")), at)
                except ValueError:
                    return None
    return None


def tree_objects(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """The ConfigMaps and Secrets a file's text defines, by (kind, name): their values."""
    return {
        owner: {key: token.text for key, token in keys.items()}
        for owner, keys in file_objects(text).items()
    }


def _lookup(kind: str, owner: str, span: Span, objects: dict) -> dict[str, Token] | None:
    """A ConfigMap's or Secret's keys: from this file (tokens at their own lines), else from
    another file of the run (tokens at ``span``, the reference in this file)."""
    found = objects.get((kind, owner))
    if found is not None:
        return found
    elsewhere = _tree_objects.get((kind, owner))
    if elsewhere is None or AMBIGUOUS in elsewhere:
        return None
    return {key: Token(value, span) for key, value in elsewhere.items()}


# file_objects of the last few texts, by the text: the containers of a file ask for the same
# objects, and so do its config files (config_files.py) and fix verification
_FILE_OBJECTS: dict[str, dict[tuple[str, str], dict[str, Token]]] = {}
_MAX_FILE_OBJECTS = 4


def built_objects(document: YamlDocument) -> dict[tuple[str, str], dict[str, Token]]:
    """The ConfigMaps and Secrets of the kustomize build an object comes from (an overlay's
    object has no text of its own: formats/kustomize.py), else none."""
    return getattr(document, "build_objects", None) or {}


def file_objects(
    text: str, documents: list[YamlDocument] | None = None
) -> dict[tuple[str, str], dict[str, Token]]:
    """ConfigMaps and Secrets written in the same file, by (kind, name): their keys as tokens
    located at the value. A Secret's ``data`` is base64, as Kubernetes stores it.
    ``documents``: ``text`` as load_documents reads it, where the caller has read it already
    (lint does, for every file: a file of ConfigMaps is then not parsed again here)."""
    if "ConfigMap" not in text and "Secret" not in text:
        return {}
    found = _FILE_OBJECTS.get(text)
    if found is None:
        found = objects_in(text if documents is None else documents)
        if len(_FILE_OBJECTS) >= _MAX_FILE_OBJECTS:
            del _FILE_OBJECTS[next(iter(_FILE_OBJECTS))]  # the oldest
        _FILE_OBJECTS[text] = found
    return found


def objects_in(source: str | list[YamlDocument]) -> dict[tuple[str, str], dict[str, Token]]:
    """The ConfigMaps and Secrets of ``source``'s documents (a text is loaded first), by (kind,
    name): file_objects' walk."""
    if isinstance(source, str):
        from ..yamlsrc import load_documents

        documents, _ = load_documents(source)
    else:
        documents = source
    found: dict[tuple[str, str], dict[str, Token]] = {}
    for document in documents:
        data = document.data
        if not isinstance(data, dict) or data.get("kind") not in ("ConfigMap", "Secret"):
            continue
        metadata = data.get("metadata")
        if not isinstance(metadata, dict) or not metadata.get("name"):
            continue
        keys: dict[str, Token] = {}
        for section in ("data", "stringData"):
            values = data.get(section)
            for key, value in (values if isinstance(values, dict) else {}).items():
                text_value = "" if value is None else str(value)
                if data["kind"] == "Secret" and section == "data":
                    try:
                        text_value = base64.b64decode(text_value, validate=True).decode()
                    except (ValueError, UnicodeDecodeError):
                        continue
                keys[str(key)] = Token(text_value, document.span((section, key)))
        found[(str(data["kind"]), str(metadata["name"]))] = keys
    return found


def container_command(
    document: YamlDocument,
    path: Path,
    env: dict[str, Token],
    argv: list[Token] | None = None,
    container: Any = None,
) -> EngineCommand | None:
    """The engine command a container runs (its command and args, or the image's own
    entrypoint when it sets only args), read with that engine's parser, with the config file
    it names where the pod mounts it from a ConfigMap; None for no engine. ``argv``: the
    container's container_argv where the caller has it already."""
    if container is None:
        container = value_at(document.data, path)
    image = None
    if isinstance(container, dict) and "command" not in container:
        image = container.get("image")
    return read_invocation(
        container_argv(document, path, container) if argv is None else argv,
        env,
        document.text,
        image=image,
        # read_invocation places the image's entrypoint only where there is an image: most
        # containers set a command, and their image's place is not looked up
        image_span=None if image is None else document.span((*path, "image")),
        files=_pod_files(document, path[:-2], path),
    )


def _pod_files(document: YamlDocument, pod: Path, cpath: Path) -> ConfigFiles:
    """config_files.pod_files, imported when a command names a config file (config_files.py
    reads pods with this module): an import in a function costs as much as reading a dozen
    words, every container, and few commands name a file."""

    def find(reference: Token) -> ConfigFile | None:
        from .config_files import pod_files

        return pod_files(document, pod, cpath)(reference)

    return find


def container_argv(document: YamlDocument, path: Path, container: Any = None) -> list[Token]:
    argv: list[Token] = []
    if container is None:
        container = value_at(document.data, path)
    if not isinstance(container, dict):
        return argv  # value_at finds no command nor args under anything else
    for key in ("command", "args"):
        value = container.get(key)
        if isinstance(value, list):
            where = (*path, key)
            # the words' spans from one search for the list, where the tree gives them
            spans = document.item_spans(where)
            if spans is None or len(spans) != len(value):
                spans = [document.span((*where, i)) for i in range(len(value))]
            argv += [
                Token("" if v is None else str(v), span)
                for v, span in zip(value, spans, strict=True)
            ]
        elif value is not None:
            argv.append(Token(str(value), document.span((*path, key))))
    return argv


class Reader:
    """Collects the findings of one document."""

    def __init__(self, document: YamlDocument, display: str):
        self.document = document
        self.display = display
        self.findings: list[Diagnostic] = []

    def render_first(self, value: str, span: Span, name: str | None) -> None:
        """A template placeholder in one field: that field is unreadable (an info at it), the
        rest of the document is still read."""
        self.findings.append(
            input_diagnostic(
                "HBM011",
                f"'{value}' holds a template placeholder ({placeholder(value)}) that is filled "
                "in before Kubernetes sees it; hbmlint reads this field once it is rendered",
                self.display,
                span,
                name,
                [RENDER_HINT],
            )
        )

    def build(
        self,
        command: EngineCommand,
        name: str,
        gpu: Any,
        where: Span,
        image: Any = None,
        image_span: Span | None = None,
        hints: list[Label] | None = None,
        release: str | None = None,
    ) -> list[Deployment]:
        """The Deployment of ``command`` (none when it names no readable model; the finding
        says why), its findings kept here; ``image``'s tag names the engine release, else
        ``release`` (the one the operator runs without an image, written where ``where`` is)."""
        version = image_version(image) if isinstance(image, str) else None
        version = version or release
        deployment, findings = build_deployment(
            command,
            name=name,
            display=self.display,
            document=self.document.index,
            gpu=gpu,
            where=where,
            engine_version=(version, image_span or where) if version else None,
            hints=hints,
            image=image,
        )
        self.findings.extend(findings)
        return [deployment] if deployment is not None else []

    def count(self, path: Path, name: str | None) -> int | None:
        """A whole-number field (a GPU limit, an LWS size), or None with a finding."""
        value = value_at(self.document.data, path)
        if value is None:
            return None
        return self._number(value, path, self.document.span(path), name)

    def _number(self, value: Any, path: Path, span: Span, name: str | None) -> int | None:
        """count() of ``value``, the field at ``path`` (written at ``span``)."""
        if placeholder(value):
            self.render_first(str(value), span, name)
            return None
        try:
            number = int(str(value).strip())
            if number < 0:
                raise ValueError
        except ValueError:
            field = ".".join(str(p) for p in path[-2:])
            self.findings.append(
                input_diagnostic(
                    "HBM004", f"{field}: '{value}' is not a whole number", self.display, span, name
                )
            )
            return None
        return number

    def other_accelerator(
        self,
        path: Path,
        name: str | None,
        container: Any = None,
        command: EngineCommand | None = None,
        env: dict[str, Token] | None = None,
    ) -> bool:
        """Whether the container at ``path`` asks for an accelerator that is not a GPU (and for
        no GPU), or, asking for no GPU, runs its engine on one (``--device cpu``, a Gaudi's
        HABANA_VISIBLE_DEVICES in ``env``); if so an info says why it is not budgeted. ``--gpu``
        is for manifests that name no device: budgeting a TPU pod on one would make up the
        memory it has, and a CPU deployment has none."""
        resources = _resources(self.document, path, container)
        if not isinstance(resources, dict):
            return self._runs_elsewhere(command, env, name)
        asked = []
        for section in ("limits", "requests"):
            names = resources.get(section)
            if isinstance(names, dict):
                for resource in names:
                    if resource in GPU_RESOURCES:
                        return False  # a GPU is asked for (most containers): nothing to say
                    asked.append((section, resource))
        for section, resource in asked:
            device = OTHER_ACCELERATORS.get(resource)
            if device is not None:
                self.findings.append(
                    input_diagnostic(
                        "HBM014",
                        f"the container asks for {resource}: it runs the engine's build for "
                        f"{device}, whose memory hbmlint does not budget (NVIDIA and AMD GPUs "
                        "only); this deployment is not checked",
                        self.display,
                        self.document.span((*path, "resources", section, resource)),
                        name,
                    )
                )
                return True
        return self._runs_elsewhere(command, env, name)

    def _runs_elsewhere(
        self, command: EngineCommand | None, env: dict[str, Token] | None, name: str | None
    ) -> bool:
        found = (command is not None and accelerators.in_command(command)) or (
            env is not None and accelerators.in_environment(env)
        )
        if found:
            self.findings.append(accelerators.not_budgeted(found, self.display, name))
        return bool(found)

    def container_gpus(
        self, path: Path, name: str | None, container: Any = None
    ) -> tuple[int | None, Span | None]:
        resources = _resources(self.document, path, container)
        for section in ("limits", "requests"):
            asked = resources.get(section) if isinstance(resources, dict) else None
            for resource in GPU_RESOURCES:
                if isinstance(asked, dict) and asked.get(resource) is not None:
                    where = (*path, "resources", section, resource)
                    span = self.document.span(where)  # count()'s, found once
                    count = self._number(asked[resource], where, span, name)
                    if count == 0 and resource == "nvidia.com/gpu":
                        exposed = _visible_by_runtime(self.document, path)
                        if exposed is not None:
                            return exposed
                    return count, span
        for label, where in mig_resources(self.document, path, container):
            # each nvidia.com/mig-<profile> the container asks for is one GPU to the engine
            return self.count(where, name), label.span
        for section in ("limits", "requests"):
            asked = resources.get(section) if isinstance(resources, dict) else None
            for resource in asked if isinstance(asked, dict) else ():
                if gpu_resource(resource) == "gpu" and not resource.endswith(".shared"):
                    # a GPU under a cluster's own name (nvidia.com/a100); N of a shared one
                    # (nvidia.com/gpu.shared) may be replicas of one card, no count of cards
                    where = (*path, "resources", section, resource)
                    return self.count(where, name), self.document.span(where)
        return None, None


def _visible_by_runtime(document: YamlDocument, cpath: Path) -> tuple[int | None, Span] | None:
    """The GPUs a container asking the device plugin for none (``nvidia.com/gpu: 0``) gets from
    the NVIDIA container runtime through ``NVIDIA_VISIBLE_DEVICES`` in its env (the runtime's own
    variable; a way to share one GPU between pods): ``all`` is a count hbmlint cannot know (None),
    a list of indices or UUIDs its length. None where the env does not set it readably, or hides
    the GPUs (``none``, ``void``, empty)."""
    token = container_env(document, cpath).get("NVIDIA_VISIBLE_DEVICES")
    if token is None or not token.readable:
        return None
    text = token.text.strip()
    if text.lower() == "all":
        return None, token.span
    count = device_count(text)
    return None if count is None else (count, token.span)


# resources of NVIDIA's device plugins that are no GPU of their own: HAMi's share of one
# (nvidia.com/gpucores, gpumem), the network operator's devices (nvidia.com/hostdev, rdma, sriov)
_NOT_A_GPU = ("gpucores", "gpumem", "gpumem-percentage", "hostdev", "mlnxnics")


def gpu_resource(resource: Any) -> str | None:
    """What an ``nvidia.com/...`` resource other than ``nvidia.com/gpu`` and its MIG slices is:
    "gpu" where each one is a GPU to the engine (the device plugin's shared resource,
    nvidia.com/gpu.shared, or a name of the catalog's GPU, NRP Nautilus's nvidia.com/a100),
    "unknown" for another name of NVIDIA's (a cluster's GPU hbmlint does not know, or a
    device that is none), None for the rest."""
    if not isinstance(resource, str) or not resource.startswith("nvidia.com/"):
        return None
    tail = resource[len("nvidia.com/") :]
    if tail == "gpu" or tail.startswith("mig-") or tail.lower() in _NOT_A_GPU:
        return None
    if tail.startswith(("rdma", "sriov")):
        return None
    if tail.endswith(".shared") or find_gpu(tail) is not None:
        return "gpu"
    return "unknown"


def image_gpu_labels(document: YamlDocument, cpath: Path, container: Any = None) -> list[Label]:
    """What a container's GPU request and image say of its GPU, as labels. An ``amd.com/gpu``
    request (and none of NVIDIA's) at the resource: the pod runs on an AMD GPU, so resolve does
    not budget it on a default GPU of another vendor. A container that asks for no GPU resource
    and runs a ROCm image (given /dev/kfd by a hostPath, as vllm-project/aibrix's AMD samples
    do) says the same at its image. An image built for one GPU (an AMD family's, or the DGX
    Spark's) names it (IMAGE_BUILD)."""
    found: list[Label] = []
    nvidia = False
    if container is None:
        container = value_at(document.data, cpath)
    container = container if isinstance(container, dict) else {}  # none: value_at's None
    asked = container.get("resources")
    for section in ("limits", "requests"):
        resources = asked.get(section) if isinstance(asked, dict) else None
        if not isinstance(resources, dict):
            continue
        if "nvidia.com/gpu" in resources:
            nvidia = True
            continue
        named = [r for r in resources if gpu_resource(r) is not None]
        if named:
            # nvidia.com/a100, nvidia.com/gpu.shared: resolve reads the GPU from its name
            where = (*cpath, "resources", section, named[0])
            found.append(Label(GPU_RESOURCE, named[0], document.span(where)))
            nvidia = True
            break
        if "amd.com/gpu" in resources:
            where = (*cpath, "resources", section, "amd.com/gpu")
            found.append(Label("amd.com/gpu", str(resources["amd.com/gpu"]), document.span(where)))
            break
    image = container.get("image")
    if not found and not nvidia and isinstance(image, str) and accelerators.is_rocm_image(image):
        found.append(Label(ROCM_IMAGE, image, document.span((*cpath, "image"))))
    built = image_build_gpu(image) if isinstance(image, str) else None
    # (an AMD build where NVIDIA GPUs are asked for, a Spark build where AMD's are: not taken)
    if built is not None and not (nvidia if built != "GB10" else found):
        found.append(Label(IMAGE_BUILD, image, document.span((*cpath, "image"))))
    return found


def mig_resources(
    document: YamlDocument, cpath: Path, container: Any = None
) -> list[tuple[Label, Path]]:
    """A container's MIG slices under the device plugin's mixed strategy
    (``nvidia.com/mig-1g.10gb: 1``), as a ``nvidia.com/mig`` label holding the profile for
    resolve (catalog/labels.py), placed at the resource."""
    found: list[tuple[Label, Path]] = []
    resources = _resources(document, cpath, container)
    for section in ("limits", "requests"):
        asked = resources.get(section) if isinstance(resources, dict) else None
        for key in asked if isinstance(asked, dict) else ():
            if isinstance(key, str) and key.startswith("nvidia.com/mig-"):
                where = (*cpath, "resources", section, key)
                span = document.span(where)
                found.append((Label("nvidia.com/mig", key[15:], span), where))
        if found:
            break
    return found


def vgpu_memory(document: YamlDocument, cpath: Path, container: Any = None) -> list[Label]:
    """A container's share of each GPU's memory under HAMi's vGPU device plugin
    (``nvidia.com/gpumem: 20000``, ``nvidia.com/gpumem-percentage: 50``), as a label at the
    resource for resolve, which caps the GPU's memory by it."""
    resources = _resources(document, cpath, container)
    for section in ("limits", "requests"):
        asked = resources.get(section) if isinstance(resources, dict) else None
        for key in (VGPU_MEMORY, VGPU_PERCENT):
            if isinstance(asked, dict) and asked.get(key) is not None:
                span = document.span((*cpath, "resources", section, key))
                return [Label(key, str(asked[key]), span)]
    return []


def node_labels(
    document: YamlDocument, selector_path: Path | None, terms_path: Path | None
) -> list[Label]:
    """Every node label a pod requires, with where: a nodeSelector map's entries and the ``In``
    expressions of node-selector terms (each of their values)."""
    data = document.data
    found = []
    selector = value_at(data, selector_path) if selector_path else None
    if isinstance(selector, dict):
        for key, value in selector.items():
            found.append(Label(str(key), str(value), document.span((*selector_path, key))))
    if terms_path is None:
        return found
    terms = value_at(data, terms_path)
    for t, term in enumerate(terms if isinstance(terms, list) else []):
        expressions = term.get("matchExpressions") if isinstance(term, dict) else None
        for e, expr in enumerate(expressions if isinstance(expressions, list) else []):
            if not isinstance(expr, dict) or expr.get("operator") != "In":
                continue
            values = expr.get("values")
            for v, value in enumerate(values if isinstance(values, list) else []):
                where = (*terms_path, t, "matchExpressions", e, "values", v)
                found.append(Label(str(expr.get("key")), str(value), document.span(where)))
    return found


def metadata_labels(document: YamlDocument, *paths: Path) -> list[Label]:
    """The labels and annotations under each ``metadata`` path (the workload's own, its pod
    template's), with where: resolve reads the ones that name a model or a GPU."""
    found = []
    for path in paths:
        metadata = value_at(document.data, path)  # found once for both sections
        if not isinstance(metadata, dict):
            continue  # value_at finds neither section under anything else
        for section in ("annotations", "labels"):
            items = metadata.get(section)
            if isinstance(items, dict):
                for key, value in items.items():
                    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                        span = document.span((*path, section, key))
                        found.append(Label(str(key), str(value), span))
    return found
