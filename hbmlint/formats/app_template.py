"""Values of bjw-s's app-template chart (bjw-s-labs/helm-charts, built on its "common" library):
the chart most Flux and Argo CD home-lab repositories deploy a single container with, vLLM
included. Read as a values file, or inline in a Flux HelmRelease (``spec.values``) or an Argo CD
Application (``spec.source.helm.valuesObject``).

What the library renders (charts/library/common/templates, chart version 4.1):

- ``controllers.<controller>.containers.<container>`` is one container of the controller's pod;
  a controller or container with ``enabled: false`` is not rendered.
- ``image`` is a mapping: ``repository:tag``.
- ``command`` and ``args`` are a list, or a string that becomes a one-word list.
- ``env`` is a list of EnvVars, or a mapping ``NAME: value`` where a mapping value holds
  ``value`` or ``valueFrom`` (or is itself the ``valueFrom``: ``secretKeyRef: ...``).
- the controller's ``defaultContainerOptions`` fill each field a container leaves empty
  (``defaultContainerOptionsStrategy: merge`` merges the mappings instead).
- a pod option (``nodeSelector``, ``affinity``) is the controller's ``pod.<option>`` where set,
  else ``defaultPodOptions.<option>`` (``defaultPodOptionsStrategy: merge`` merges them).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path as FilePath
from typing import Any

from ..diagnostics import Diagnostic
from ..engines import read_invocation
from ..engines.args import Token
from ..spec import Deployment
from ..yamlsrc import YamlDocument
from .build import GpuFacts
from .kubernetes import document_name
from .podspec import (
    Path,
    Reader,
    container_argv,
    container_env,
    env_list,
    file_objects,
    image_gpu_labels,
    metadata_labels,
    mig_resources,
    node_labels,
    runs_engine,
    value_at,
    value_from,
)

NAME = "app-template"

# where a GitOps object holds a chart's values inline (as helm_values.py reads them)
_INLINE_VALUES = (("spec", "values"), ("spec", "source", "helm", "valuesObject"))
_CONTAINER_FIELDS = ("image", "command", "args", "env", "envFrom", "resources")
_AFFINITY = ("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def _base(data: Any) -> Path | None:
    """Where the chart's values start (the document, or a GitOps object's inline values), or
    None where no ``controllers`` mapping holds a ``containers`` mapping."""
    if not isinstance(data, dict):
        return None
    if "kind" not in data:
        if _has_controllers(data):
            return ()
        # an umbrella chart's values: the app-template dependency's under its name (or alias)
        for key, values in data.items():
            if isinstance(values, dict) and _has_controllers(values):
                return (key,)
        return None
    if not isinstance(data.get("spec"), dict):
        return None
    for path in _INLINE_VALUES:
        if _has_controllers(value_at(data, path)):
            return path
    return None


def _has_controllers(values: Any) -> bool:
    controllers = values.get("controllers") if isinstance(values, dict) else None
    return isinstance(controllers, dict) and any(
        isinstance(c, dict) and isinstance(c.get("containers"), dict) for c in controllers.values()
    )


def _umbrella(data: dict) -> bool:
    """Whether a top-level value of ``data`` holds ``controllers`` (a chart's values under the
    name of its app-template dependency)."""
    return "kind" not in data and any(type(v) is dict and "controllers" in v for v in data.values())


def detect(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    # most documents: a look at each top-level value, for an umbrella chart's values
    if "controllers" not in data and "spec" not in data and not _umbrella(data):
        return False
    base = _base(data)
    return base is not None and bool(_engine_containers(data, base))


class _Container:
    """One container as the library renders it: each field with the path it is written at (the
    container's own, or the controller's defaultContainerOptions where the container leaves it
    empty)."""

    def __init__(self, controller_path: Path, controller: dict, key: str, own: dict):
        self.path: Path = (*controller_path, "containers", key)
        defaults = controller.get("defaultContainerOptions")
        defaults = defaults if isinstance(defaults, dict) else {}
        merge = controller.get("defaultContainerOptionsStrategy") == "merge"
        self.fields: dict[str, tuple[Any, Path]] = {}
        for field in _CONTAINER_FIELDS:
            value = own.get(field)
            default = defaults.get(field)
            if value not in (None, "", [], {}):
                if merge and isinstance(value, dict) and isinstance(default, dict):
                    value = {**default, **value}  # the container's keys win
                self.fields[field] = (value, self.path)
            elif default not in (None, "", [], {}):
                self.fields[field] = (default, (*controller_path, "defaultContainerOptions"))

    def value(self, field: str) -> Any:
        found = self.fields.get(field)
        return None if found is None else found[0]

    def holder(self, field: str) -> Path:
        """The path of the mapping that holds ``field`` (its own container where unset)."""
        found = self.fields.get(field)
        return self.path if found is None else found[1]

    def image(self) -> str | None:
        """``repository:tag`` as the library writes it (nothing without both)."""
        image = self.value("image")
        if not isinstance(image, dict) or not image.get("repository"):
            return None
        tag = image.get("tag")
        return f"{image['repository']}:{tag}" if tag not in (None, "") else None

    def view(self) -> dict:
        """The container as a pod spec holds it (image as one string), for the readers of
        podspec.py that judge a container by its fields."""
        view = {field: value for field, (value, _) in self.fields.items()}
        view["image"] = self.image()
        return view


def _containers(data: Any, base: Path) -> Iterator[tuple[str, str, _Container]]:
    """Each container the chart renders (its controller and itself enabled): its controller's
    and its own key, and it."""
    controllers = value_at(data, (*base, "controllers"))
    for ckey, controller in controllers.items() if isinstance(controllers, dict) else ():
        if not isinstance(controller, dict) or controller.get("enabled") is False:
            continue
        containers = controller.get("containers")
        for key, own in containers.items() if isinstance(containers, dict) else ():
            if isinstance(own, dict) and own.get("enabled") is not False:
                container = _Container((*base, "controllers", ckey), controller, str(key), own)
                yield str(ckey), str(key), container


def _engine_containers(data: Any, base: Path) -> list[tuple[str, str, _Container]]:
    """Each rendered container that runs an engine: its controller's and its own key, and it."""
    return [found for found in _containers(data, base) if runs_engine(found[2].view())]


def rendered_containers(data: Any) -> list[tuple[Path, dict]]:
    """Each container the chart renders from ``data`` (app-template values, at the top or
    inline in a GitOps object), engine or not: the path of the mapping that holds its command
    (its own, or the controller's defaultContainerOptions) and its view as a pod spec holds it
    (formats/unread_pods.py judges those no reader read)."""
    base = _base(data)
    if base is None:
        return []
    return [(c.holder("command"), c.view()) for _, _, c in _containers(data, base)]


def _argv(document: YamlDocument, container: _Container) -> list[Token]:
    argv: list[Token] = []
    for field in ("command", "args"):
        value = container.value(field)
        if value is not None:
            argv += container_argv(document, container.holder(field), {field: value})
    return argv


def _env(document: YamlDocument, container: _Container) -> dict[str, Token]:
    """The container's environment: envFrom (Kubernetes' form) then env, a list or the
    library's mapping (rendered in its keys' order, as Go ranges over a map)."""
    env: dict[str, Token] = {}
    sources = container.value("envFrom")
    if sources is not None:
        env = container_env(document, container.holder("envFrom"), container={"envFrom": sources})
    items = container.value("env")
    path = (*container.holder("env"), "env")
    if isinstance(items, list):
        return env_list(document, path, None, items, env)
    if not isinstance(items, dict):
        return env
    objects = None
    for name in sorted(items, key=str):
        value = items[name]
        where = (*path, name)
        if isinstance(value, dict) and "value" in value:
            value, where = value["value"], (*where, "value")
        elif isinstance(value, dict):
            source = value.get("valueFrom", value)
            if not isinstance(source, dict):
                continue
            if objects is None:
                objects = file_objects(document.text)
            env[str(name)] = value_from(str(name), source, document.span(where), objects)
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"  # Go's toString, not Python's
        else:
            text = "" if value is None else str(value)
        env[str(name)] = Token(text, document.span(where))
    return env


def _pod_option(data: Any, base: Path, controller_path: Path, option: str) -> list[Path]:
    """Where a pod option is written as the library picks it: the controller's pod's, else the
    default pod options' (both, merged, under defaultPodOptionsStrategy: merge)."""
    values = value_at(data, base)
    own = (*controller_path, "pod", option)
    default = (*base, "defaultPodOptions", option)
    has_own = value_at(data, own) not in (None, {}, [])
    has_default = value_at(data, default) not in (None, {}, [])
    if has_own and has_default and values.get("defaultPodOptionsStrategy") == "merge":
        return [own, default]
    if has_own:
        return [own]
    return [default] if has_default else []


def to_deployments(
    document: YamlDocument, path: Any, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    data = document.data
    reader = Reader(document, display)
    base = _base(data) or ()
    if base and "kind" in data:
        release, where = document_name(document, reader, str(data.get("kind")))
    else:
        release, where = FilePath(display).stem, document.span(())
    found = _engine_containers(data, base)
    deployments: list[Deployment] = []
    for ckey, key, container in found:
        name = f"{release}/{ckey}" if len(found) > 1 else release
        if sum(1 for other, _, _ in found if other == ckey) > 1:
            name += f"/{key}"
        env = _env(document, container)
        image = container.image()
        image_span = document.span((*container.holder("image"), "image", "tag"))
        command = read_invocation(
            _argv(document, container),
            env,
            document.text,
            image=image if container.value("command") is None else None,
            image_span=image_span,
        )
        view = container.view()
        resources_at = container.holder("resources")
        if command is None or reader.other_accelerator(resources_at, name, view, command, env):
            continue
        count, count_span = reader.container_gpus(resources_at, name, view)
        controller_path = (*base, "controllers", ckey)
        labels = []
        for selector in _pod_option(data, base, controller_path, "nodeSelector"):
            labels += node_labels(document, selector, None)
        for affinity in _pod_option(data, base, controller_path, "affinity"):
            labels += node_labels(document, None, (*affinity, *_AFFINITY, "nodeSelectorTerms"))
        labels += [label for label, _ in mig_resources(document, resources_at, view)]
        labels += image_gpu_labels(document, resources_at, view)
        gpu = GpuFacts(count=count, count_span=count_span, labels=labels)
        hints = metadata_labels(document, ("metadata",), controller_path, (*controller_path, "pod"))
        at = document.key_span((*container.path,)) or where
        deployments += reader.build(command, name, gpu, at, image, image_span, hints)
    return deployments, reader.findings
