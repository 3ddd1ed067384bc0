"""The Diagnostic record every stage reports with, severities, and the input checks.

Budget rules are data (rules/*.yaml); the checks on the input itself (can the file be read, is it
valid YAML, does it follow the schema, are the GPU and model known) are listed here, with stable
codes, so that they can be selected, explained and reported exactly like rules.
"""

from __future__ import annotations

from dataclasses import field
from enum import IntEnum
from types import MappingProxyType
from typing import Any

from .records import dataclass
from .yamlsrc import Span

DOCS_URL = "https://github.com/hbmlint/hbmlint/blob/main/docs/rules.md"


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]

    def __str__(self) -> str:
        return self.name.lower()


SAFE, UNSAFE = "safe", "unsafe"


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, column) up to (end_line, end_column), 1-based with the end
    exclusive, by ``replacement``; an empty range inserts, an empty replacement deletes."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "replacement": self.replacement,
        }


class Fix(str):
    """One way to fix a finding. The string itself is the message people read, in the
    manifest's own terms where hbmlint knows how the manifest writes the setting (the engine
    flag as its author writes it, e.g. ``--max-model-len 11696``); the attributes make it a
    record: the setting alone, its computed effect, whether applying it keeps the deployment's
    behaviour (``safe``) or changes it (``unsafe``), and the text edits that apply it (none
    where the fix cannot be written as an edit).

    A str subclass, so that every place that shows a fix as a sentence keeps working and a
    plain string given as a fix is a fix with no edits."""

    # Class-level defaults: a fix sets only what differs from them, so the many plain fixes of
    # a large run carry no attribute dictionary (``changes`` is never written to in place).
    applicability: str = UNSAFE
    edits: tuple[Edit, ...] = ()
    setting: str = ""
    effect: str = ""
    changes: dict[str, Any] = MappingProxyType({})  # type: ignore[assignment]

    def __new__(
        cls,
        message: str = "",
        *,
        applicability: str = UNSAFE,
        edits: tuple[Edit, ...] | list[Edit] = (),
        setting: str = "",
        effect: str = "",
        changes: dict[str, Any] | None = None,
    ) -> Fix:
        fix = super().__new__(cls, message)
        if applicability != UNSAFE:
            fix.applicability = applicability
        if edits:
            fix.edits = tuple(edits)
        if setting:
            fix.setting = setting
        if effect:
            fix.effect = effect
        if changes:
            fix.changes = dict(changes)
        return fix

    @property
    def message(self) -> str:
        return str.__str__(self)

    @property
    def safe(self) -> bool:
        return self.applicability == SAFE

    def replaced(self, **changes: Any) -> Fix:
        """This fix with some attributes (or ``message``) changed."""
        fields = {
            "applicability": self.applicability,
            "edits": self.edits,
            "setting": self.setting,
            "effect": self.effect,
            "changes": self.changes,
        }
        message = changes.pop("message", self.message)
        fields.update(changes)
        return Fix(message, **fields)

    def as_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "setting": self.setting or None,
            "effect": self.effect or None,
            "applicability": self.applicability,
            "edits": [edit.as_dict() for edit in self.edits],
        }


def as_fix(value: str) -> Fix:
    return value if isinstance(value, Fix) else Fix(str(value))


@dataclass(slots=True)
class Diagnostic:
    code: str
    name: str
    severity: Severity
    message: str
    file: str
    span: Span = field(default_factory=lambda: Span(1, 1))
    fixes: list[Fix] = field(default_factory=list)  # plain strings become Fix records
    deployment: str | None = None

    def __post_init__(self) -> None:
        self.fixes = [as_fix(fix) for fix in self.fixes]

    @property
    def help_uri(self) -> str:
        return f"{DOCS_URL}#{self.code.lower()}-{self.name}"

    def sort_key(self) -> tuple:
        return (self.file, self.span.line, self.span.column, self.code)


@dataclass(frozen=True)
class InputCheck:
    code: str
    name: str
    severity: Severity
    summary: str
    description: str = ""  # longer prose for docs/rules.md and SARIF help, where useful


INPUT_CHECKS: dict[str, InputCheck] = {
    check.code: check
    for check in (
        InputCheck(
            "HBM000",
            "internal-error",
            Severity.ERROR,
            "hbmlint itself failed on this file (a bug: please report it); exit code 2.",
        ),
        InputCheck(
            "HBM001", "unreadable-file", Severity.ERROR, "The file cannot be read as UTF-8 text."
        ),
        InputCheck(
            "HBM002",
            "yaml-syntax",
            Severity.ERROR,
            "The file is not valid YAML, or uses a tag hbmlint does not read.",
        ),
        InputCheck(
            "HBM003",
            "schema-violation",
            Severity.ERROR,
            "The manifest does not follow its JSON Schema.",
        ),
        InputCheck(
            "HBM004",
            "invalid-value",
            Severity.ERROR,
            "A value has the wrong unit or is out of range (memory: 80 seconds).",
        ),
        InputCheck(
            "HBM005",
            "unknown-gpu",
            Severity.ERROR,
            "The GPU type is not in the catalog and no memory size is given.",
            "The GPU type is not in the catalog and no memory size is given, or the manifest "
            "names no GPU. An error in hbmlint's own format (most likely a typo); a warning in a "
            "manifest written for an engine (Kubernetes, KServe, compose, Helm values, vLLM "
            "config), saying how to name the GPU there: `--gpu TYPE`, `default-gpu` in the "
            "configuration, a node label hbmlint reads, or the annotation `hbmlint.io/gpu`.",
        ),
        InputCheck(
            "HBM006",
            "unknown-model",
            Severity.ERROR,
            "The model is not in the catalog and no readable config.json is given.",
            "The model is not in the catalog, the local Hugging Face cache or any other source "
            "hbmlint reads, and no readable config.json is given. An error in hbmlint's own "
            "format; a warning in a manifest written for an engine, saying how to unblock it: "
            "map a local path to its model in the configuration (`model-paths`), annotate the "
            "workload `hbmlint.io/model: ORG/NAME`, or download the model's config.json into "
            "the Hugging Face cache. An unknown drafter is reported the same way; the target is "
            "still budgeted, without the drafter. A known model hbmlint does not budget is "
            "reported here too: a warning that says why for one whose layers it does not model "
            "(DeepSeek V4, Whisper), an info for an encoder-only embedder or reranker (BERT, "
            "XLM-RoBERTa: BAAI/bge-m3), for which vLLM keeps no KV cache, naming its weights.",
        ),
        InputCheck(
            "HBM007",
            "inconsistent-parallelism",
            Severity.ERROR,
            "GPU count, tensor and pipeline parallelism do not agree.",
            "GPU count, tensor, pipeline and data parallelism do not agree. Fewer GPUs than "
            "tensor x pipeline x data parallelism needs is an error (the engine cannot start); "
            "more is a warning in a manifest written for an engine (it starts and leaves the "
            "rest idle) and an error in hbmlint's own format.",
        ),
        InputCheck(
            "HBM008",
            "approximate-architecture",
            Severity.INFO,
            "The model uses a feature hbmlint does not model yet; figures are approximate.",
        ),
        InputCheck(
            "HBM009",
            "broken-rule",
            Severity.ERROR,
            "A rule file is invalid or its expression failed; the rule did not run.",
        ),
        InputCheck(
            "HBM010",
            "removed-flag",
            Severity.WARNING,
            "An engine flag that current releases have removed (vLLM's --speculative-model "
            "family, --swap-space); the engine refuses it (an error where the manifest pins a "
            "release that has removed it).",
            "An engine flag that current releases have removed: vLLM's separate speculative "
            "decoding flags (`--speculative-model`, `--num-speculative-tokens`, "
            "`--speculative-draft-tensor-parallel-size`, `--speculative-model-quantization`, "
            "`--speculative-max-model-len`, `--ngram-prompt-lookup-max/min`, "
            "`--speculative-disable-by-batch-size`, and the V0 tuning flags "
            "`--spec-decoding-acceptance-method`, `--typical-acceptance-sampler-posterior-*`, "
            "`--speculative-disable-mqa-scorer`, `--disable-logprobs-during-spec-decoding`), "
            "deprecated in v0.8.0 for `--speculative-config` (vLLM PR #14434) and removed in "
            "v0.8.3 (PR #15466), and `--use-v2-block-manager`. hbmlint reads them as their "
            "`--speculative-config` replacement, but vLLM 0.8.3 and later refuse to start. The "
            "fix rewrites them as one `--speculative-config` JSON where the file allows; it is "
            "safe (`--fix` applies it) when every flag has a key in today's "
            "`--speculative-config`, and unsafe when one would be dropped. Also vLLM's "
            "`--device`, `--tokenizer-pool-size`, `--enable-prompt-adapter` (removed in 0.10), "
            "`--num-scheduler-steps`, `--multi-step-stream-outputs` (0.10.1), "
            "`--disable-async-output-proc` (0.11), `--rope-scaling`, `--rope-theta` (0.11.1), "
            "`--max-seq-len-to-capture`, "
            "`--scheduler-delay-factor`, `--preemption-mode` (0.11), `--num-redundant-experts`, "
            "`--lora-extra-vocab-size`, `--guided-decoding-backend`, `--eplb-window-size`, "
            "`--eplb-step-interval`, `--eplb-log-balancedness` (0.12), `--cuda-graph-sizes`, "
            "`--disable-mm-preprocessor-cache`, `--enable-multimodal-encoder-data-parallel`, "
            "`--task` (0.13), "
            "`--disable-log-requests` (0.17 to 0.32: 0.33 takes it again), `--swap-space` (0.18), "
            "`--disable-frontend-multiprocessing` (0.19) and `--calculate-kv-scales` (0.28), "
            "where the manifest's release has them removed (or names none): the fix names what "
            "replaces them, or drops them.",
        ),
        InputCheck(
            "HBM011",
            "unreadable-value",
            Severity.INFO,
            "A value hbmlint cannot read without running anything (a shell variable the "
            "container does not set, a setting it does not know); the engine default is assumed.",
            "A value hbmlint cannot read without running anything: a shell variable the "
            "container does not set in its `env`, or a setting it does not know. The engine "
            "default is assumed, and the finding says which.",
        ),
        InputCheck(
            "HBM012",
            "render-first",
            Severity.WARNING,
            "A template or placeholder (Helm {{ }}, ${VAR}, REPLACE_ME) that is not a manifest "
            "until rendered; render it and lint the output (helm template ... | hbmlint -).",
            "A Helm template (`{{ .Values... }}`) or a placeholder (`${VAR}`, `REPLACE_ME`) that "
            "is not a manifest until rendered. Render it and lint the output: "
            "`helm template RELEASE CHART -f values.yaml | hbmlint -`.",
        ),
        InputCheck(
            "HBM013",
            "repeated-entrypoint",
            Severity.WARNING,
            "The command line repeats what the image's entrypoint already runs (`serve` on the "
            "vllm/vllm-openai image); the engine rejects its arguments (an error on vLLM's own "
            "image, a warning on one derived from it).",
            "The container's `args` start with a word that the image's own entrypoint already "
            "runs: `serve` on the `vllm/vllm-openai` image, whose entrypoint is `vllm serve` "
            "(the api_server module in older releases). vLLM's parser then takes `serve` as "
            "the model and rejects the real one as an unrecognized argument. hbmlint reads the "
            "model after `serve`. On `vllm/vllm-openai` itself, where arguments that start a "
            'shell (`/bin/sh -c "vllm serve ..."`, `bash -lc ...`) are handed to that '
            "entrypoint, the finding is an error: vLLM takes the shell for the model and "
            "refuses to start. On an image of another name it is a warning, because a derived "
            "image may have changed the entrypoint. The same for an LLMInferenceService whose "
            "main container sets no command and whose `args` are one word holding a whole "
            "launch line "
            "(`python3 -m vllm.entrypoints.openai.api_server --model=/mnt/models ...`): KServe "
            "runs its own `vllm serve /mnt/models` with the args after it; hbmlint reads the "
            "line's flags.",
        ),
        InputCheck(
            "HBM014",
            "engine-not-read",
            Severity.INFO,
            "The file runs an inference engine in a way hbmlint does not read (a format it does "
            "not know, the engine started from code, or on an accelerator that is not an "
            "NVIDIA or AMD GPU); nothing in it was checked.",
            "The file mentions an engine command (`vllm serve`, `sglang.launch_server`, "
            "`text-generation-launcher`, ...) or an engine application (a Ray Serve app running "
            "its own Python) that hbmlint cannot read, so no budget was made for it; so does "
            "a container asking for a GPU on an engine's image that runs a shell script the "
            "file does not hold (`bash -c /bin/boot.sh`), and an engine's image in Helm chart "
            "values (`repository: rocm/vllm-dev`). The finding "
            "points at the first mention. To have it checked, write the engine's command line "
            "where hbmlint reads it (a container's command, a SkyPilot `run:`, Ray Serve LLM's "
            "`llm_configs`), map the file to a format in the configuration's `formats`, or "
            "describe the deployment in an hbmlint manifest. README's formats section lists what "
            "is read. An engine on an Intel Gaudi, a Huawei Ascend NPU, AWS Neuron, a Google "
            "TPU or an Intel GPU (a device-plugin resource such as `habana.ai/gaudi`, a "
            "variable only that device's runtime reads such as `HABANA_VISIBLE_DEVICES`, "
            "`PT_HPU_*` or `ASCEND_RT_VISIBLE_DEVICES`, `runtime: habana`, the engine's "
            "`--device hpu`) is that device's build of the engine: hbmlint does not budget "
            "its memory, and does not budget it on `--gpu` either.",
        ),
        InputCheck(
            "HBM015",
            "model-not-fetched",
            Severity.WARNING,
            "A model outside the catalog could not be read from the Hugging Face Hub (offline, "
            "not found, gated, rate-limited, a server error, no answer in time); not budgeted.",
            "A model that is neither in the catalog, nor in the repository's lock directory "
            "(`.hbmlint/models/`), nor in the local Hugging Face cache could not be read from "
            "the Hub: offline (`HF_HUB_OFFLINE`), not found, gated or private (set `HF_TOKEN` "
            "or request access), rate-limited, a server error, or no answer within "
            "`HBMLINT_HUB_TIMEOUT` seconds for the whole run. Reported once per model. Run "
            "`hbmlint models pull MODEL` where the Hub is reachable and commit "
            "`.hbmlint/models/`.",
        ),
        InputCheck(
            "HBM016",
            "ignored-setting",
            Severity.WARNING,
            "A setting written where the chart or orchestrator does not read it: it never "
            "reaches the engine.",
            "A setting written where the chart or orchestrator that renders the engine's command "
            "does not look for it, such as production-stack's `extraArgs` outside "
            "`modelSpec[].vllmConfig`. The engine starts without it; hbmlint budgets what the "
            "engine really gets and says where the setting belongs.",
        ),
        InputCheck(
            "HBM017",
            "comment-ends-command",
            Severity.WARNING,
            "A `\\` at the end of a comment inside a continued engine command: the shell ends "
            "the command at the comment, so the lines after it never reach the engine.",
            "In a launch script a command continued over lines with `\\` ends at the first "
            "line that does not end in one, and a `\\` inside a comment "
            "(`--network host  # needed for NCCL \\`) is part of the comment: the shell ends "
            "the command there. The lines after it, meant as more of its options (the image, "
            "the model, the engine's flags), run as a command of their own, which fails "
            "(`--shm-size=32g: command not found`), and the command before the comment runs "
            "without them (`docker run` with no image). hbmlint reads the command as the shell "
            "does; put the comment on a line of its own above the command, or remove it.",
        ),
        InputCheck(
            "HBM018",
            "line-break-ends-command",
            Severity.WARNING,
            "An engine command's options go on after a line that does not end in `\\`: the "
            "shell ends the command there, so those options never reach the engine.",
            "A command continued over lines needs a `\\` at the end of each line but its last. "
            "Where one is missing (`trtllm-serve MODEL` and then `--max_batch_size 8 \\` on the "
            "next line, in a script or a `bash -c` block), the shell runs the engine with what "
            "came before the break and the lines after it as a command of their own, which "
            "fails (`--max_batch_size: command not found`). hbmlint reads the command as the "
            "shell does (without those options) and says where it was cut; add the `\\`.",
        ),
        InputCheck(
            "HBM019",
            "shared-gpu",
            Severity.WARNING,
            "Engine services of one file run on the same GPU and would take more than the card "
            "together: the one that starts second refuses or gets far less.",
            "Two engine services of a docker-compose file name the same GPU (`device_ids`, or "
            "`NVIDIA_VISIBLE_DEVICES`) and, as their budgets read them, would take more than 97% "
            "of it together: each its memory fraction as set or the engine's default for its "
            "release and GPU (vLLM's `--gpu-memory-utilization`, SGLang's "
            "`--mem-fraction-static`, TGI's `--cuda-memory-fraction`, TensorRT-LLM's "
            "`free_gpu_memory_fraction`), plus what the engine keeps outside it (SGLang's "
            "activations and CUDA graphs; TensorRT-LLM's fraction is of what is free after its "
            "weights and activations). Each engine sizes its memory as if it had the GPU alone: "
            "vLLM checks that the share it asks for is free at start, TGI, SGLang and "
            "TensorRT-LLM size the KV cache from what they find. So the one that starts second "
            "refuses to start, or runs with far less KV cache than its budget says. Give each "
            "service its own GPU, or lower the fractions until the two fit (the second one's "
            "CUDA context takes a few hundred MiB as well). Services of Compose profiles that "
            "share none are never started together and are not compared.",
        ),
        InputCheck(
            "HBM020",
            "shell-takes-engine-flags",
            Severity.WARNING,
            "A container's shell takes `-c` and then an engine's flags with no engine program: "
            "the shell refuses the first flag, so no engine starts.",
            "A pod's container runs a shell with `-c` (`command: [/bin/bash, -c]`) and its "
            "next word is an engine's flag (`args: [--model, ...]`), with no program named "
            "before it. The shell reads the word after `-c`'s options as an option of its own "
            "and stops ('bash: --model: invalid option'), so the container exits and the engine "
            "never starts; nothing in its flags was checked. Name the engine before its flags "
            "(`python3 -m dynamo.vllm --model ...`, `vllm serve MODEL ...`), in one command "
            "string after `-c` or as command and args without the shell. A warning: an "
            "operator that rewrites the container's arguments (Dynamo's multinode launch) "
            "may yet put a program in front of them.",
        ),
        InputCheck(
            "HBM090",
            "unused-suppression",
            Severity.INFO,
            "A suppression comment or annotation suppresses no finding, or names an unknown code.",
            "A suppression comment or annotation suppresses no finding, or names an unknown "
            "code (as ruff's RUF100). Remove it, or the codes in it that no longer apply; a "
            "suppression of a code the configuration does not run is not reported. Inline "
            "suppressions read `# hbmlint: disable=HBM201 -- reason` (on the line), "
            "`# hbmlint: disable-next-line=...`, `# hbmlint: disable-file`, or the annotation "
            "`hbmlint.io/disable: HBM201,HBM202`; see the README.",
        ),
    )
}


def input_diagnostic(
    code: str,
    message: str,
    file: str,
    span: Span | None = None,
    deployment: str | None = None,
    fixes: list[str] | None = None,
    severity: Severity | None = None,
) -> Diagnostic:
    """A diagnostic for one of the input checks above. ``severity`` overrides the check's
    own where the same problem weighs differently: an unknown model is an error in hbmlint's
    own format (a typo) and a warning in a manifest written for an engine (not checkable)."""
    check = INPUT_CHECKS[code]
    return Diagnostic(
        code=code,
        name=check.name,
        severity=severity or check.severity,
        message=message,
        file=file,
        span=span or Span(1, 1),
        fixes=list(fixes or []),
        deployment=deployment,
    )
