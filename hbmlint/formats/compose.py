"""docker-compose files: each service that runs vLLM, SGLang or TGI (by its ``command`` /
``entrypoint``, or an engine image's own entrypoint) is one Deployment.

Values are interpolated as ``docker compose`` does before anything else: ``${VAR}``, ``$VAR``,
``${VAR:-default}`` / ``${VAR-default}``, ``${VAR:+alt}`` / ``${VAR+alt}``, ``${VAR:?message}``
/ ``${VAR?message}``, and ``$$`` for a literal ``$``, from the ``.env`` file beside the compose
file. The shell that runs ``docker compose`` may set more, which hbmlint cannot see: a variable
set nowhere in the files is an info (the default applies where one is written). ``command`` may
be a list or one string (Compose splits it like a shell, without running one). The container's
environment is ``env_file:`` then ``environment:``. The GPU count comes from
``deploy.resources.reservations.devices`` (``count`` or ``device_ids``), or the service's
``gpus:`` (the same requests, or ``all``); Compose never names a GPU type, so that comes from
``--gpu``.

A service that builds its own image (``build:``, no ``image:``) and passes an engine's flags
is read by the Dockerfile it names, where it is beside the compose file: its JSON-form
``ENTRYPOINT`` runs with the command after it, or, with none, its base image's (``FROM
vllm/vllm-openai:TAG``). Without the Dockerfile, a build named for vLLM (``vllm.Dockerfile``)
with vLLM's flags is read as vLLM's server, with an info saying so; anything else is an info
that the service was not checked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import files
from ..catalog.labels import image_build_gpu
from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import (
    VLLM_ONLY_FLAGS,
    assumed_vllm_image,
    image_engine,
    image_version,
    names_engine,
    read_invocation,
)
from ..engines.args import Token
from ..engines.config_file import (
    ConfigFile,
    ConfigFiles,
    block_spans,
    block_text_line,
    load_settings,
)
from ..engines.shell import Locator
from ..spec import IMAGE_BUILD, ROCM_SAID, Deployment, Label, Placement
from ..yamlsrc import Span, YamlDocument
from . import accelerators
from .build import GpuFacts, build, mounted_from, nvidia_runtime_devices, visible_devices
from .config_files import repository_file

NAME = "compose"
# .env and env_file files are a few lines; a larger one is not read.
_ENV_FILE_BYTES = 1024 * 1024


def _runs_engine(service: Any) -> bool:
    if not isinstance(service, dict):
        return False
    # a list form (`entrypoint: [vllm, serve, MODEL]`) is read as the words it runs
    words = [service.get(k) or "" for k in ("entrypoint", "command")]  # as the container runs
    text = " ".join(" ".join(map(str, w)) if isinstance(w, list) else str(w) for w in words)
    if names_engine(text):
        return True
    if "entrypoint" in service:
        return False
    image = service.get("image")
    if image_engine(image) is not None or image_engine(_base_image(service)) is not None:
        return True
    command = service.get("command")
    words = [str(w) for w in command] if isinstance(command, list) else str(command or "").split()
    if _built_here(service):
        # an image built from a Dockerfile of the project's own, no image named: read where its
        # command passes an engine's model flag or a flag only vLLM's server takes
        return _engine_flags(words)
    if isinstance(image, str) and _VARIABLE_IMAGE.match(image):
        # `image: ${VLLM_IMAGE}` set in .env (LSvalbar/custom-ai): read with the interpolated
        # image, where the command passes the model as engines' servers take it, or a flag only
        # vLLM's server takes (anthonywu/dgx-serve-vllm-gemma4: `${MODEL_ID} --max-model-len`)
        return _engine_flags(words)
    return assumed_vllm_image(image, words)


def _engine_flags(words: list[str]) -> bool:
    """Whether ``words`` pass the model as engines' servers take it, or a flag only vLLM's
    server takes."""
    return any(
        w.split("=", 1)[0] in ("--model", "--model-path", "--model-id")
        or w.split("=", 1)[0].replace("_", "-") in VLLM_ONLY_FLAGS
        for w in words
    )


def _built_here(service: dict) -> bool:
    """A service whose image Compose builds (``build:``) and names no image."""
    return service.get("build") is not None and not service.get("image")


# --- a Dockerfile the service is built from --------------------------------------------------

_INSTRUCTION = re.compile(r"^\s*(FROM|ENTRYPOINT)\s+(.*)$", re.I | re.S)


@dataclass
class _Built:
    """What the Dockerfile a service is built from says: its name as written, the last
    stage's JSON-form ENTRYPOINT words (None: none, or a shell form), and its base image."""

    name: str
    entrypoint: list[str] | None
    base: str | None


def _dockerfile(service: dict, compose_dir: Path | None) -> _Built | None:
    """The Dockerfile a ``build:`` names (``dockerfile_inline``, or ``context`` /
    ``dockerfile`` from the compose file's folder), read; None where it is not there."""
    build = service.get("build")
    if isinstance(build, str):
        build = {"context": build}
    if not isinstance(build, dict):
        return None
    inline = build.get("dockerfile_inline")
    if isinstance(inline, str):
        return _read_dockerfile("dockerfile_inline", inline)
    context = str(build.get("context") or ".")
    name = str(build.get("dockerfile") or "Dockerfile")
    if compose_dir is None or "://" in context or context[:4] == "git@":
        return None
    # a file of the project, from the compose file's folder (the context may be `..`)
    relative = str(Path(context) / name)
    text = repository_file(compose_dir / "compose.yaml", relative, up=False, above=True)
    return _read_dockerfile(name, text) if text is not None else None


def _read_dockerfile(name: str, text: str) -> _Built:
    entrypoint: list[str] | None = None
    base: str | None = None
    logical = re.sub(r"\\[ \t]*\r?\n", " ", text)  # continuation lines joined
    for line in logical.splitlines():
        if line.lstrip().startswith("#"):
            continue
        match = _INSTRUCTION.match(line)
        if match is None:
            continue
        keyword, rest = match.group(1).upper(), match.group(2).strip()
        if keyword == "FROM":  # a new stage: what the earlier one set is not the image's
            words = [w for w in rest.split() if not w.startswith("--")]
            base, entrypoint = (words[0] if words else None), None
            continue
        try:
            parsed = json.loads(rest)
        except ValueError:
            parsed = None  # the shell form runs `/bin/sh -c`, which drops the command's words
        ok = isinstance(parsed, list) and all(isinstance(w, str) for w in parsed)
        entrypoint = parsed if ok else None
    return _Built(name, entrypoint, base)


_VARIABLE_IMAGE = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*")


def _base_image(service: dict, interpolate: Any = None) -> str | None:
    """The engine image a service's ``build`` says its image is built from, where a build
    argument names one (``args: {VLLM_BASE_IMAGE: vllm/vllm-openai:nightly}`` for a Dockerfile
    that starts ``FROM ${VLLM_BASE_IMAGE}``): the image keeps that entrypoint."""
    build = service.get("build")
    args = build.get("args") if isinstance(build, dict) else None
    if isinstance(args, dict):
        values = [str(v) for v in args.values() if v is not None]
    elif isinstance(args, list):
        values = [str(a).partition("=")[2] for a in args]
    else:
        return None
    for value in values:
        text = interpolate(value)[0] if interpolate is not None else value
        if image_engine(text) is not None:
            return text
    return None


def detect(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("services"), dict):
        return False
    return any(_runs_engine(s) for s in data["services"].values())


# --- interpolation ---------------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-+?])(.*))?", re.S)


class Interpolation:
    """Compose's variable substitution with the variables the files give (``.env``).

    A reference to a variable set nowhere stays as written in the result, and ``missing`` says
    why for each ("${VAR} is ..."), so the word that holds it is unreadable, not wrong."""

    def __init__(self, variables: dict[str, str], where: str):
        self.variables = variables
        self.where = where  # "the .env file beside it", or "no .env file"

    def __call__(self, text: str) -> tuple[str, list[str]]:
        missing: list[str] = []
        return self._expand(text, missing), missing

    def _expand(self, s: str, missing: list[str]) -> str:
        out: list[str] = []
        i = 0
        while i < len(s):
            c = s[i]
            if c != "$" or i + 1 >= len(s):
                out.append(c)
                i += 1
                continue
            nxt = s[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
            elif nxt == "{":
                end = _closing_brace(s, i + 1)
                out.append(self._braced(s[i + 2 : end], s[i : end + 1], missing))
                i = end + 1
            else:
                match = _NAME.match(s, i + 1)
                if match is None:
                    out.append(c)
                    i += 1
                    continue
                name = match.group(0)
                if name in self.variables:
                    out.append(self.variables[name])
                else:
                    out.append(s[i : match.end()])
                    missing.append(self._unset(f"${name}", name))
                i = match.end()
        return "".join(out)

    def _braced(self, body: str, written: str, missing: list[str]) -> str:
        match = _BRACED.fullmatch(body)
        if match is None:
            return written  # not a substitution compose reads; left as it is
        name, colon, op, word = match.groups()
        value = self.variables.get(name)
        is_set = value is not None and (bool(value) or not colon)
        if op == "-":
            return value if is_set else self._expand(word, missing)  # type: ignore[return-value]
        if op == "+":
            return self._expand(word, missing) if is_set else ""
        if is_set or (value is not None and not op):
            return value  # type: ignore[return-value]
        if op == "?":
            missing.append(
                f"{written} is required by compose (it refuses to start without {name}), and "
                f"{name} is not set in {self.where}; it must come from the environment that runs "
                "`docker compose`"
            )
        else:
            missing.append(self._unset(written, name))
        return written

    def _unset(self, written: str, name: str) -> str:
        return (
            f"{written} is not set in {self.where}; compose takes {name} from the environment "
            "that runs it (a blank string when unset there too)"
        )


def _closing_brace(s: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(s)):
        if s[i] == "{":
            depth += 1
        elif s[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(s) - 1


def parse_env_file(text: str, interpolate: Interpolation | None = None) -> dict[str, str]:
    """``KEY=VALUE`` lines as compose reads a .env or env_file file: comments, ``export``,
    single quotes (literal), double quotes (with escapes), inline `` #`` comments."""
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, eq, value = line.partition("=")
        key = key.strip()
        if not eq or not _NAME.fullmatch(key):
            continue
        value = value.strip()
        if value[:1] == "'" and "'" in value[1:]:
            value = value[1 : value.index("'", 1)]
        elif value[:1] == '"' and '"' in value[1:]:
            body = value[1 : value.index('"', 1)]
            value = body.replace("\\n", "\n").replace('\\"', '"')
            if interpolate is not None:
                value = Interpolation({**interpolate.variables, **values}, interpolate.where)(
                    value
                )[0]
        else:
            value = re.split(r"\s+#", value, maxsplit=1)[0].strip()
            if interpolate is not None:
                value = Interpolation({**interpolate.variables, **values}, interpolate.where)(
                    value
                )[0]
        values[key] = value
    return values


def _read_env_file(path: Path) -> str | None:
    try:
        return files.read_text(path, _ENV_FILE_BYTES)
    except files.FileReadError:
        return None


def project_variables(path: Path) -> Interpolation:
    """The variables compose interpolates from: the ``.env`` file beside the compose file."""
    if str(path) in ("-", "<stdin>"):
        return Interpolation({}, "any file hbmlint reads (the compose file came on stdin)")
    dotenv = Path(path).parent / ".env"
    text = _read_env_file(dotenv) if dotenv.is_file() else None
    if text is None:
        return Interpolation({}, "a .env file beside the compose file (there is none)")
    empty = Interpolation({}, "the .env file")
    return Interpolation(parse_env_file(text, empty), "the .env file beside the compose file")


# --- reading services ------------------------------------------------------------------------


def _value(document: YamlDocument, path: tuple) -> Any:
    value = document.data
    for key in path:
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and key < len(value):
            value = value[key]
        else:
            return None
    return value


def _token(text: Any, span: Span, interpolate: Interpolation) -> Token:
    value, missing = interpolate("" if text is None else str(text))
    return Token(value, span, tuple(missing))


def _words(document: YamlDocument, path: tuple, interpolate: Interpolation) -> list[Token]:
    value = _value(document, path)
    if value is None:
        return []
    if isinstance(value, list):
        return [_token(v, document.span((*path, i)), interpolate) for i, v in enumerate(value)]
    span = document.span(path)
    text, missing = interpolate(str(value))
    locator = Locator(document.text, span)
    tokens = []
    for word, start, end in compose_split(text):
        # what compose could not interpolate stays as written: the word is unreadable, saying why
        why = tuple(reason for reason in missing if reason.split(" is ", 1)[0] in word)
        tokens.append(Token(word, locator.locate(text[start:end]), why))
    return tokens


def compose_split(text: str) -> list[tuple[str, int, int]]:
    """A string ``command`` / ``entrypoint`` split as Compose splits it (compose-go's
    ShellCommand, with mattn/go-shellwords): no shell, no expansion (interpolation is done), a
    backslash escapes the next character everywhere but in single quotes (so ``\\ `` inside a
    double-quoted ``sh -c`` script is a plain space by the time the shell reads it), quotes are
    removed, and an unquoted ``;``, ``&``, ``|``, ``<`` or ``>`` ends the command. Each word with
    where it starts and ends in ``text``. One leniency: a backslash before a line break joins
    the lines, as a shell would (go-shellwords keeps the line break in the word, which no
    engine would read as a flag)."""
    words: list[tuple[str, int, int]] = []
    buf: list[str] = []
    got = False  # go-shellwords emits a word only once it holds a character not escaped
    start: int | None = None
    escaped = double = single = backquote = False
    for i, c in enumerate(text):
        if start is None:
            start = i
        if escaped:
            escaped = False
            if c != "\n" or single or double:
                buf.append(c)
            continue
        if c == "\\" and not single:
            escaped = True
            continue
        if c in " \t\r\n" and not (single or double or backquote):
            if got:
                words.append(("".join(buf), start, i))
                buf, got = [], False
            if not buf:
                start = None
            continue
        if c == '"' and not single:
            double = not double
            continue
        if c == "'" and not double:
            single = not single
            continue
        if c == "`" and not (single or double):
            backquote = not backquote
        elif c in ";&|<>" and not (single or double or backquote):
            break
        got = True
        buf.append(c)
    if got and start is not None:
        words.append(("".join(buf), start, len(text)))
    return words


def _environment(
    document: YamlDocument, spath: tuple, compose_dir: Path | None, interpolate: Interpolation
) -> tuple[dict[str, Token], list[tuple[str, Span]]]:
    """The container's environment (``env_file`` entries, then ``environment``), and the
    env files that could not be read, with where they are named."""
    out: dict[str, Token] = {}
    unread: list[tuple[str, Span]] = []
    env_files = _value(document, (*spath, "env_file"))
    entries = env_files if isinstance(env_files, list) else [env_files] if env_files else []
    for i, entry in enumerate(entries):
        where = document.span((*spath, "env_file", i) if isinstance(env_files, list) else ())
        if not isinstance(env_files, list):
            where = document.span((*spath, "env_file"))
        required = True
        if isinstance(entry, dict):
            required = entry.get("required", True) is not False
            entry = entry.get("path")
        name = interpolate(str(entry))[0] if entry is not None else ""
        text = None
        if compose_dir is not None and name:
            target = compose_dir / name
            text = _read_env_file(target) if target.is_file() else None
        if text is None:
            if required:
                unread.append((name, where))
            continue
        for key, value in parse_env_file(text, interpolate).items():
            out[key] = Token(value, where)
    path = (*spath, "environment")
    env = _value(document, path)
    passed = "is passed through from the environment that runs `docker compose`"
    if isinstance(env, dict):
        for key, value in env.items():
            span = document.span((*path, key))
            if value is None:
                out[str(key)] = Token("", span, (f"{key} {passed}",))
            else:
                out[str(key)] = _token(value, span, interpolate)
    elif isinstance(env, list):
        for i, item in enumerate(env):
            span = document.span((*path, i))
            name, eq, value = str(item).partition("=")
            if eq:
                out[name] = _token(value, span, interpolate)
            else:
                out[name] = Token("", span, (f"{name} {passed}",))
    return out, unread


def to_deployments(
    document: YamlDocument, path: Path, display: str
) -> tuple[list[Deployment], list[Diagnostic]]:
    deployments: list[Deployment] = []
    findings: list[Diagnostic] = []
    interpolate = project_variables(path)
    compose_dir = None if str(path) in ("-", "<stdin>") else Path(path).parent
    for service_name, service in document.data["services"].items():
        if not _runs_engine(service):
            continue
        spath = ("services", service_name)
        name = str(service_name)
        env, unread = _environment(document, spath, compose_dir, interpolate)
        for missing, where in unread:
            findings.append(
                input_diagnostic(
                    "HBM011",
                    f"env_file '{missing}' is not beside the compose file (or not readable); "
                    "the variables it sets are not known to hbmlint",
                    display,
                    where,
                    name,
                )
            )
        argv = _words(document, (*spath, "entrypoint"), interpolate) + _words(
            document, (*spath, "command"), interpolate
        )
        raw_image = service.get("image") if isinstance(service.get("image"), str) else None
        image_text = interpolate(raw_image)[0] if raw_image else None
        if image_engine(image_text) is None:
            # an image built here from an engine's image (its build args name it)
            image_text = _base_image(service, interpolate) or image_text
        built, assumed = None, False
        if (
            image_engine(image_text) is None
            and _built_here(service)
            and "entrypoint" not in service
        ):
            built = _dockerfile(service, compose_dir)
            where = document.span(_build_path(service, spath))
            if built is not None and built.entrypoint:
                # the Dockerfile's ENTRYPOINT runs with the command's words after it
                argv = [Token(word, where) for word in built.entrypoint] + argv
            elif built is not None and image_engine(built.base) is not None:
                image_text = built.base  # built FROM an engine's image: its entrypoint runs
            elif built is None:
                argv, assumed = _named_for_vllm(service, argv, where)
        image = image_text if "entrypoint" not in service else None
        command = read_invocation(
            argv,
            env,
            document.text,
            image=image,
            image_span=document.span((*spath, "image")),
            k8s_expansion=False,
            files=_service_files(document, spath, compose_dir),
        )
        if command is None and _built_here(service) and "entrypoint" not in service:
            findings.append(_unread_build(document, spath, service, built, display, name))
            continue
        if command is not None and assumed:
            command.launcher = "image"
            command.note(
                "HBM011",
                f"the service builds its own image from {_build_name(service)}, which is not "
                "beside the compose file to read; its name and its command's arguments are "
                "vLLM's, so they are read as vLLM's OpenAI server runs them, the newest release "
                "unless a release is said elsewhere",
                argv[0].span,
                "Lint the compose file in its project, with the Dockerfile its build names",
            )
        if command is None:
            unset = interpolate(raw_image)[1] if raw_image else []
            if unset and _VARIABLE_IMAGE.match(raw_image or ""):
                findings.append(
                    input_diagnostic(
                        "HBM011",
                        f"the image is {raw_image}, which hbmlint cannot read "
                        f"({'; '.join(unset)}), so which engine the "
                        "service runs is not known; nothing in it was checked",
                        display,
                        document.span((*spath, "image")),
                        name,
                        fixes=["Set the variable in the .env file beside the compose file"],
                    )
                )
            continue
        other = _other_accelerator(document, spath, service, env, command)
        if other is not None:
            findings.append(accelerators.not_budgeted(other, display, name))
            continue
        gpu = _gpus(document, spath, service, findings, name, display, interpolate)
        if str(service.get("runtime")) == "nvidia":
            gpu = nvidia_runtime_devices(gpu, env.get("NVIDIA_VISIBLE_DEVICES"))
        gpu = visible_devices(gpu, env.get("CUDA_VISIBLE_DEVICES"), command, document.text)
        amd = _amd_gpus(document, spath, service, env, image_text)
        if amd is not None:
            gpu = replace(gpu, labels=[*gpu.labels, Label(ROCM_SAID, amd[0], amd[1])])
        built = image_build_gpu(image_text) if image_text else None
        # an AMD family's build where the service is AMD's, the DGX Spark's where it is not
        if built is not None and (amd is not None) == (built != "GB10"):
            where = document.span((*spath, "image"))
            gpu = replace(gpu, labels=[*gpu.labels, Label(IMAGE_BUILD, image_text, where)])
        version = image_version(image_text)
        deployment, found = build(
            command,
            name=name,
            display=display,
            document=document.index,
            gpu=gpu,
            where=document.key_span(spath),
            engine_version=(version, document.span((*spath, "image"))) if version else None,
            image=image_text,
        )
        findings.extend(found)
        if deployment is not None:
            mounted = _mounted_model(document, spath, deployment.model.name)
            if mounted is not None:
                deployment.hints = [*deployment.hints, mounted]
            deployments.append(deployment)
            devices = _device_ids(service, env, interpolate)
            if devices:
                # for shared_gpu.py, once the budgets have settled each service's fraction
                where = document.span(_devices_path(service, spath))
                deployment.placement = Placement(devices, where, _profiles(service))
    return deployments, findings


# the words an image named for vLLM is taken to run before its command's (vllm/vllm-openai's
# entrypoint before 0.10)
_ASSUMED_SERVER = ("python3", "-m", "vllm.entrypoints.openai.api_server")


def _build_name(service: dict) -> str:
    build = service.get("build")
    if isinstance(build, dict):
        return str(build.get("dockerfile") or Path(str(build.get("context") or ".")).name)
    return Path(str(build)).name


def _named_for_vllm(service: dict, argv: list[Token], where: Span) -> tuple[list[Token], bool]:
    """``argv`` after vLLM's server, and True, where the Dockerfile (or the build's folder) is
    named for vLLM and the command's words are vLLM's (engines.assumed_vllm_image); else
    ``argv`` as it is, and False."""
    words = [t.text for t in argv]
    if not assumed_vllm_image(_build_name(service), words):
        return argv, False
    if words[0] == "serve":  # an image whose entrypoint is `vllm`
        return [Token("vllm", where), *argv], True
    return [Token(word, where) for word in _ASSUMED_SERVER] + argv, True


def _build_path(service: dict, spath: tuple) -> tuple:
    build = service.get("build")
    if isinstance(build, dict) and "dockerfile" in build:
        return (*spath, "build", "dockerfile")
    return (*spath, "build")


def _unread_build(
    document: YamlDocument,
    spath: tuple,
    service: dict,
    built: _Built | None,
    display: str,
    name: str,
) -> Diagnostic:
    """The info for a service built from a Dockerfile whose entrypoint hbmlint cannot say runs
    an engine, while its command passes an engine's flags."""
    if built is None:
        why = (
            "from a Dockerfile that is not beside the compose file (or not readable), so "
            "which program its image runs is not known"
        )
        fixes = [
            "Lint the compose file in its project, with the Dockerfile its build names, or "
            "name the engine's image (image: vllm/vllm-openai:TAG) if it is built from one"
        ]
    else:
        said = (
            f"whose ENTRYPOINT is {json.dumps(built.entrypoint)}"
            if built.entrypoint
            else "whose ENTRYPOINT is no engine's server hbmlint reads (none, or the shell "
            "form, which drops the command's words)"
        )
        why = f"from {built.name}, {said}"
        fixes = ["Set the service's entrypoint to the engine's server (entrypoint: [vllm, serve])"]
    return input_diagnostic(
        "HBM014",
        f"the service builds its own image {why}; its command passes an engine's flags, but "
        "which engine reads them is not known, so nothing in it was checked",
        display,
        document.span(_build_path(service, spath)),
        name,
        fixes,
    )


def _devices_path(service: dict, spath: tuple) -> tuple:
    """Where a service names its GPUs: its device requests, or its `gpus:`."""
    if isinstance(service.get("deploy"), dict):
        return (*spath, "deploy", "resources", "reservations", "devices")
    return (*spath, "gpus") if "gpus" in service else spath


def _device_ids(service: dict, env: dict, interpolate: Interpolation) -> frozenset[str]:
    """The host GPUs a service runs on, where the file names them: its device requests'
    `device_ids`, else NVIDIA_VISIBLE_DEVICES (the NVIDIA runtime's selection); empty where
    it does not say (a count, `all`) or a value is unread."""
    devices = service.get("deploy", {}) or {}
    for key in ("resources", "reservations", "devices"):
        devices = devices.get(key) if isinstance(devices, dict) else None
    if not isinstance(devices, list):
        devices = service.get("gpus") if isinstance(service.get("gpus"), list) else []
    ids: set[str] = set()
    for device in devices:
        if isinstance(device, dict) and isinstance(device.get("device_ids"), list):
            for written in device["device_ids"]:
                value, missing = interpolate(str(written))
                if missing:
                    return frozenset()
                ids.update(part.strip() for part in value.split(",") if part.strip())
    if not ids:
        visible = env.get("NVIDIA_VISIBLE_DEVICES")
        text = getattr(visible, "text", visible)
        if isinstance(text, str) and re.fullmatch(r"\d+(,\d+)*", text.strip()):
            ids.update(text.strip().split(","))
    return frozenset(ids)


def _profiles(service: dict) -> frozenset[str]:
    """The Compose profiles a service runs under (none: it always runs)."""
    profiles = service.get("profiles")
    return frozenset(map(str, profiles)) if isinstance(profiles, list) else frozenset()


def _mounted_model(document: YamlDocument, spath: tuple, model: str | None) -> Label | None:
    """The volume the model's container path comes from (``./models/NAME:/data`` for a model
    at ``/data``), as a MOUNTED_FROM label at the volume's line; None for any other model."""
    if not model or not model.startswith("/"):
        return None
    for host, target, i in _volumes(document, spath):
        found = mounted_from(model, host, target, document.span((*spath, "volumes", i)))
        if found is not None:
            return found
    return None


def _service_files(document: YamlDocument, spath: tuple, compose_dir: Path | None) -> ConfigFiles:
    """Finds a config file the service's command names (``--config /etc/vllm/config.yaml``)
    where the compose file puts it: a config of the project (top-level ``configs:``, written
    inline with ``content:``, each key at its line, or a ``file:``), or a file of the
    project's folder bind-mounted by ``volumes:`` (``./vllm.yaml:/etc/vllm/config.yaml:ro``)."""

    def find(reference: Token) -> ConfigFile | None:
        target = reference.text
        for source, mounted in _service_configs(document, spath):
            if mounted == target:
                return _project_config(document, source, compose_dir, reference.span)
        for host, mounted in _bind_mounts(document, spath):
            if compose_dir is None:
                break
            if target == mounted or target.startswith(mounted.rstrip("/") + "/"):
                file = host + target[len(mounted) :]
                text = repository_file(compose_dir / "compose.yaml", file, up=False)
                settings = load_settings(text) if text is not None else None
                if settings is not None:
                    return ConfigFile(settings, lambda key: reference.span, origin=file)
        return None

    return find


def _service_configs(document: YamlDocument, spath: tuple) -> list[tuple[str, str]]:
    """The service's configs as (source, where the container sees it): ``/<source>`` unless a
    ``target`` says otherwise (Compose specification, services.configs)."""
    found = []
    entries = _value(document, (*spath, "configs"))
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str):
            found.append((entry, f"/{entry}"))
        elif isinstance(entry, dict) and isinstance(entry.get("source"), str):
            source = entry["source"]
            found.append((source, str(entry.get("target") or f"/{source}")))
    return found


def _project_config(
    document: YamlDocument, source: str, compose_dir: Path | None, at: Span
) -> ConfigFile | None:
    config = _value(document, ("configs", source))
    if not isinstance(config, dict):
        return None
    if isinstance(config.get("content"), str):
        settings = load_settings(config["content"])
        if settings is None:
            return None
        block = document.span(("configs", source, "content"))
        lines = document.text.splitlines()
        spans = block_spans(lines, block_text_line(lines, block), block)
        return ConfigFile(settings, spans, origin=f"config '{source}'")
    if isinstance(config.get("file"), str) and compose_dir is not None:
        text = repository_file(compose_dir / "compose.yaml", config["file"], up=False)
        settings = load_settings(text) if text is not None else None
        if settings is not None:
            return ConfigFile(settings, lambda key: at, origin=config["file"])
    return None


def _volumes(document: YamlDocument, spath: tuple) -> list[tuple[str, str, int]]:
    """The service's volumes as (host path or volume name, container path, index):
    ``host:container[:ro]`` or the long form (``source`` / ``target``)."""
    found = []
    entries = _value(document, (*spath, "volumes"))
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if isinstance(entry, str):
            parts = entry.split(":")
            if len(parts) >= 2:
                found.append((parts[0], parts[1], i))
        elif isinstance(entry, dict) and entry.get("type") == "bind":
            source, target = entry.get("source"), entry.get("target")
            if isinstance(source, str) and isinstance(target, str):
                found.append((source, target, i))
    return found


def _bind_mounts(document: YamlDocument, spath: tuple) -> list[tuple[str, str]]:
    """The service's bind mounts of the project's files, as (host path, container path)."""
    return [(h, t) for h, t, _ in _volumes(document, spath) if h.startswith("./")]


def _other_accelerator(
    document: YamlDocument, spath: tuple, service: dict, env: dict[str, Token], command: Any
) -> accelerators.OtherAccelerator | None:
    """A service that runs the engine on a device hbmlint does not budget: ``runtime: habana``,
    such a device's variable in its environment, or the engine's ``--device``."""
    runtime = service.get("runtime")
    if isinstance(runtime, str):
        where = document.span((*spath, "runtime"))
        found = accelerators.in_runtime(runtime, where, f"runtime: {runtime}")
        if found is not None:
            return found
    image = service.get("image")
    if isinstance(image, str) and accelerators.image_device(image) is not None:
        return accelerators.in_image(image, document.span((*spath, "image")))
    return accelerators.in_environment(env) or accelerators.in_command(command)


def _amd_gpus(
    document: YamlDocument, spath: tuple, service: dict, env: dict[str, Token], image: str | None
) -> tuple[str, Span] | None:
    """What says the service runs on AMD GPUs: ROCm's device variable, ``devices: [/dev/kfd,
    ...]`` (ROCm's compose instructions), or a ROCm image."""
    found = accelerators.amd_gpus(env)
    if found is not None:
        return found
    devices = service.get("devices")
    for i, device in enumerate(devices if isinstance(devices, list) else []):
        if str(device).split(":")[0] == "/dev/kfd":
            return "the service is given /dev/kfd (ROCm's device)", document.span(
                (*spath, "devices", i)
            )
    if image and accelerators.is_rocm_image(image):
        return f"the image {image} is a ROCm build", document.span((*spath, "image"))
    return None


def _gpus(
    document: YamlDocument,
    spath: tuple,
    service: dict,
    findings: list,
    name: str,
    display: str,
    interpolate: Interpolation,
) -> GpuFacts:
    devices_path = (*spath, "deploy", "resources", "reservations", "devices")
    devices = service.get("deploy", {}) or {}
    for key in ("resources", "reservations", "devices"):
        devices = devices.get(key) if isinstance(devices, dict) else None
    if not isinstance(devices, list) or not devices:
        # the service's `gpus:` (the Compose Specification's short form of the same device
        # requests, Compose 2.30 on): `gpus: all`, or a list of requests with count/device_ids
        gpus = service.get("gpus")
        if str(gpus).lower() == "all":
            return GpuFacts(count_span=document.span((*spath, "gpus")))
        devices_path, devices = (*spath, "gpus"), gpus
    total, span = 0, None
    for i, device in enumerate(devices if isinstance(devices, list) else []):
        if not isinstance(device, dict):
            continue
        if "count" in device:
            where = document.span((*devices_path, i, "count"))
            value, missing = interpolate(str(device["count"]))
            if missing:
                findings.append(
                    input_diagnostic(
                        "HBM011",
                        f"devices count is {device['count']}, which hbmlint cannot read "
                        f"({'; '.join(missing)}); the GPU count is not known",
                        display,
                        where,
                        name,
                    )
                )
                continue
            if str(value).lower() == "all":
                return GpuFacts(count_span=where)  # every GPU of the host: count unknown
            try:
                total += int(str(value))
            except ValueError:
                findings.append(
                    input_diagnostic(
                        "HBM004",
                        f"devices count: '{value}' is not a whole number or all",
                        display,
                        where,
                        name,
                    )
                )
                continue
            span = span or where
        elif isinstance(device.get("device_ids"), list):
            # ['0,1,2,3'] is four devices: the ids reach the runtime joined by commas
            where = document.span((*devices_path, i, "device_ids"))
            read = [interpolate(str(d)) for d in device["device_ids"]]
            missing = [m for _, unknown in read for m in unknown]
            if missing:
                # one entry may hold several ids ("0,1", written by a setup script)
                findings.append(
                    input_diagnostic(
                        "HBM011",
                        f"device_ids holds a value hbmlint cannot read ({'; '.join(missing)}); "
                        "one entry may name several GPUs ('0,1'), so the GPU count is not known",
                        display,
                        where,
                        name,
                    )
                )
                return GpuFacts(count_span=where)
            ids = [value for value, _ in read]
            total += len([part for d in ids for part in d.split(",") if part.strip()])
            span = span or where
    return GpuFacts(count=total or None, count_span=span)
