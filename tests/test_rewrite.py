"""rewrite.py alone: settings written back the way the file writes its other flags."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hbmlint.formats import kubernetes
from hbmlint.rewrite import Locator, Source, apply_edits, shell_word, yaml_scalar
from hbmlint.yamlsrc import load_documents

HEAD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: m}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
"""


def rewrite(body: str, changes: dict) -> str | None:
    text = HEAD + textwrap.indent(textwrap.dedent(body), " " * 10)
    documents, error = load_documents(text)
    assert error is None
    [deployment], _ = kubernetes.to_deployments(documents[0], Path("m.yaml"), "m.yaml")
    source = Source(text, "m.yaml")
    edits = deployment.writer.edits(changes, source, Locator(source, documents[0]))
    if edits is None:
        return None
    return apply_edits(text, source, edits)[len(HEAD) :]


def test_json_keeps_its_spacing_and_its_quotes_in_a_script():
    body = """\
    command: ["/bin/sh", "-c"]
    args:
      - >-
        vllm serve meta-llama/Llama-3.1-8B-Instruct
        --speculative-config='{"method":"ngram","num_speculative_tokens":3}'
    """
    out = rewrite(body, {"speculative.num_speculative_tokens": 5})
    assert '--speculative-config=\'{"method":"ngram","num_speculative_tokens":5}\'' in out


def test_a_flow_list_gets_the_new_flag_as_items():
    body = """\
    args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
    """
    out = rewrite(body, {"serving.kv_cache_dtype": "fp8", "serving.max_model_len": 4096})
    assert out.strip() == (
        'args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "4096", '
        '"--kv-cache-dtype", "fp8"]'
    )


def test_a_value_from_a_variable_is_not_rewritten():
    body = """\
    args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "$(LEN)"]
    env: [{name: LEN, value: "8192"}]
    """
    assert rewrite(body, {"serving.max_model_len": 4096}) is None


def test_encoders():
    assert yaml_scalar("8192", "plain") == "8192"
    assert yaml_scalar('{"a": 1}', "plain") == "'{\"a\": 1}'"  # a plain scalar cannot hold it
    assert yaml_scalar('{"a": 1}', '"') == '"{\\"a\\": 1}"'
    assert yaml_scalar("true", "plain") == "'true'"  # would read back as a boolean
    assert shell_word("fp8") == "fp8"
    assert shell_word('{"a": 1}') == "'{\"a\": 1}'"
    assert shell_word("it's") == "'it'\"'\"'s'"
