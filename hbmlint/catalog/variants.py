"""Quantized re-uploads and copies of catalog models, known by their repository names.

Most checkpoints deployed today are not the base model's own repository but a quantized upload
of it (``Qwen/Qwen3-32B-AWQ``, ``RedHatAI/Llama-3.1-8B-Instruct-FP8``,
``hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4``) or a plain copy under another
organisation (``unsloth/Qwen3-8B``). Their config.json is the base model's with a
``quantization_config`` added. Where hbmlint cannot read that file (the model is not in the
catalog and the Hub cannot be reached), the name says enough: the base model is the catalog
model whose repository name is what is left once the quantization suffix is taken off, and the
suffix says the weight format. The result is what the same deployment of the base model with
``--quantization`` set would be budgeted as, and ``assumed`` says where it came from.

The suffixes are the publishers' own conventions, read from their repository names on the Hub:
Qwen (``-AWQ``, ``-GPTQ-Int4``, ``-GPTQ-Int8``, ``-FP8``), Red Hat AI / Neural Magic
(``-FP8``, ``-FP8-dynamic``, ``-FP8-block``, ``-quantized.w4a16``, ``-quantized.w8a8``),
hugging-quants (``-AWQ-INT4``, ``-GPTQ-INT4``), community uploads (``-AWQ-4bit``, ``_AWQ``),
NVIDIA ModelOpt (``-FP8``, ``-FP4``, ``-NVFP4``), AMD Quark (``-FP8-KV``), microscaling
(``-MXFP8``, ``-MXFP4``), unsloth (``-bnb-4bit``, ``-unsloth-bnb-4bit``), Intel AutoRound
(``-int4-AutoRound``). A stem naming an NVIDIA "-BF16" master without that suffix finds it, and
an abliterated copy (``Huihui-<model>-abliterated``) is the model it names.
Group-wise INT4 formats are taken at their common group of 128 (AWQ's and GPTQ's defaults, and
what these publishers upload).
"""

from __future__ import annotations

import re
from typing import Any

from ..records import dataclass
from .labels import catalog_model_named

_INT4_GROUP_128 = {
    "quant_method": "compressed-tensors",
    "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int", "group_size": 128}}},
    "ignore": ["lm_head"],
}
# Google's QAT repacks: symmetric INT4 in groups of 32 (google/gemma-4-31B-it-qat-w4a16-ct's
# config.json, compressed-tensors pack-quantized, group_size 32, as read in a public benchmark's
# notes: "the config contains neither string and the group is 32, not the 128 'w4a16' connotes")
_INT4_GROUP_32 = {
    "quant_method": "compressed-tensors",
    "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int", "group_size": 32}}},
    "ignore": ["lm_head"],
}
_INT8_GROUP_128 = {
    "quant_method": "compressed-tensors",
    "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "int", "group_size": 128}}},
    "ignore": ["lm_head"],
}
_INT8_CHANNEL = {
    "quant_method": "compressed-tensors",
    "config_groups": {
        "group_0": {"weights": {"num_bits": 8, "type": "int", "strategy": "channel"}}
    },
    "ignore": ["lm_head"],
}

# Red Hat AI's and unsloth's "-FP8-block" uploads: compressed-tensors FP8 in 128 x 128 blocks with
# lm_head left out (as the config.json of unsloth/Llama-3.2-1B-Instruct-FP8-Block, in the catalog,
# writes it)
_FP8_BLOCK_128 = {
    "quant_method": "compressed-tensors",
    "config_groups": {
        "group_0": {
            "weights": {
                "num_bits": 8,
                "type": "float",
                "strategy": "block",
                "block_structure": [128, 128],
            }
        }
    },
    "ignore": ["lm_head"],
}

# (suffix pattern at the end of the repository name, quantization_config, how it is described),
# most specific first; a re-export's version tag may follow the suffix
# (nvidia/DeepSeek-R1-0528-NVFP4-v2, nvidia/Qwen3.5-397B-A17B-NVFP4-V2)
_SUFFIXES: tuple[tuple[re.Pattern[str], dict[str, Any], str], ...] = tuple(
    (re.compile(pattern + r"(?:-v\d+)?$", re.IGNORECASE), qconfig, label)
    for pattern, qconfig, label in (
        (
            r"-(?:unsloth-)?bnb-4bit",
            {"quant_method": "bitsandbytes", "load_in_4bit": True},
            "bitsandbytes 4-bit",
        ),
        # community 8-bit uploads (cpatonn-mirror/Qwen3-VL-30B-A3B-Instruct-AWQ-8bit): made with
        # llm-compressor's AWQ, stored as compressed-tensors 8-bit weights in groups of 128 (W8A16);
        # before the 4-bit form below
        (r"[-_]awq-(?:8bit|int8)", _INT8_GROUP_128, "AWQ 8-bit (W8A16)"),
        (
            r"[-_]awq(?:-int4|-4bit)?",
            {"quant_method": "awq", "bits": 4, "group_size": 128},
            "AWQ 4-bit",
        ),
        (r"-gptq-int8", {"quant_method": "gptq", "bits": 8, "group_size": 128}, "GPTQ 8-bit"),
        (
            r"-gptq(?:-int4)?",
            {"quant_method": "gptq", "bits": 4, "group_size": 128},
            "GPTQ 4-bit",
        ),
        # Intel's AutoRound uploads (Intel/Qwen3.5-122B-A10B-int4-AutoRound): symmetric INT4 in
        # groups of 128, the decoder layers only (Intel/gemma-4-31B-it-int4-AutoRound
        # quantization_config.json: bits 4, group_size 128, quant_method auto-round). AutoRound's
        # W4A16 scheme is the same (kaitchup/Qwen3.5-27B-autoround-W4A16; "the default W4A16
        # scheme": bits 4, group_size 128 in huggingface.co/hoborific/BereavedCompound-v1.0-24b-
        # W4A16-AutoRound), matched before a bare -W4A16
        (
            r"-int4-autoround|-w4a16-autoround|-autoround(?:-int4|-w4a16)?",
            {"quant_method": "auto-round", "bits": 4, "group_size": 128},
            "AutoRound INT4",
        ),
        # Google's QAT repacks for vLLM (google/gemma-4-31B-it-qat-w4a16-ct): compressed-tensors
        # W4A16 made with llm-compressor (a public repack's card describing Google's recipe.yaml),
        # in groups of 32 (_INT4_GROUP_32; xbill9's -qat-q4_0-w4a16-ct repack too, its card says);
        # other W4A16 uploads take llm-compressor's default, groups of 128
        (r"-qat(?:-q4_0)?-(?:quantized\.)?w4a16(?:-ct)?", _INT4_GROUP_32, "INT4 (W4A16, QAT)"),
        (r"-(?:quantized\.)?w4a16(?:-ct)?", _INT4_GROUP_128, "INT4 (W4A16)"),
        # 8-bit weights, 16-bit activations (okwinds/Qwen3-Coder-30B-A3B-Instruct-Int8-W8A16): the
        # weights' bytes are W8A8's
        (r"-(?:int8-)?w8a16", _INT8_CHANNEL, "INT8 (W8A16)"),
        (r"-(?:quantized\.)?w8a8|-int8", _INT8_CHANNEL, "INT8 (W8A8)"),
        # microscaling uploads (MiniMaxAI/MiniMax-M3-MXFP8, amd/MiniMax-M3-MXFP4)
        (r"-mxfp8", {"quant_method": "mxfp8"}, "MXFP8"),
        # (llm-compressor uploads add the scheme: ggamecrazy/Qwen3-32B-NVFP4-W4A4, -MXFP4-W4A4)
        (r"-mxfp4(?:-w4a4)?", {"quant_method": "mxfp4"}, "MXFP4"),
        (r"-(?:nv)?fp4(?:-w4a4)?", {"quant_method": "modelopt", "quant_algo": "NVFP4"}, "NVFP4"),
        (r"-fp8-block", _FP8_BLOCK_128, "FP8 (128 x 128 blocks)"),
        # AMD's Quark uploads (amd/Llama-3.1-70B-Instruct-FP8-KV): FP8 weights, and scales for an
        # FP8 KV cache; the KV cache's dtype is read from the manifest's --kv-cache-dtype as usual
        (r"-fp8-kv", {"quant_method": "fp8"}, "FP8 (AMD Quark, KV cache scales)"),
        (r"-fp8(?:-dynamic|-static)?", {"quant_method": "fp8"}, "FP8"),
    )
)


_NVFP4 = {"quant_algo": "NVFP4", "group_size": 16}
_FP8 = {"quant_algo": "FP8"}


def _nvfp4_layout(publisher: str, stem: str, text: dict) -> tuple[dict, str] | None:
    """What a publisher's NVFP4 export of this family leaves out of NVFP4, where public
    exports say so: (the quantization_config it amounts to, how ``assumed`` says it); None
    where no source says (every linear layer in NVFP4, the format's default).

    Sources (config.json / hf_quant_config.json copies in github.com/ai-dynamo/aiconfigurator
    aic-core/src/aiconfigurator_core/model_configs/ @ 90f7fc0f, ModelOpt 0.44-0.45; and the
    checkpoint notes named below):
    - Qwen3.5-family hybrids (Qwen3.6, Qwen3.8): NVIDIA's Qwen3.6-27B and Qwen3.6-35B-A3B
      exports are MIXED_PRECISION: self_attn and linear_attn projections in FP8, the MLPs (and
      experts) and lm_head in NVFP4, mtp* excluded (BF16). unsloth/Qwen3.8-27B-NVFP4 is
      "compressed-tensors, mixed-precision (fp8 attention + nvfp4 MLP; ViT unquantized)" with
      a separate 849 MB BF16 MTP module (a public deployment note of that checkpoint, code-search
      file id 61657431155); its lm_head is not stated, so only NVIDIA's is taken as NVFP4.
    - NVIDIA's Qwen3.5-122B-A10B and 397B-A17B exports: NVFP4 experts; self_attn, linear_attn,
      shared experts, lm_head, the vision tower and mtp* excluded (BF16).
    - NVIDIA's GLM-5 / 5.1 / 5.2 and Gemma-4 exports: every layer's self_attn excluded, and the
      MTP layer (GLM-5 model.layers.78*); Gemma-4-26B-A4B also its dense MLPs.
    """
    model_type = str(text.get("model_type") or "")
    nvidia = publisher.lower() == "nvidia"
    if nvidia and model_type in ("deepseek_v3", "deepseek_v32"):
        return dict(_DEEPSEEK_NVFP4), (
            "q_a/q_b/kv_a/kv_b projections, lm_head and the MTP layer in BF16 as NVIDIA's "
            "DeepSeek V3.1 / V3.2 NVFP4 exports"
        )
    if model_type.startswith("qwen3_5"):
        if nvidia and stem.lower().startswith("qwen3.5-") and "moe" in model_type:
            ignore = ["lm_head", "*.self_attn*", "*.linear_attn*", "*.mlp.shared_expert*", "mtp*"]
            config = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ignore}
            return (
                config,
                "attention, shared experts and MTP layers in BF16 as NVIDIA exports Qwen3.5",
            )
        layers = {"*.self_attn.*": _FP8, "*.linear_attn.*": _FP8, "*.mlp.*": _NVFP4}
        if nvidia:
            layers["lm_head"] = _NVFP4
        config = {
            "quant_method": "modelopt",
            "quant_algo": "MIXED_PRECISION",
            "quantized_layers": layers,
            "exclude_modules": ["mtp*"],
        }
        head = ", lm_head in NVFP4" if nvidia else ""
        return config, (
            f"attention in FP8{head}, MTP layers in BF16, as NVIDIA's Qwen3.6 and unsloth's "
            "Qwen3.8 NVFP4 exports"
        )
    if nvidia and (model_type.startswith("glm_moe") or model_type.startswith("gemma4")):
        ignore = ["lm_head", "*.self_attn*", "mtp*"]
        kept = "attention and MTP layers"
        if model_type.startswith("gemma4"):
            kept = "attention"
            if text.get("enable_moe_block"):
                ignore.append("*.mlp")  # the dense MLP beside the experts
                kept = "attention and the dense MLPs"
        config = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ignore}
        return config, f"{kept} in BF16, as NVIDIA's NVFP4 exports of this family"
    return None


# NVIDIA's NVFP4 exports of DeepSeek V3-family models (FP8 masters): every layer's attention
# input projections, lm_head and the MTP layer (model.layers.61) left in BF16, o_proj quantized
# (nvidia--DeepSeek-V3.1-NVFP4 and -V3.2-NVFP4 _hf_quant_config.json, aiconfigurator @095f58a5)
_DEEPSEEK_NVFP4 = {
    "quant_method": "modelopt",
    "quant_algo": "NVFP4",
    "group_size": 16,
    "exclude_modules": [
        "lm_head",
        "model.layers.*.self_attn.q_a_proj",
        "model.layers.*.self_attn.q_b_proj",
        "model.layers.*.self_attn.kv_a_proj_with_mqa",
        "model.layers.*.self_attn.kv_b_proj",
        "model.layers.61*",
    ],
}


@dataclass(frozen=True)
class Variant:
    """A model read from its repository name: the catalog model it is a copy of, and the
    config.json it would have."""

    name: str  # the repository name the manifest gives
    base: str  # the catalog model's id
    config: dict
    source: str
    weights: str  # "AWQ 4-bit", or "" for a plain copy
    # what the format leaves out, as this family's public exports do ("" where none is known)
    layout: str = ""
    # the catalog alias the name is an upload of, where it is not ``base`` itself (Qwen3-Next's
    # Instruct model, whose shape is the Thinking one's)
    alias: str = ""

    @property
    def described(self) -> str:
        """How ``assumed`` says it."""
        model = self.base
        if self.alias:
            model = (
                f"{self.alias} (the shape of {self.base}, which hbmlint's catalog lists it with)"
            )
        kind = f"{model} with {self.weights} weights" if self.weights else model
        if self.layout:
            kind += f" ({self.layout}: a guess)"
        return f"{kind}, read from the name '{self.name}'"


def variant(name: str) -> Variant | None:
    """The catalog model ``name`` is a quantized upload or a plain copy of, judged by its
    repository name alone; None when the name does not say (no single catalog model has the
    name left, or the model it names is itself quantized, but for an AWQ or GPTQ upload of a
    model that ships in FP8: _integer_upload_of_fp8)."""
    from . import find_model

    if name.count("/") > 1 or name.startswith(("/", ".")):
        return None
    # ORG/NAME, or a directory's bare name (a model path's last part)
    org, _, repo = name.rpartition("/")
    repo = _copied(repo)
    for pattern, qconfig, label in _SUFFIXES:
        match = pattern.search(repo)
        if match is None or match.start() == 0:
            continue
        stem = repo[: match.start()]
        # NVIDIA names its 16-bit masters "...-BF16" and quantized uploads of them drop that
        # (RedHatAI/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8-block of ...-A55B-BF16)
        base = catalog_model_named(stem, aliases=True, loose=False) or catalog_model_named(
            stem + "-BF16", aliases=True, loose=False
        )
        if base is None:
            return None
        entry = find_model(base)
        config = entry["config"] if entry else None
        text = config.get("text_config") if config else None
        nested = text.get("quantization_config") if isinstance(text, dict) else None
        if config is not None and isinstance(config.get("compress_ratios"), list):
            # DeepSeek V4, which hbmlint does not model in any format: its own config, so that
            # the manifest is told why (architecture.UnmodelledArchitecture), not sent to the Hub
            return Variant(name, entry["id"], config, entry["source"], label)
        if config is None:
            return None
        layout = ""
        known = None
        if qconfig["quant_method"] == "modelopt":
            known = _nvfp4_layout(org, stem, text or config)
            if known is not None:
                qconfig, layout = known
        own = config.get("quantization_config") or nested
        if isinstance(own, dict) and own.get("quant_method") == qconfig["quant_method"]:
            # the suffix names the format the model ships in (gpt-oss's "-mxfp4" copies): a copy
            return Variant(name, entry["id"], config, entry["source"], "")
        # a quantized model's name with a second suffix is not a known shape, except an NVIDIA
        # NVFP4 export of an FP8 DeepSeek master, whose layout is known (above), and integer
        # weight-only uploads (AWQ, GPTQ) of an FP8 master (_integer_upload_of_fp8)
        deepseek_export = known is not None and "deepseek" in str(config.get("model_type"))
        if own and not deepseek_export and not _integer_upload_of_fp8(own, qconfig):
            return None
        derived = {**config, "quantization_config": dict(qconfig)}
        if nested:  # the master's own format in text_config is not the upload's
            derived["text_config"] = {k: v for k, v in text.items() if k != "quantization_config"}
        if qconfig["quant_method"] in ("awq", "gptq"):
            derived["torch_dtype"] = "float16"  # their kernels' dtype, as these uploads say
        alias = _alias_named(entry, stem)
        return Variant(name, entry["id"], derived, entry["source"], label, layout, alias)
    base = catalog_model_named(repo, aliases=True, loose=False)
    entry = find_model(base) if base else None
    if entry is None:
        return None
    return Variant(name, entry["id"], entry["config"], entry["source"], "")


def _integer_upload_of_fp8(own: Any, qconfig: dict) -> bool:
    """Whether a name's AWQ or GPTQ suffix on a model that ships in FP8 reads as that format's
    usual upload: integer weights in groups, everything else in 16 bits
    (cyankiwi/MiniMax-M2.7-AWQ-4bit of MiniMaxAI/MiniMax-M2.7's FP8 128 x 128 blocks, served
    on 2 DGX Sparks at TP 2 in eugr/spark-vllm-docker issue #396). AWQ and GPTQ quantize 16-bit
    weights (AutoAWQ and llm-compressor take the FP8 master dequantized), and their kernels read
    no FP8 tensor, so the upload holds none: the master's FP8 layout says nothing about it, and
    the shape is the same as that of an AWQ upload of a 16-bit model. Not so for a 4-bit master
    (Kimi-K2.5's INT4 experts, gpt-oss's MXFP4), which such a name would re-quantize, nor for
    FP4 or FP8 names of an FP8 master, whose layers left in 16 bits differ by publisher."""
    if qconfig.get("quant_method") not in ("awq", "gptq"):
        return False
    if not isinstance(own, dict):
        return False
    method = own.get("quant_method")
    if method == "fp8":
        return True
    if method == "modelopt":
        return own.get("quant_algo") == "FP8"
    if method == "compressed-tensors":
        groups = own.get("config_groups")
        weights = (
            [g.get("weights") for g in groups.values() if isinstance(g, dict)]
            if isinstance(groups, dict)
            else []
        )
        return bool(weights) and all(
            isinstance(w, dict) and w.get("type") == "float" and w.get("num_bits") == 8
            for w in weights
        )
    return False


def _alias_named(entry: dict, stem: str) -> str:
    """The alias of the catalog ``entry`` whose repository name is ``stem``, where that is not
    the entry's own id ("" otherwise)."""
    if entry["id"].partition("/")[2].casefold() == stem.casefold():
        return ""
    return next(
        (
            a
            for a in entry.get("aliases") or ()
            if a.partition("/")[2].casefold() == stem.casefold()
        ),
        "",
    )


# "abliterated" uploads (huihui-ai/Huihui-Qwen3.6-27B-abliterated): the model with its refusal
# direction projected out of the weights, same shapes and dtype (huihui-ai's model cards: "an
# uncensored version of <model> created with abliteration"); huihui-ai prefixes "Huihui-"
_ABLITERATED = re.compile(r"^(?:huihui-)?(.+?)-abliterated$", re.IGNORECASE)


def _copied(repo: str) -> str:
    """The model a plain copy's repository name names."""
    match = _ABLITERATED.match(repo)
    return match.group(1) if match else repo
