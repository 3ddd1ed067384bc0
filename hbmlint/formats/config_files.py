"""Where a manifest keeps the config file its engine command names (vLLM's and SGLang's
``--config FILE``, TensorRT-LLM's ``--extra_llm_api_options FILE``, Dynamo's
``--extra-engine-args FILE``): a key of a ConfigMap the container mounts (in this file, each
value at its line in the ConfigMap, or in another file of the run), or a file of the
repository the manifest is in. What a script writes itself (``cat > FILE <<EOF``) is found by
the engines' reader (engines.written_files)."""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Any

from .. import files
from ..engines.args import Token
from ..engines.config_file import (
    ConfigFile,
    ConfigFiles,
    block_spans,
    block_text_line,
    load_settings,
)
from ..yamlsrc import Span, YamlDocument
from .podspec import Path, file_objects, tree_object, value_at

_CONFIG_BYTES = 1 << 20  # an engine config is a few KB; a larger file is not read
_ANCESTORS = 12  # how far up from the manifest a repository file is looked for


def mounted_config(
    document: YamlDocument, pod: Path, cpath: Path, file: str, at: Span
) -> ConfigFile | None:
    """The YAML of ``file`` where it is a key of a ConfigMap the container mounts (the
    container's ``volumeMounts``, the pod's ``volumes``): from this file (each value at its
    line in the block) or another file of the run (at ``at``)."""
    mounts = value_at(document.data, (*cpath, "volumeMounts"))
    volumes = value_at(document.data, (*pod, "volumes"))
    by_name = {
        v.get("name"): v["configMap"].get("name")
        for v in (volumes if isinstance(volumes, list) else ())
        if isinstance(v, dict) and isinstance(v.get("configMap"), dict)
    }
    for mount in mounts if isinstance(mounts, list) else ():
        if not isinstance(mount, dict) or by_name.get(mount.get("name")) is None:
            continue
        root = str(mount.get("mountPath", "")).rstrip("/")
        sub = mount.get("subPath")
        if sub is not None:
            key = str(sub) if file == root else None
        else:
            key = file[len(root) + 1 :] if file.startswith(root + "/") else None
        if not key:
            continue
        found = _config_map_key(document, str(by_name[mount.get("name")]), key, at)
        if found is not None:
            return found
    return None


def _config_map_key(document: YamlDocument, name: str, key: str, at: Span) -> ConfigFile | None:
    here = (file_objects(document.text).get(("ConfigMap", name)) or {}).get(key)
    if here is not None:  # in this file: each value at its line in the block
        settings = load_settings(here.text)
        if settings is None:
            return None
        lines = document.text.splitlines()
        spans = block_spans(lines, block_text_line(lines, here.span), here.span)
        return ConfigFile(settings, spans, origin=f"ConfigMap '{name}'")
    elsewhere = tree_object("ConfigMap", name)
    if elsewhere is not None and key in elsewhere:
        settings = load_settings(elsewhere[key])
        if settings is None:
            return None
        return ConfigFile(settings, lambda path: at, origin=f"ConfigMap '{name}'")
    return None


def repository_file(
    path: Any, file: str, workdir: Any = None, *, up: bool = True, above: bool = False
) -> Any:
    """The text of ``file`` in the repository the manifest at ``path`` sits in: relative to
    the container's ``workingDir`` where one is given, looked for from the manifest's folder
    and, with ``up``, each folder above it; with ``above``, a ``../`` path is taken from the
    manifest's folder (a file a script sources by its own folder). None where it is not
    there."""
    if not isinstance(path, FilePath):
        return None
    relative = file
    base = str(workdir or "").rstrip("/")
    if base and relative.startswith(base + "/"):
        relative = relative[len(base) + 1 :]
    relative = relative.removeprefix("./")
    if above and relative.startswith("../") and "$" not in relative and not workdir:
        # a folder above the script's own, as the script names it (`$REPO_ROOT/config/x`
        # with REPO_ROOT its folder's `../..`): that file, not one found by walking up
        try:
            candidate = (path.resolve().parent / relative).resolve()
            return files.read_text(candidate, _CONFIG_BYTES) if candidate.is_file() else None
        except (OSError, ValueError, files.FileReadError):
            return None
    if not relative or relative.startswith(("/", "..")) or "$" in relative:
        return None
    folder = path.resolve().parent
    for _ in range(_ANCESTORS if up else 1):
        candidate = folder / relative
        try:
            if candidate.is_file():
                return files.read_text(candidate, _CONFIG_BYTES)
        except (OSError, files.FileReadError):  # a name too long, a file unreadable
            return None
        if folder.parent == folder:
            break
        folder = folder.parent
    return None


def repository_files(path: Any) -> ConfigFiles | None:
    """Finds a config file a launch script names by a relative path: beside the script, or,
    for a path with a folder in it (``configs/x.yaml``), from any folder above it (a script
    run from the repository's root). Its values are placed at the file's name in the script:
    the other file's lines mean nothing in this one."""
    if not isinstance(path, FilePath):
        return None

    def find(reference: Token) -> ConfigFile | None:
        text = repository_file(path, reference.text, up="/" in reference.text.strip("./"))
        settings = load_settings(text) if text is not None else None
        if settings is None:
            return None
        return ConfigFile(settings, lambda key: reference.span, origin=reference.text)

    return find


def pod_files(document: YamlDocument, pod: Path, cpath: Path) -> ConfigFiles:
    """Finds a config file a container's command names among the ConfigMaps it mounts."""

    def find(reference: Token) -> ConfigFile | None:
        return mounted_config(document, pod, cpath, reference.text, reference.span)

    return find
