"""Find the engine invocation in a container's command line and read it with that engine's
parser: a plain argv, a ``sh -c`` script (the serve line among ``;``, ``&&``, ``exec``...), or an
image whose own entrypoint is the engine (``vllm/vllm-openai`` with only ``args``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import date, timedelta
from functools import lru_cache
from types import ModuleType
from typing import Any

from ..catalog import is_release, released_by, vendor_image_release, vendor_repository
from ..lazyre import LazyPattern
from ..yamlsrc import Span
from . import sglang, tgi, trtllm, vllm
from .args import EngineCommand, Token
from .config_file import ConfigFile, ConfigFiles, block_spans, load_settings, with_config_file
from .shell import SHELLS, Locator, Written, expand_k8s, shell_script, split_script

ENGINES: tuple[ModuleType, ...] = (vllm, sglang, tgi, trtllm)

# Images whose entrypoint runs the engine, so that `args` alone are its flags.
_IMAGE_ENTRYPOINTS = (
    ("vllm-openai", vllm),
    ("vllm/vllm", vllm),
    ("text-generation-inference", tgi),
)

# Words that name an engine anywhere in a file: enough to say a file is one of ours.
ENGINE_WORDS = (
    "vllm serve",
    "vllm.entrypoints",
    "sglang.launch_server",
    "sglang_router.launch_server",
    "sglang serve",
    "text-generation-launcher",
    "vllm/vllm-openai",
    "text-generation-inference",
    # Dynamo's workers take their engine's flags (ai-dynamo/dynamo components/src/dynamo/*)
    "dynamo.vllm",
    "dynamo.sglang",
    "dynamo.trtllm",
    "trtllm-serve",
    "tensorrt_llm.commands.serve",
)
# ... as words: "sglang serve" runs the engine, "the sglang server is up" / "killing vllm servers"
# in a script's messages names it (mattbucci/2x-3090-GA102-300-A1-sglang-inference scripts)
# (an image's word is its whole repository name: vllm/vllm-openai-rocm, lmsysorg/sglang-rocm)
_ENGINE_WORD = re.compile(
    "|".join(
        re.escape(w) + ("(?![A-Za-z])" if w.endswith("serve") else "[\\w.-]*" if "/" in w else "")
        for w in ENGINE_WORDS
    )
)


def names_engine(text: str) -> bool:
    """Whether ``text`` names an engine by one of ENGINE_WORDS, as a word."""
    return _ENGINE_WORD.search(text) is not None


def engine_words(line: str) -> list[tuple[int, str]]:
    """Each engine word in ``line`` with its offset, first first."""
    return [(m.start(), m.group()) for m in _ENGINE_WORD.finditer(line)]


# vLLM's TPU images end in CMD ["/bin/bash"] with no ENTRYPOINT (vllm-project/vllm
# docker/Dockerfile.tpu): what follows the image is a program (`tail -f /dev/null`), not flags
_NO_ENTRYPOINT = ("vllm/vllm-tpu",)


def image_engine(image: str | None) -> ModuleType | None:
    if not isinstance(image, str):
        return None
    name = image.rsplit("@", 1)[0].lower()
    if any(marker in name for marker in _NO_ENTRYPOINT):
        return None
    for marker, module in _IMAGE_ENTRYPOINTS:
        if marker in name:
            return module
    return None


# An image of the team's own that runs vLLM: a repository named for it (``vllm-gemma4:local``,
# ``registry.example.com/ai/vllm:0.9.1``, ``inferex-vllm``), most often built FROM
# vllm/vllm-openai with its entrypoint. Read as vLLM only where its arguments are vLLM's too
# (``--model``, a flag neither SGLang nor TGI takes). Not builds for other devices or other
# programs named for vLLM (its router, llm-d's simulator, vllm-omni).
_NOT_VLLM_SERVER = frozenset(
    ("cpu", "tpu", "ascend", "gaudi", "hpu", "neuron", "xpu", "rocm", "router", "sim")
    + ("simulator", "omni", "benchmark", "bench", "client", "proxy")
)
_NAME_PARTS = LazyPattern(r"[-_.]")


# Flags of vLLM's server that neither SGLang's nor TGI's launcher takes (SGLang's
# server_args.py names the same settings --context-length, --mem-fraction-static,
# --max-running-requests; TGI's launcher --max-total-tokens, --cuda-memory-fraction)
VLLM_ONLY_FLAGS = frozenset(
    ("--gpu-memory-utilization", "--max-model-len", "--max-num-seqs", "--enforce-eager")
    + ("--max-num-batched-tokens", "--speculative-config", "--kv-cache-memory-bytes")
)


def _vllm_only_flag(word: str) -> bool:
    return word.partition("=")[0].replace("_", "-") in VLLM_ONLY_FLAGS


def _model_word(word: str) -> bool:
    """A positional word that names a model: an ORG/NAME id or a path, not a program."""
    return "/" in word and not word.startswith("-") and not word.endswith((".py", ".sh"))


def assumed_vllm_image(image: Any, words: Sequence[str]) -> bool:
    """Whether a container that sets only arguments (``words``) on ``image`` is taken to run
    vLLM's server: an image hbmlint does not know, named for vLLM, given ``--model``, or a
    model as its first word (after ``serve``, for an image whose entrypoint is ``vllm``) and
    a flag only vLLM's server takes."""
    if not isinstance(image, str) or "vllm" not in image.lower() or not words:
        return False
    if any(w == "--model" or w.startswith("--model=") for w in words):
        if not words[0].startswith("-"):
            return False
    else:
        first = 1 if words[0] == "serve" else 0
        if not (words[first:] and _model_word(words[first])):
            return False
        if not any(_vllm_only_flag(w) for w in words[first + 1 :]):
            return False
    return image_engine(image) is None and image_named_for(image) == "vllm"


def image_named_for(image: Any) -> str | None:
    """The engine an image of the team's own is named for (``harbor.example/aip/sglang:v0.5.6``,
    ``registry.example.com/ai/vllm:0.9.1``): its repository's last part names vLLM or SGLang as
    a word, and neither it nor its folders a build for another device or another program
    (_NOT_VLLM_SERVER: a router, a CPU or TPU build, a benchmark); None otherwise. A name is a
    hint, not proof: a caller asks for more (a GPU, a command) before it says the image runs
    that engine."""
    if not isinstance(image, str):
        return None
    path = image.strip().rsplit("@", 1)[0].lower()
    repository = path.rsplit("/", 1)[-1].split(":", 1)[0]
    parts = set(_NAME_PARTS.split(repository))
    folders = set(_NAME_PARTS.split(path.rsplit("/", 1)[0])) if "/" in path else set()
    if (parts | folders) & _NOT_VLLM_SERVER:
        return None
    return "vllm" if "vllm" in parts else "sglang" if "sglang" in parts else None


# Programs that take an engine's name as a word to look for, print or a file to change, not as a
# command to run:
# `pkill -f trtllm-serve`, `which text-generation-launcher`, `echo "${CMD[@]}"`.
_NAME_LOOKUPS = frozenset(
    {"pkill", "pgrep", "killall", "pidof", "which", "whereis", "type", "hash", "man", "ps"}
    | {"echo", "printf"}
    # file tools given the engine's path (`chmod +x "$BIN/trtllm-serve"`), never running it
    | {"chmod", "chown", "chgrp", "cp", "mv", "rm", "ln", "ls", "cat", "touch", "stat", "file"}
    | {"readlink", "realpath", "install", "test", "[", "[["}
)
# An engine asked for its help or release prints it and exits: it serves nothing
# (`trtllm-serve --help`, `sglang serve --help 2>&1 | grep ...`, `vllm serve --help=all`).
_PRINT_AND_EXIT = LazyPattern(r"--help(=.*)?|-h|--version")


def _only_names_the_engine(argv: Sequence[Token], words: list[str] | None = None) -> bool:
    """``words``: the texts of ``argv``, where the caller has them."""
    if words is None:
        words = [t.text for t in argv]
    # past what a condition puts before the command (`if ! command -v trtllm-serve`)
    at = 0
    while at < len(words) and words[at] in _CONDITION_WORDS:
        at += 1
    if at >= len(words):
        return False
    first = words[at].rsplit("/", 1)[-1]
    # `command -v trtllm-serve` prints its path; plain `command vllm serve` runs it
    return first in _NAME_LOOKUPS or (
        first == "command" and words[at + 1 : at + 2] in (["-v"], ["-V"])
    )


_CONDITION_WORDS = frozenset(("!", "if", "elif", "while", "until", "then", "do", "else"))


def _find(argv: Sequence[Token]) -> tuple[ModuleType, int] | None:
    words = [t.text for t in argv]
    if _only_names_the_engine(argv, words):
        return None
    for module in ENGINES:
        start = module.find(list(argv))
        if start is not None:
            # a word _PRINT_AND_EXIT matches holds "-h" (--help too) or "--version": the
            # words are searched one by one only where their text holds one of them
            rest = "\n".join(words[start:])
            if ("-h" in rest or "--version" in rest) and any(
                _PRINT_AND_EXIT.fullmatch(t.text) for t in argv[start:]
            ):
                return None
            return module, start
    return None


def mentions_engine(argv: Sequence[Token], image: str | None = None) -> bool:
    """Cheap check for format detection: does this command (or image) run an engine?"""
    if image_engine(image):
        return True
    text = " ".join(t.text for t in argv)
    return names_engine(text) or bool(_find(argv))


def _origin(name: str, token: Token) -> str:
    """Why the env variable ``name`` has no readable value, as "NAME is ...": a reason about
    another reference (Compose's ``MODEL: ${LLM_MODEL}`` with LLM_MODEL set nowhere) says
    what the variable holds first."""
    why = token.unresolved[0]
    if why.startswith(f"{name} "):
        return why
    return f"{name} is {token.text} in the container's env, and {why}"


CONTAINER_CLIS = ("docker", "podman", "nerdctl")  # what runs an image in a script


def option_value(command: Sequence[Token], i: int, names: tuple[str, ...]) -> Token | None:
    """The value of the option at ``command[i]`` when it is one of ``names``, written
    ``NAME VALUE`` or ``NAME=VALUE`` (docker run's ``-e``, ``--env``, ``--entrypoint``...)."""
    word = command[i]
    if word.text in names:
        return command[i + 1] if i + 1 < len(command) else None
    name, eq, value = word.text.partition("=")
    if eq and name in names and name.startswith("--"):
        return Token(value, word.span, word.unresolved)
    return None


def env_setting(value: Token) -> tuple[str, Token] | None:
    """``NAME=value`` given to ``-e``/``--env``: the name, and the value as a word."""
    name, eq, setting = value.text.partition("=")
    return (name, Token(setting, value.span, value.unresolved)) if eq else None


# `apptainer run IMAGE ARGS` runs the image's runscript, which for an image built from a
# Docker one is its ENTRYPOINT with ARGS (Apptainer docs, "Support for Docker and OCI"): the
# engine image's own launcher, as `docker run` gives it
_RUNSCRIPT_RUNNERS = frozenset(("apptainer", "singularity"))
# their `run` options that take a value (apptainer run --help); every other option is a switch
# (--nv, --rocm, --cleanenv / -e, --containall / -C, --writable-tmpfs, --fakeroot)
_RUNSCRIPT_VALUES = frozenset(
    ("--bind", "-B", "--mount", "--env", "--env-file", "--home", "-H", "--pwd", "--overlay")
    + ("-o", "--workdir", "-W", "--security", "--network", "--network-args", "--hostname")
    + ("--app", "--scratch", "-S", "--apply-cgroups", "--dns", "--nvccli")
)


def _runscript_run(
    command: Sequence[Token], words: list[str]
) -> tuple[Token | None, list[Token], dict[str, Token]] | None:
    """``apptainer run [OPTIONS] IMAGE [ARGS]`` (singularity): the image, where it is an
    engine's (``docker://vllm/vllm-openai:v0.8.5``), its arguments and the ``--env`` it gives."""
    if words[1] != "run":
        return None
    env: dict[str, Token] = {}
    i = 2
    while i < len(words):
        word = words[i]
        if word.startswith("-"):
            setting = option_value(command, i, ("--env",))
            if setting is not None:
                named = env_setting(setting)
                if named is not None:
                    env[named[0]] = named[1]
            i += 2 if word in _RUNSCRIPT_VALUES else 1
            continue
        if image_engine(word) is None:
            return None
        return command[i], list(command[i + 1 :]), env
    return None


def _container_run(
    command: Sequence[Token],
    host: Mapping[str, Token] | None = None,
    env_files: EnvFiles | None = None,
) -> tuple[Token | None, list[Token], dict[str, Token]] | None:
    """``docker run [OPTIONS] IMAGE [ARGS]`` (podman, nerdctl) in a script, where IMAGE is an
    engine's image: the image, the arguments its entrypoint gets, and the variables the
    container is given (container_env, with ``host`` the environment docker runs in). The
    image is the first word after ``run`` that names an engine image (the options' values are
    volumes, ports and names, never one). With ``--entrypoint PROGRAM`` the image is None and
    the arguments are PROGRAM's command line."""
    words = [t.text for t in command]
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in _RUNSCRIPT_RUNNERS:
        return _runscript_run(command, words)
    if len(words) < 3 or words[0].rsplit("/", 1)[-1] not in CONTAINER_CLIS:
        return None
    at = 2 if words[1] == "run" else 3 if words[1:3] == ["container", "run"] else None
    if at is None:
        return None
    env = container_env(command, host or {}, env_files) or {}
    entrypoint: Token | None = None
    for i in range(at, len(command)):
        word = words[i]
        if i > at and not word.startswith("-") and _takes_value(words[i - 1]):
            # an option's value (`--name vllm-openai-llama`, read at its option where it is
            # one hbmlint reads), never the image, which a name may look like
            continue
        given = option_value(command, i, ("--entrypoint",))
        if given is not None:
            entrypoint = given
        elif not word.startswith("-") and image_engine(word) is not None:
            if entrypoint is not None:
                # the image's own entrypoint (the engine) is replaced: the arguments go to
                # this program (`--entrypoint python3 IMAGE -c "snapshot_download(...)"`)
                rest = list(command[i + 1 :])
                return None, ([entrypoint] if entrypoint.text else []) + rest, env
            return command[i], list(command[i + 1 :]), env
    if entrypoint is not None and entrypoint.text.rsplit("/", 1)[-1] in _ENTRYPOINT_PROGRAMS:
        # `--entrypoint sglang IMAGE serve ...` on an image of the team's own: the engine's
        # program with the words after the image, wherever docker's options end. So for a
        # shell (`--entrypoint /bin/bash lmsysorg/sglang:v0.5.9 -lc "python3 -m sglang..."`):
        # docker runs it in place of the image's entrypoint, whatever the image, and the words
        # after the image are its arguments, the engine's command in its -c script
        image_at = _image_position(words, at)
        if image_at is not None:
            return None, [entrypoint, *command[image_at + 1 :]], env
    if entrypoint is None:
        # an image of the team's own named for vLLM, given vLLM's arguments (read_invocation
        # says it assumed so)
        image_at = _image_position(words, at)
        if image_at is not None and assumed_vllm_image(words[image_at], words[image_at + 1 :]):
            return command[image_at], list(command[image_at + 1 :]), env
    return None


# programs an image's entrypoint may be set to that are an engine's own launcher
_ENGINE_PROGRAMS = frozenset(("vllm", "sglang", "text-generation-launcher", "trtllm-serve"))
# those whose arguments after the image hbmlint reads whatever the image: an engine's launcher,
# or a shell whose -c script runs one
_ENTRYPOINT_PROGRAMS = _ENGINE_PROGRAMS | frozenset(SHELLS)

# The text of an env file a script names (`docker run --env-file serve.env`), where hbmlint can
# read it (beside the script), else None.
EnvFiles = Callable[[str], str | None]


def container_env(
    command: Sequence[Token],
    host: Mapping[str, Token],
    env_files: EnvFiles | None = None,
) -> dict[str, Token] | None:
    """The variables ``docker run [OPTIONS] IMAGE ...`` or ``docker exec [OPTIONS] CONTAINER
    ...`` (podman, nerdctl) gives the command it runs in the container: each ``--env-file``'s,
    then ``-e``/``--env`` (``NAME=VALUE``, ``--env=NAME=VALUE``, or ``NAME`` alone for ``host``'s
    value), ``-e`` winning as in docker's CLI. ``host`` is the environment docker itself runs
    in (what the script exports). None where the words are neither command."""
    words = [t.text for t in command]
    if len(words) < 3 or words[0].rsplit("/", 1)[-1] not in CONTAINER_CLIS:
        return None
    if words[1] in ("run", "exec"):
        at = 2
    elif words[1] == "container" and words[2] in ("run", "exec"):
        at = 3
    else:
        return None
    # only docker's own options, before the image (container): the words after it are the
    # command's (`IMAGE bash -c '...' -e X` passes -e to the script)
    end = _image_position(words, at)
    end = len(words) if end is None else end
    from_files: dict[str, Token] = {}
    given: dict[str, Token] = {}
    unread: list[Token] = []  # env files hbmlint cannot read
    i = at
    while i < end:
        setting = option_value(command, i, ("-e", "--env"))
        file = option_value(command, i, ("--env-file",))
        if setting is not None:
            option = words[i].partition("=")[0]  # -e, --env (or --env=NAME=VALUE)
            given.update(_env_entry(setting, setting.text, host, option))
        elif file is not None:
            text = env_files(file.text) if env_files is not None and file.readable else None
            if text is None:
                unread.append(file)
            else:
                for line in text.splitlines():
                    # docker's env file: NAME=VALUE taken as written (no quotes removed), NAME
                    # alone for the host's value, `#` comment lines
                    entry = line.lstrip()
                    if entry and not entry.startswith("#"):
                        from_files.update(_env_entry(file, entry, host, file.text))
        i += 2 if _takes_value(words[i]) else 1
    env = {**from_files, **given}
    for file in unread:
        # a file hbmlint cannot read may set any variable: each the command refers to and
        # nothing else sets is set, with what it holds unknown (not "not set")
        why = f"is whatever --env-file {file.text} sets, a file hbmlint cannot read"
        for word in command[end:]:
            for name in _REFERENCED.findall(word.text):
                env.setdefault(name, Token("", file.span, (f"{name} {why}",)))
    return env


# a host variable a `-e NAME=$NAME` passes on that the script does not set
_NOT_SET_ON_HOST = "not set earlier in the script (only the environment it runs in may set it)"
_REFERENCED = LazyPattern(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _env_entry(
    word: Token, entry: str, host: Mapping[str, Token], given_by: str
) -> dict[str, Token]:
    """One ``NAME=VALUE`` (or ``NAME``) of ``-e``/``--env`` (``given_by`` is the option) or of
    an env file (``given_by`` is its name), as the variable it sets."""
    name, eq, value = entry.partition("=")
    name = name.strip()
    if not name or " " in name:
        return {}
    if eq and word.readable:
        return {name: Token(value, word.span)}
    if eq:
        # `-e MODEL="${MODEL}"` with the host's MODEL unknown: the note says where the value
        # comes from (a bare reference says only itself)
        whys = [r if " is " in r else f"{r} is {_NOT_SET_ON_HOST}" for r in word.unresolved]
        why = f"{name} is set from the host by `{given_by} {name}={value}`, and {'; '.join(whys)}"
        return {name: Token(value, word.span, (why,))}
    # `-e NAME`: docker passes on the variable of the environment it runs in, if that has one
    passed = host.get(name)
    if passed is not None:
        return {name: Token(passed.text, word.span, passed.unresolved)}
    said = f"`{given_by} {name}`" if given_by.startswith("-") else f"--env-file {given_by}"
    why = f"{name} is passed on by {said} from the environment docker runs in"
    return {name: Token("", word.span, (f"{why}, which hbmlint cannot read",))}


# `docker run` options that take no value (docker's run --help); every other one takes one
_DOCKER_SWITCHES = frozenset(
    ("--rm", "-d", "--detach", "-i", "--interactive", "-t", "--tty", "-it", "-ti", "-dit")
    + ("--privileged", "--init", "--read-only", "-P", "--publish-all", "--no-healthcheck")
    + ("--oom-kill-disable", "-q", "--quiet", "--disable-content-trust")
)


_SHORT_SWITCHES = LazyPattern(r"-[dtiPq]+")  # `-itd`: short switches written together


def _takes_value(option: str) -> bool:
    """Whether a ``docker run`` option takes the next word as its value (not ``--name=value``,
    nor a switch)."""
    if not option.startswith("-") or "=" in option or option in _DOCKER_SWITCHES:
        return False
    return _SHORT_SWITCHES.fullmatch(option) is None


def _image_position(words: Sequence[str], at: int) -> int | None:
    """Where ``docker run``'s image is: the first word after its options (an option given as
    ``--name=value`` or a switch is one word, any other option two)."""
    i = at
    while i < len(words):
        word = words[i]
        if not word.startswith("-"):
            return i
        i += 2 if _takes_value(word) else 1
    return None


# HPC container runners (apptainer / singularity exec IMAGE, NERSC's shifter --image=IMAGE,
# podman-hpc), as cluster batch scripts start an engine in an image
_HPC_RUNNERS = frozenset(("apptainer", "singularity", "shifter", "podman-hpc"))
# a Singularity image file named for the engine release it holds (vllm-v0.11.0.sif,
# sglang-v0.5.16.sif, LUMI's ..._vllm0.5.5.sif)
_SIF_RELEASE = LazyPattern(r"(?:^|[-_.])(vllm|sglang)[-_]?v?(\d+\.\d+(?:\.\d+)?)", re.I)


def note_cut_options(parsed: EngineCommand, after: Sequence[Token]) -> None:
    """HBM018 on ``parsed`` where the script's next command (``after``) starts with an option:
    no command starts with one, so the line before it lost its backslash and the engine runs
    without the options from there on."""
    first = after[0] if after else None
    if first is None or not _OPTION.match(first.text):
        return
    parsed.note(
        "HBM018",
        f"{first.text} starts a line of its own: the line before it does not end in `\\`, so "
        "the shell ends the engine's command there and runs the lines from this one on as a "
        "command of their own; these options never reach the engine",
        first.span,
        "End the line before it with `\\`",
    )


_OPTION = LazyPattern(r"--?[A-Za-z]")


def container_release(words: Sequence[Token]) -> tuple[str, Span] | None:
    """The engine release the image of ``docker run ... IMAGE python -m sglang...`` names
    (podman, nerdctl too; an HPC runner's ``apptainer exec docker://IMAGE``, a ``.sif`` file
    named for its release, ``shifter --image=IMAGE``, behind ``srun`` and its options), with
    where: the image among the words before the engine's own."""
    start = next(
        (
            i
            for i, word in enumerate(words[:8])
            if word.text.rsplit("/", 1)[-1] in CONTAINER_CLIS
            or word.text.rsplit("/", 1)[-1] in _HPC_RUNNERS
        ),
        None,
    )
    if start is None or (start and words[0].text.rsplit("/", 1)[-1] not in _LAUNCHERS):
        return None
    hpc = words[start].text.rsplit("/", 1)[-1] in _HPC_RUNNERS
    for word in words[start + 1 :]:
        if not word.readable:
            continue
        text = word.text.removeprefix("--image=") if hpc else word.text
        version = image_version(text)
        if version is None and hpc and text.lower().endswith(".sif"):
            named = _SIF_RELEASE.search(text.rsplit("/", 1)[-1][: -len(".sif")])
            version = named.group(2) if named else None
        if version:
            return version, word.span
    return None


# what may run a container runner on a cluster's nodes (`srun --mpi=pmi2 apptainer exec ...`)
_LAUNCHERS = frozenset(("srun", "mpirun", "mpiexec", "time", "nohup", "exec"))


def _flag_and_value(text: str) -> bool:
    """Whether a word is a long flag and its value (``--tensor-parallel-size 2`` as one YAML
    list item): white space in the flag's part, before any ``=``, after a flag name. (A short
    option's value may be attached, ``-O3``: argparse would read ``-O 3`` as -O.)"""
    if not text.startswith("--"):
        return False
    parts = text.partition("=")[0].split(None, 1)
    return len(parts) == 2 and len(parts[0]) > 2


def _split_flag(word: Token) -> tuple[Token, Token]:
    """``--tensor-parallel-size 2`` as the two words its author meant, both where it is."""
    flag, value = word.text.split(None, 1)
    return replace(word, text=flag), replace(word, text=value.strip())


# a word the author elided ("python3 -m sglang.launch_server ..."): notes, not a command line
_ELIDED = ("...", "\u2026")
# where a word of parse_engine_words' texts starts with white space (str.isspace is re's \s)
_WORD_STARTS_WITH_SPACE = re.compile(r"^\s", re.MULTILINE)


def parse_engine_words(
    module: ModuleType,
    words: list[Token],
    launcher: Span,
    env: Mapping[str, Token],
    files: ConfigFiles | None = None,
) -> EngineCommand:
    """``module.parse``, for two ways a command line is not what its words seem:

    - a flag after a space (`` --model``): a ``\\`` ending a line of a folded block scalar
      (``>``) escapes the space the fold puts there instead of continuing the line, and the
      shell passes the space with the flag as one word. argparse (and click, clap) reads no
      flag in it, so the engine refuses the command (ai-dynamo/dynamo#14321: "dynamo.vllm:
      error: unrecognized arguments:  --model"). An error at that word; the flags are read
      without the space, as the author meant them, so the rest is still checked;
    - a flag and its value in one word (``- --tensor-parallel-size 2``, one item of a list
      of arguments, which no shell splits): argparse takes no option in a word with a space
      before its ``=`` (nor do click and clap), so the engine refuses the command; an error
      at the first such word, and the words are read split, as the author meant them;
    - ``...`` where flags go: the author left the rest out, so a model that is not there is
      unknown, not missing.

    ``files`` finds the config file the command names (``--config FILE``, TensorRT-LLM's
    ``--extra_llm_api_options FILE``), whose settings are read with the command line's."""
    # the words' texts as one, each on a line of its own: what the checks below look for in
    # single words is searched for in it first, and most command lines hold none of it
    texts = "\n".join([w.text for w in words])
    spaced = None
    if _WORD_STARTS_WITH_SPACE.search(texts):
        spaced = next(
            (w for w in words if w.text[:1].isspace() and w.text.lstrip().startswith("-")), None
        )
    if spaced is not None:
        words = [replace(w, text=w.text.lstrip()) if w.text[:1].isspace() else w for w in words]
    joined: list[Token] = []
    if " " in texts or "\t" in texts:  # most command lines hold no space at all
        joined = [w for w in words if _flag_and_value(w.text)]
    if joined:
        words = [part for w in words for part in (_split_flag(w) if w in joined else (w,))]
    if "--config" not in texts and module is not trtllm:
        # with_config_file finds a file only after a word "--config" or "--config=FILE"
        # (TensorRT-LLM reads its own options file)
        files = None
    command = _parse(module, words, launcher, env, files)
    if spaced is not None:
        flag = spaced.text.strip().split()[0]
        command.note(
            "HBM004",
            f"'{spaced.text}' starts with a space, so the engine reads no flag in it and "
            f"refuses the command (unrecognized arguments): a \\ that ends a line of a folded "
            f"block scalar (>) escapes the space the fold puts there instead of continuing the "
            f"line, and the shell passes ' {flag}' as one word",
            spaced.span,
            "Write the script as a literal block scalar (| or |-), whose line breaks the "
            "backslashes continue, or drop the backslashes",
        )
    if joined:
        first = joined[0].text
        flag, value = first.split(None, 1)
        more = f" (and {len(joined) - 1} more words like it)" if len(joined) > 1 else ""
        command.note(
            "HBM004",
            f"'{first}' is one argument{more}: the flag and its value are one word, so the "
            f"engine reads no flag in it and refuses the command (unrecognized arguments); "
            f"hbmlint reads it as {flag} {value}",
            joined[0].span,
            f"Write the flag and its value as two items ('{flag}', '{value}') or as "
            f"'{flag}={value}'",
        )
    elided = None
    if "..." in texts or "\u2026" in texts:
        elided = next((w for w in words if w.text.strip() in _ELIDED), None)
    if elided is not None and "model.name" not in command.values:
        command.model_unreadable = True  # the note says why; no "names no model" error
        command.note(
            "HBM011",
            "the command line is elided here ('...' stands for flags left out), and what it "
            "leaves out may name the model; this deployment is not checked",
            elided.span,
            "Write the whole command line to have it checked",
        )
    return command


def _parse(
    module: ModuleType,
    words: list[Token],
    launcher: Span,
    env: Mapping[str, Token],
    files: ConfigFiles | None,
) -> EngineCommand:
    """``module.parse`` with the config file the words name, where ``files`` finds it:
    TensorRT-LLM reads its options file itself (the file wins over the flags); vLLM's and
    SGLang's ``--config FILE`` becomes flags before the command line's own."""
    if module is trtllm:
        return trtllm.parse(words, launcher, env, files)
    if module in (vllm, sglang):
        words = with_config_file(words, files, _negated.get(module))
    return module.parse(words, launcher, env)


def _vllm_negated(key: str) -> str | None:
    """The flag vLLM makes of ``KEY: false`` in a --config file: ``--no-KEY`` where it has
    that flag (the key as written: ``enable_chunked_prefill: false`` finds none and is
    dropped), else none (vllm/utils/argparse_utils.py load_config_file)."""
    flag = f"--no-{key}"
    return flag if "_" not in key and flag in vllm.FLAGS.by_name else None


_negated = {vllm: _vllm_negated}


def read_command(
    command: Sequence[Token],
    env: Mapping[str, Token],
    text: str,
    files: ConfigFiles | None = None,
    env_files: EnvFiles | None = None,
) -> EngineCommand | None:
    """One simple command of a script (split_script's): the engine it runs, directly
    (``vllm serve ...``, ``python -m sglang.launch_server ...``) or as the entrypoint of an
    engine image it starts (``docker run ... vllm/vllm-openai ARGS``); None when neither.
    ``env`` is the environment the command runs in; ``env_files`` reads the env files a
    ``docker run --env-file`` names."""
    if files is not None and command and command[0].text.rsplit("/", 1)[-1] in CONTAINER_CLIS:
        files = _through_mounts(files, command)  # the engine in a container reads its paths
    found = _find(command)
    if found and found[1] >= 2 and command[found[1] - 2].text == "--entrypoint":
        # `docker run --entrypoint trtllm-serve IMAGE serve MODEL`: the engine's words are
        # those after the image (_container_run), not the image itself
        found = None
    if found:
        module, start = found
        # `docker run -e VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 IMAGE vllm serve ...` (docker exec):
        # the engine in the container sees the variables docker gives it, not the script's
        inside = container_env(command, env, env_files)
        parsed = parse_engine_words(
            module,
            list(command[start:]),
            command[start - 1].span,
            env if inside is None else inside,
            files,
        )
        parsed.launcher = command[start - 1].text
        return parsed
    container = _container_run(command, env, env_files)
    if container is not None:
        image_token, rest, run_env = container
        if image_token is None:
            return read_invocation(rest, run_env, text, k8s_expansion=False, files=files)
        return read_invocation(
            rest,
            run_env,
            text,
            image_token.text,
            image_token.span,
            k8s_expansion=False,
            files=files,
        )
    return None


# what a bind mount's host side says for the folder a script runs in: `-v $(pwd):/workspace`
_HERE = ("$(pwd)", "${PWD}", "$PWD", ".", "`pwd`")


def _through_mounts(files: ConfigFiles, command: Sequence[Token]) -> ConfigFiles:
    """``files`` for a container's paths: a file the engine in ``docker run -v HOST:DIR`` (or
    ``--volume``, ``--mount type=bind,source=HOST,target=DIR``, relative to ``-w`` / ``--workdir``)
    reads at DIR/NAME is the script's HOST/NAME (a config the script writes with ``cat >
    extra-llm-api-config.yml`` before ``-v $(pwd):/workspace``, as TensorRT-LLM's guides do)."""
    mounts: list[tuple[str, str]] = []
    workdir = ""
    for i in range(len(command)):
        volume = option_value(command, i, ("-v", "--volume"))
        if volume is not None:
            host, _, rest = volume.text.partition(":")
            if rest:
                mounts.append((host, rest.partition(":")[0]))
        mount = option_value(command, i, ("--mount",))
        if mount is not None:
            fields = dict(part.partition("=")[::2] for part in mount.text.split(","))
            source = fields.get("source") or fields.get("src")
            target = fields.get("target") or fields.get("dst") or fields.get("destination")
            if fields.get("type", "bind") == "bind" and source and target:
                mounts.append((source, target))
        given = option_value(command, i, ("-w", "--workdir"))
        if given is not None:
            workdir = given.text
    if not mounts:
        return files

    def find(reference: Token) -> ConfigFile | None:
        found = files(reference)
        if found is not None:
            return found
        path = reference.text
        if not path.startswith("/") and workdir:
            path = f"{workdir.rstrip('/')}/{path.removeprefix('./')}"
        for host, target in mounts:
            target = target.rstrip("/")
            if not target or not path.startswith(target + "/"):
                continue
            inside = path[len(target) + 1 :]
            host = host.strip("\"'").rstrip("/")
            mapped = inside if host in _HERE else f"{host}/{inside}"
            found = files(Token(mapped, reference.span, reference.unresolved))
            if found is not None:
                return found
        return None

    return find


def written_files(
    written: Sequence[tuple[Written, Span]],
    before: int,
    text: str,
    outer: ConfigFiles | None = None,
) -> ConfigFiles | None:
    """Finds a config file among those a script writes (``cat > FILE <<EOF``) before its
    command number ``before``, the last write winning; else with ``outer``."""
    if not written:
        return outer

    def find(reference: Token) -> ConfigFile | None:
        name = reference.text.removeprefix("./")
        for file, first in reversed(written):
            if file.command > before or file.path != name:
                continue
            if file.unsure:
                return ConfigFile({}, lambda key, at=first: at, why=file.unsure)
            settings = load_settings(file.text)
            if settings is None:
                return None  # written so that hbmlint cannot tell what it holds
            unresolved = list(file.unresolved)
            for n, (key, why) in enumerate(file.maybe):
                stand_in = f"hbmlint-maybe-{n}"
                settings[key] = stand_in
                unresolved.append((stand_in, f"what a branch of the script sets {key} to", why))
            return ConfigFile(
                settings,
                block_spans(text.splitlines(), first.line, first),
                tuple(unresolved),
                origin=f"written by the script at line {first.line}",
            )
        return outer(reference) if outer is not None else None

    return find


def read_invocation(
    argv: Sequence[Token],
    env: Mapping[str, Token],
    text: str,
    image: str | None = None,
    image_span: Span | None = None,
    k8s_expansion: bool = True,
    files: ConfigFiles | None = None,
    locator: Locator | None = None,
    words: Callable[[list[Token]], list[Token]] | None = None,
) -> EngineCommand | None:
    """The engine command in ``argv`` (command + args), or None when it runs no engine we know.

    ``env`` is the container's environment (values with where they are set); ``text`` the
    whole file, to place words of a shell script on their own lines; ``files`` finds the
    config files the command names where the format knows them (a mounted ConfigMap), besides
    those a script writes itself. A format whose script is a template filled before the shell
    runs it (formats/spark_recipe.py) gives the ``locator`` that places its words in the file,
    and ``words``, which it calls on each command's words before they are read."""
    env_text = {name: token.text for name, token in env.items() if token.readable}
    # variables the container has but whose value is not in the file: "NAME is read from ..."
    origins = {name: _origin(name, token) for name, token in env.items() if not token.readable}
    script = shell_script(list(argv))
    shelled = None
    if script is not None and image is not None and script[1] <= 2:
        shelled = _shell_given_to_engine(image, argv)
    if script is not None:
        token, index = script
        # `sh -c SCRIPT $0 $1...`: the words after the script are its positional parameters,
        # which a script passes on as "$@" (`exec vllm serve "$@"` with the flags in `args`)
        positional = list(argv[index + 2 :])
        if k8s_expansion:
            positional = [expand_k8s(t, env_text, origins) for t in positional]
        locator = locator or Locator(text, token.span)
        written: list[tuple[Written, Span]] = []
        commands = split_script(token.text, env_text, locator, token.span, origins, written=written)
        for index, command in enumerate(commands):
            command = _with_positional(command, positional)
            if words is not None:
                command = words(command)
            inner = shell_script(command)
            if inner is not None:
                # `sh -c "python3 -m sglang.launch_server ..."` as a line of the script (a
                # Truss start_command is one): the inner script, its words already expanded.
                # Its words are searched for from where it starts to the outer script's end
                # (the outer search placed only the script's first characters)
                word, at = inner
                end = token.span
                start = Span(word.span.line, word.span.column, end.end_line, end.end_column)
                command = [
                    *command[:at],
                    Token(word.text, start, word.unresolved),
                    *command[at + 1 :],
                ]
                parsed = read_invocation(command, env, text, k8s_expansion=False, files=files)
                if parsed is not None:
                    return parsed
                continue
            parsed = read_command(command, env, text, written_files(written, index, text, files))
            if parsed is not None:
                if _find(command) is not None:  # not a `docker run`: this script launches it
                    parsed.launches = _launches(commands, text)
                note_cut_options(parsed, commands[index + 1] if index + 1 < len(commands) else ())
                if shelled is not None:
                    message, fix, severity = shelled
                    parsed.note("HBM013", message, argv[0].span, fix, severity=severity)
                return parsed
        return None
    if k8s_expansion:
        # a word without "$" is as expand_k8s returns it: tested here, not in a call a word
        argv = [expand_k8s(t, env_text, origins) if "$" in t.text else t for t in argv]
    found = _find(argv)
    if found:
        module, start = found
        parsed = parse_engine_words(module, list(argv[start:]), argv[start - 1].span, env, files)
        parsed.launcher = argv[start - 1].text
        return parsed
    module = image_engine(image)
    assumed = module is None and assumed_vllm_image(image, [t.text for t in argv])
    if assumed:
        module = vllm
    if module is None:
        return None
    if not argv:
        # the image's own defaults: TGI is often configured by env alone (MODEL_ID, NUM_SHARD)
        if module is tgi and "MODEL_ID" in env:
            return module.parse([], image_span or env["MODEL_ID"].span, env)
        return None
    first = argv[0].text
    if assumed and first == "serve":
        # an image of the team's own whose entrypoint is `vllm` (not the server itself): the
        # model is the word after `serve`
        command = parse_engine_words(module, list(argv[1:]), argv[0].span, env, files)
        command.launcher = "image"
        command.note(
            "HBM011",
            f"the image {image} is not one whose entrypoint hbmlint knows; its name and its "
            "arguments (`serve` MODEL and vLLM's flags) are vLLM's, so they are read as `vllm "
            "serve` runs them, the newest release unless a release is said elsewhere",
            image_span or argv[0].span,
            "Set the container's command (command: [vllm, serve]) to say what runs",
        )
        return command
    if module is vllm and first == "serve":
        # `args: [serve, MODEL, ...]` on an image whose entrypoint already is the server: the
        # model is the word after `serve`, whatever the engine makes of the repeated word
        command = parse_engine_words(module, list(argv[1:]), argv[0].span, env, files)
        command.note(
            "HBM013",
            "this image's entrypoint already runs vLLM's server (`vllm serve` in current "
            "vllm/vllm-openai images, the api_server module in older ones), so `serve` here is "
            "passed to it as one more word; vLLM's parser then rejects the arguments "
            "('unrecognized arguments') unless the image's entrypoint was changed",
            argv[0].span,
            "Drop `serve` from args, or set command: [vllm, serve] and keep the rest in args",
        )
        return command
    if first.startswith("-") or (module is vllm and not first.endswith((".py", ".sh"))):
        parsed = parse_engine_words(module, list(argv), image_span or argv[0].span, env, files)
        parsed.launcher = "image"
        if assumed:
            parsed.note(
                "HBM011",
                f"the image {image} is not one whose entrypoint hbmlint knows; its name and its "
                "arguments are vLLM's, so they are read as vllm/vllm-openai's "
                "entrypoint runs them (vLLM's OpenAI server), the newest release unless a "
                "release is said elsewhere",
                image_span or argv[0].span,
                "Set the container's command (command: [vllm, serve]) to say what runs",
            )
        return parsed
    return None


# the official images, whose entrypoint is the engine's server for certain
_OFFICIAL_IMAGES = ("vllm/vllm-openai", "ghcr.io/huggingface/text-generation-inference")


def _shell_given_to_engine(image: str, argv: Sequence[Token]) -> tuple[str, str, str] | None:
    """(message, fix, severity) where a shell script is given as arguments to an engine
    image's own entrypoint (Compose `command: /bin/sh -c "exec vllm serve ..."` with no
    `entrypoint:`; Kubernetes `args:` alone): the server takes the shell's path as its model
    and refuses the rest. None for an image whose entrypoint is not an engine's."""
    module = image_engine(image)
    if module is None:
        return None
    repository = image.rsplit("@", 1)[0].rsplit(":", 1)[0].removeprefix("docker.io/")
    official = repository in _OFFICIAL_IMAGES
    if module is vllm:
        server, what = "vllm serve", f"takes '{argv[0].text}' as its model and refuses the rest"
    else:
        server, what = (
            "text-generation-launcher",
            f"refuses '{argv[0].text}', an argument it does not take",
        )
    message = (
        f"the words from {argv[0].text} on are given to the image's entrypoint, which already "
        f"runs the engine ({server}): it {what}, so the script never runs"
        + ("" if official else " (unless this image's entrypoint was changed)")
    )
    fix = "Make the shell the entrypoint (Compose entrypoint: [/bin/sh, -c]; Kubernetes command:)"
    return message, fix, "error" if official else "warning"


# a lone `&` ending a line (after any redirections), not `&&`, `2>&1` or `&>`
_BACKGROUND = LazyPattern(r"(?<![>&|])&(?![&>])\s*(?:#.*)?$")


def _backgrounded(command: Sequence[Token], lines: Sequence[str]) -> bool:
    """Whether ``command`` ends with ``&`` on its last word's line: the shell runs it in the
    background and goes on. Unknown (a word not placed on its own line) counts as no."""
    span = command[-1].span
    line, column = span.end_line, span.end_column
    if line is None or column is None or not 0 < line <= len(lines):
        return False
    return bool(_BACKGROUND.search(lines[line - 1][column - 1 :]))


def _launches(commands: Sequence[Sequence[Token]], text: str) -> int:
    """How many engines a script runs at once: each engine command sent to the background
    (``... &``) counts once, or once per iteration of the loops around it (the words of a
    ``for``'s list, at least two where unknown: Dynamo's recipes start a worker per GPU of the
    pod so), and the script's foreground engine once more. A foreground engine in a loop
    (``while true; do vllm serve ...; done``, a restart loop) or in the branches of an ``if``
    runs one at a time."""
    lines = text.splitlines()
    loops: list[int] = []  # for each open loop, its iterations (0: unknown)
    background = 0
    foreground = False
    for command in commands:
        words = [t.text for t in command]
        while words and words[0] in ("do", "then", "else", "{"):
            words = words[1:]
        if not words:
            continue
        first = words[0]
        if first in ("for", "while", "until"):
            iterations = len(words) - 3 if first == "for" and words[2:3] == ["in"] else 0
            loops.append(max(iterations, 0))
        elif first == "done" and loops:
            loops.pop()
        elif _find(command) is not None:
            if _backgrounded(command, lines):
                times = 1
                for n in loops:
                    times *= n if n > 1 else 2
                background += times
            else:
                foreground = True
    return max(background + foreground, 1)


_POSITIONAL = LazyPattern(r"\$(?:[@*]|\{[@*]\}|([1-9])|\{([1-9])\})")


def _with_positional(command: list[Token], positional: list[Token]) -> list[Token]:
    """``command`` with each word that is a positional parameter (``$@``, ``$*``, ``$1``...)
    replaced by the words it stands for: all of ``positional``, one of them, or none."""
    out: list[Token] = []
    for word in command:
        match = _POSITIONAL.fullmatch(word.text)
        if match is None:
            out.append(word)
            continue
        number = match.group(1) or match.group(2)
        if number is None:
            out += positional
        elif int(number) <= len(positional):
            out.append(positional[int(number) - 1])
    return out


_VERSION = re.compile(r"^v?(\d+\.\d+(?:\.\d+)?)")
# a release inside a vendor's tag, marked by its "v" (AIBrix's vllm-openai:
# aibrix-kvcache-v0.8.5-20250520); a bare number there may be a CUDA or date part
_VERSION_INSIDE = re.compile(r"[-_.]v(\d+\.\d+(?:\.\d+)?)(?=$|[-_+])")


# Images whose tag is the engine's release though their entrypoint is not the engine: SGLang's
# (lmsysorg/sglang:v0.5.2-cu126) and NGC's TensorRT-LLM release container, whose tag is the
# tensorrt_llm version inside ("x.y.z corresponds to the TensorRT-LLM container version",
# https://nvidia.github.io/TensorRT-LLM/installation/containers.html), kept whole (1.3.0rc18).
_VERSIONED_IMAGES = ("lmsysorg/sglang", "tensorrt-llm/release")
_TRTLLM_RELEASE = LazyPattern(r"^v?(\d+\.\d+\.\d+(?:rc\d+)?(?:\.post\d+)?)(?=$|[-_])")

# Nightly builds of an engine's main branch tagged with their day and commit only, read as the
# newest release by that day: SGLang's nightly-dev-20260721-8905cbd4 and nightly-dev-cu13-...
# (sgl-project/sglang@00c56c2 .github/workflows/release-docker-dev.yml tags each night's build
# lmsysorg/sglang:nightly-<dev|dev-cu13>-$(date +%Y%m%d)-<commit>).
_NIGHTLY_IMAGES = {"lmsysorg/sglang": "sglang"}

# Google Cloud's Hugging Face containers name TGI's MAJOR-MINOR in the repository, after the CUDA
# release: huggingface-text-generation-inference-cu124.2-4.ubuntu2204.py311 holds TGI 2.4.0
# ("Available DLCs on Google Cloud", https://huggingface.co/docs/google-cloud/containers/available)
_GCP_TGI = re.compile(r"huggingface-text-generation-inference-cu\d+\.(\d+)-(\d+)(?=[.:@]|$)")


# AMD's ROCm images name the engine in the repository and its release inside the tag, beside
# the ROCm, Python and PyTorch releases (rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103,
# rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227-2, rocm/sgl-dev:v0.5.5-rocm700-mi35x-20251110),
# or only the day of the build (rocm/sgl-dev:20250701, rocm/vllm-dev:nightly_main_20250706)
_ROCM_IMAGES = {"rocm/vllm": "vllm", "rocm/sgl-dev": "sglang", "rocm/sglang": "sglang"}
# (or with no separator: rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250410)
_ROCM_ENGINE_RELEASE = LazyPattern(r"(?:^|[-_])(?:vllm|sglang)[-_]?v?(\d+\.\d+(?:\.\d+)?)")
_BUILD_DAY = LazyPattern(r"(?:^|[-_])(20\d\d)(\d\d)(\d\d)(?=$|[-_.])")
# AMD's ROCm release repositories (rocm/7.0, used by ROCm's docs and InferenceMAX) hold every
# engine's images, the engine named in the tag (rocm7.0_ubuntu_22.04_vllm_0.10.1_instinct_...)
_ROCM_RELEASE_REPOSITORY = LazyPattern(r"rocm/\d+\.\d+(?:\.\d+)?")
_ROCM_TAG_ENGINE = LazyPattern(r"(?:^|[-_])(vllm|sglang)[-_]?v?\d")
# a build day written MMDDYYYY, as AMD's day-0 images are (rocm/vllm-dev:open-mi300-08052025,
# built 2025-08-05: dstackai/dstack examples/models/gpt-oss/amd)
_BUILD_DAY_US = LazyPattern(r"(?:^|[-_])([01]\d)([0-3]\d)(20\d\d)(?=$|[-_.])")


def shipped_engine(image: Any) -> str | None:
    """The engine an image ships, whether or not its entrypoint runs it: vLLM's and TGI's own
    images (image_engine), SGLang's ``lmsysorg/sglang``, AMD's ROCm builds (``rocm/vllm``,
    ``rocm/vllm-dev``, ``rocm/sgl-dev``), NGC's ``nvidia/vllm`` and TensorRT-LLM release
    container; None for any other image, a team's own included (its name is no proof)."""
    if not isinstance(image, str) or not image.strip():
        return None
    module = image_engine(image)
    if module is not None:
        return str(module.NAME)
    name = docker_reference(image.strip()).rsplit("@", 1)[0].lower().removeprefix("docker.io/")
    repository = name.rpartition(":")[0] if ":" in name.rpartition("/")[2] else name
    for prefix, engine in _ROCM_IMAGES.items():
        if repository.startswith(prefix):
            return engine
    last_two = "/".join(repository.split("/")[-2:])  # a mirror's registry in front counts
    if last_two == "lmsysorg/sglang":
        return "sglang"
    if last_two == "tensorrt-llm/release":
        return "trtllm"
    return "vllm" if _NGC_VLLM.match(repository) else None


def _rocm_image_version(engine: str, tag: str) -> str | None:
    match = _ROCM_ENGINE_RELEASE.search(tag) or _VERSION.match(tag)
    if match:
        return match.group(1)
    day = _BUILD_DAY.search(tag)
    if day is not None:
        return released_by(engine, "-".join(day.groups()))
    us = _BUILD_DAY_US.search(tag)
    if us is not None and 1 <= int(us.group(1)) <= 12:
        month, day_of_month, year = us.groups()
        return released_by(engine, f"{year}-{month}-{day_of_month}")
    return None


# Slurm clusters run the images enroot imports (NVIDIA/pyxis's --container-image, srt-slurm's
# model.container): a URI names the registry before a "#" (docker://nvcr.io#nvidia/vllm:26.03-
# py3), and an image imported with no output name is saved as its path and tag joined by "+",
# the registry left out (lmsysorg/sglang:v0.5.5.post2 -> lmsysorg+sglang+v0.5.5.post2.sqsh).
# Sources: NVIDIA/enroot@8ea147d src/docker.sh docker::import (the default file name) and
# doc/cmd/import.md (docker://[USER@][REGISTRY#]IMAGE[:TAG]).
_ENROOT_SCHEME = re.compile(r"^(?:docker|dockerd|podman)://")


def docker_reference(image: str) -> str:
    """``image`` as a Docker reference where it is written as enroot names one (a URI with a
    "#", or the .sqsh file of an import); anything else as it is."""
    name = _ENROOT_SCHEME.sub("", image.strip())
    if name.lower().endswith(".sqsh"):
        stem = name.rsplit("/", 1)[-1][: -len(".sqsh")]
        path, plus, tag = stem.rpartition("+")
        # a file named otherwise (/containers/sglang.sqsh) names no image
        return f"{path.replace('+', '/')}:{tag}" if plus and path and tag else name
    registry, hash_sign, rest = name.partition("#")
    if hash_sign and rest and "/" not in registry:
        return f"{registry.rpartition('@')[2]}/{rest}"
    return name


# Google Cloud Vertex AI Model Garden's vLLM container is tagged with the day and time of its
# build (pytorch-vllm-serve:20250801_0916_RC01, 20250529_0917_tpu_experimental_RC00; as
# GoogleCloudPlatform/vertex-ai-samples' Model Garden notebooks and swept GKE manifests write
# it). It packages a vLLM release, so the newest release by that day is the most it holds: an
# upper bound, where a nightly's day is a lower one.
_VERTEX_VLLM = "vertex-vision-model-garden-dockers/pytorch-vllm-serve"
_VERTEX_BUILD_DAY = LazyPattern(r"^(20\d\d)(\d\d)(\d\d)_\d{4}_")


# NVIDIA's NGC vLLM container is versioned by the year and month of its release
# (nvcr.io/nvidia/vllm:YY.MM-py3, "xx.xx is the container version", https://docs.nvidia.com/
# deeplearning/frameworks/vllm-release-notes/running.html). A month whose release notes hbmlint
# has not read (vendor_images.yaml) holds at most the newest vLLM release by that month's end:
# the months it has read hold 0.10.2 (25.10) to 0.31.0 (26.10), each at or below that bound.
_NGC_VLLM = re.compile(r"^(?:nvcr\.io/)?nvidia/vllm$")
_NGC_MONTH = LazyPattern(r"^(\d\d)\.(\d\d)(?:\.post\d+)?-py3$")


def _ngc_vllm_bound(tag: str) -> str | None:
    month = _NGC_MONTH.match(tag)
    if month is None or not 1 <= int(month.group(2)) <= 12:
        return None
    year, number = 2000 + int(month.group(1)), int(month.group(2))
    last = (date(year + number // 12, number % 12 + 1, 1) - timedelta(days=1)).isoformat()
    return released_by("vllm", last, at_most=True, day_is="the end of the container's month")


def _own_image_release(repository: str, tag: str) -> str | None:
    """An image of the team's own named for its engine and tagged with the engine's release it
    is built from (``sglang:v0.5.16-dsv4-sm120``, FROM lmsysorg/sglang:v0.5.16): that release,
    where it is one of that engine's (a tag ``v1.2`` of the team's own numbering is not)."""
    parts = set(_NAME_PARTS.split(repository.rsplit("/", 1)[-1]))
    engine = "sglang" if "sglang" in parts else "vllm" if "vllm" in parts else None
    match = _VERSION.match(tag) if engine else None
    if engine is None or match is None:
        return None
    release = match.group(1)
    # a minor line (AWS's Deep Learning Containers: vllm:0.13-gpu-py312-ec2), where that line
    # is one of the engine's
    if is_release(engine, release) or (
        release.count(".") == 1 and is_release(engine, release + ".0")
    ):
        return release
    return None


# Tags that name a build, not a release: vLLM's gpt-oss launch image of 2025-08-05 is the
# `vllm==0.10.1+gptoss` wheel (wheels.vllm.ai/gpt-oss, "uv pip install --pre vllm==0.10.1+gptoss"
# in the gpt-oss launch guides), a 0.10.1 release's flags and defaults
_NAMED_TAGS = {("vllm/vllm-openai", "gptoss"): "0.10.1"}


def image_version(image: str | None) -> str | None:
    """The engine release an engine image's tag names (``vllm/vllm-openai:v0.11.0``,
    ``lmsysorg/sglang:v0.5.2-cu126``, AMD's ``rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103``)."""
    if not isinstance(image, str):
        return None
    return _image_version(image)


# Keyed on the image as written: the answer reads only it and hbmlint's own tables (vendor
# images, release dates, which a run never changes), and a run's manifests name a handful of
# images, each in many files.
@lru_cache(maxsize=256)
def _image_version(image: str) -> str | None:
    image = docker_reference(image)
    vendor = vendor_image_release(image)
    if vendor is not None:  # a vendor's own release number: the engine release it ships
        return vendor[1]
    name = image.rsplit("@", 1)[0].lower()
    repository, _, tag = name.removeprefix("docker.io/").rpartition(":")
    rocm = next((e for prefix, e in _ROCM_IMAGES.items() if repository.startswith(prefix)), None)
    if (
        rocm is None
        and repository.startswith("rocm/")
        and _ROCM_RELEASE_REPOSITORY.fullmatch(repository)
    ):
        named = _ROCM_TAG_ENGINE.search(tag)
        rocm = named.group(1) if named else None
    if rocm is not None and "/" not in tag:
        return _rocm_image_version(rocm, tag)
    if _NGC_VLLM.match(repository):
        return _ngc_vllm_bound(tag)
    named = _NAMED_TAGS.get((repository, tag))
    if named is not None:
        return named
    if repository.endswith(_VERTEX_VLLM):
        day = _VERTEX_BUILD_DAY.match(tag)
        return released_by("vllm", "-".join(day.groups()), at_most=True) if day else None
    if image_engine(image) is None and not any(marker in name for marker in _VERSIONED_IMAGES):
        return None if vendor_repository(image) else _own_image_release(repository, tag)
    if "tensorrt-llm/release" in repository:
        match = _TRTLLM_RELEASE.match(tag)
        return match.group(1) if match else None
    dlc = _GCP_TGI.search(name)
    if dlc:
        return f"{dlc.group(1)}.{dlc.group(2)}"
    if vendor_repository(image):
        return None  # a vendor's own release number that no table maps (LMCache's v0.3.12)
    tag = image.rsplit("@", 1)[0].rpartition(":")[2]
    match = _VERSION.match(tag) or _VERSION_INSIDE.search(tag)
    if match:
        return match.group(1)
    nightly = _NIGHTLY_IMAGES.get(repository)
    day = _BUILD_DAY.search(tag) if nightly and tag.startswith("nightly") else None
    return released_by(nightly, "-".join(day.groups())) if nightly and day else None
