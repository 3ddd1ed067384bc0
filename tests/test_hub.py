"""Models beyond the catalog, read from the Hugging Face Hub with the real huggingface_hub client,
against a local server speaking the Hub's protocol (tests/hubserver.py). hbmlint runs as a
separate process, as in CI, with HF_ENDPOINT pointing at the server and a Hugging Face home of
its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import manifest
from hubserver import COMMIT, Hub, granite_repo

from hbmlint.catalog.checkpoint import Checkpoint, summarize

GRANITE = "ibm-granite/granite-3.1-1b-a400m-instruct"
TOTAL_SIZE = 5_338_513_408  # the real index's metadata.total_size


def spec(model: str = GRANITE, gpu: str = "L4", tp: int = 1) -> str:
    return manifest(f"""
        gpu: {{type: {gpu}, count: {tp}}}
        model: {{name: {model}}}
        parallel: {{tensor: {tp}}}
        serving: {{max_model_len: 4096}}
    """)


@pytest.fixture
def home(tmp_path):
    """A project folder, a Hugging Face home and an hbmlint cache of this test's own."""
    (tmp_path / "project").mkdir()
    return tmp_path


def run(home: Path, *args: str, endpoint: str | None = None, timeout_s: float = 60, **env):
    """hbmlint in a process of its own; returns (exit code, stdout, stderr, seconds)."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HF_", "HBMLINT_")) and "proxy" not in k.lower()
    }
    environ.update(
        HF_HOME=str(home / "hf"),
        XDG_CACHE_HOME=str(home / "cache"),
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_HUB_DISABLE_PROGRESS_BARS="1",
        NO_PROXY="127.0.0.1,localhost",
    )
    if endpoint:
        environ["HF_ENDPOINT"] = endpoint
    environ.update({k: str(v) for k, v in env.items()})
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "hbmlint.cli", *args],
        cwd=home / "project",
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


def write(home: Path, text: str, name: str = "deploy.yaml") -> Path:
    path = home / "project" / name
    path.write_text(text)
    return path


def budget_json(home: Path, path: Path, **kw) -> tuple[dict, list]:
    code, out, err, _ = run(home, "budget", "--format", "json", str(path), **kw)
    assert code == 0, err
    [entry] = json.loads(out)
    return entry, entry


# --------------------------------------------------------------------------- data sanity


def test_the_served_headers_add_up_to_the_real_index_total():
    repo = granite_repo()
    tensors = {}
    from hbmlint.catalog.checkpoint import parse_header

    for head, _ in repo.shards.values():
        tensors.update(parse_header(head[8:]))
    assert sum(n for _, _, n in tensors.values()) == TOTAL_SIZE
    summary = summarize(tensors, "test")
    assert summary.stored_bytes == TOTAL_SIZE
    # a few KB whatever the layer count: layers are grouped, not listed tensor by tensor
    assert len(json.dumps(summary.to_json())) < 4000
    assert Checkpoint.from_json(summary.to_json(), "again").groups == summary.groups


# --------------------------------------------------------------------------- first and warm


def test_first_run_from_the_hub_then_from_the_cache_without_a_server(home):
    path = write(home, spec())
    with Hub({GRANITE: granite_repo()}) as hub:
        code, out, err, cold = run(home, "budget", "--format", "json", str(path), endpoint=hub.url)
        requests = list(hub.requests)
    assert code == 0, err
    [entry] = json.loads(out)
    # a float32 checkpoint, loaded in bfloat16 (dtype auto): half the stored tensors, tied
    # lm_head not stored twice, plus the RoPE cache in bfloat16
    rope = 131072 * 64 * 2
    assert entry["weights_bytes"] == TOTAL_SIZE // 2 + rope
    assert "stored checkpoint tensors" in entry["assumed"]["weights"]
    # config and index downloaded; the two shards' headers read by ranged GETs, never whole
    gets = [(p, r) for m, p, r, _ in requests if m == "GET" and p.endswith(".safetensors")]
    assert len(gets) == 2 and all(r and r.startswith("bytes=0-") for _, r in gets)
    assert any(p == f"/api/models/{GRANITE}" for _, p, _, _ in requests)
    # config.json and the index are in the shared Hugging Face cache, as vLLM would find them
    snapshot = home / "hf" / "hub" / f"models--{GRANITE.replace('/', '--')}" / "snapshots" / COMMIT
    assert (snapshot / "config.json").is_file()
    assert (snapshot / "model.safetensors.index.json").is_file()

    # the server is gone: the second run reads the cache only, and says the same
    code, out2, err2, warm = run(home, "budget", "--format", "json", str(path))
    assert code == 0, err2
    [again] = json.loads(out2)
    assert again["weights_bytes"] == entry["weights_bytes"]
    assert "stored checkpoint tensors" in again["assumed"]["weights"]
    # a warm run costs about what a catalog model does
    _, _, _, catalog = run(
        home,
        "budget",
        "--format",
        "json",
        str(write(home, spec("meta-llama/Llama-3.1-8B-Instruct"), "catalog.yaml")),
    )
    assert warm < catalog + 1.5, (cold, warm, catalog)


def test_weights_split_per_rank_from_the_stored_tensors(home):
    path = write(home, spec(gpu="L4", tp=2))
    with Hub({GRANITE: granite_repo()}) as hub:
        entry, _ = budget_json(home, path, endpoint=hub.url)
    # TP 2 with 8 KV heads: everything splits in two but the norms (1-D, whole on each rank)
    loaded = TOTAL_SIZE // 2  # float32 stored, bfloat16 loaded
    norms = (24 * 2 + 1) * 1024 * 2
    rope = 131072 * 64 * 2
    assert entry["weights_bytes"] == (loaded - norms) / 2 + norms + rope


def test_a_run_with_only_catalog_models_does_not_import_the_hub_client(home):
    path = write(home, spec("meta-llama/Llama-3.1-8B-Instruct"))
    probe = (
        "import sys; from hbmlint.cli import main\n"
        "try:\n    main([sys.argv[1]])\nexcept SystemExit:\n    pass\n"
        "print('huggingface_hub' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip().splitlines()[-1] == "False"


# --------------------------------------------------------------------------- failures


def lint_json(home: Path, path: Path, **kw) -> tuple[int, list, float]:
    code, out, err, seconds = run(home, "--format", "json", str(path), **kw)
    assert "Traceback" not in err, err
    return code, json.loads(out), seconds


def only_hbm015(findings: list) -> dict:
    [finding] = [f for f in findings if f["code"] == "HBM015"]
    assert finding["severity"] == "warning"
    assert finding["line"] == 6  # the model's line
    return finding


def test_offline_and_not_cached_is_a_warning(home):
    path = write(home, spec())
    code, findings, _ = lint_json(home, path, HF_HUB_OFFLINE="1")
    assert code == 0
    message = only_hbm015(findings)["message"]
    assert "HF_HUB_OFFLINE" in message and f"hbmlint models pull {GRANITE}" in message


def vllm_config(model: str) -> str:
    """A vLLM --config file: a manifest written for the engine, not for hbmlint."""
    return f"# served with vllm serve --config\ngpu: L4\nmodel: {model}\nmax-model-len: 4096\n"


def test_not_found_is_a_warning_naming_the_model_in_an_engine_manifest(home):
    path = write(home, vllm_config("acme/no-such-model"))
    with Hub({GRANITE: granite_repo()}) as hub:
        code, findings, _ = run_lint(home, path, hub)
    assert code == 0
    [finding] = [f for f in findings if f["code"] == "HBM015"]
    assert finding["severity"] == "warning" and finding["line"] == 3
    message = finding["message"]
    assert "acme/no-such-model" in message and "not found" in message and "HF_TOKEN" in message


def test_a_quantized_name_the_hub_says_does_not_exist_is_not_read_from_its_name(home):
    # offline, Llama-3.1-8B-Instruct-AWQ would be sized as the catalog's Llama 3.1 8B in AWQ;
    # a Hub that answers "not found" says the name is wrong, so it is not guessed at
    path = write(home, vllm_config("acme/Llama-3.1-8B-Instruct-AWQ"))
    with Hub({GRANITE: granite_repo()}) as hub:
        code, findings, _ = run_lint(home, path, hub)
    assert code == 0
    [finding] = [f for f in findings if f["code"] == "HBM015"]
    assert "acme/Llama-3.1-8B-Instruct-AWQ" in finding["message"]
    assert "not found" in finding["message"]


def test_not_found_in_hbmlint_own_format_is_an_error_as_any_unknown_name(home):
    path = write(home, spec("acme/no-such-model"))
    with Hub({GRANITE: granite_repo()}) as hub:
        code, findings, _ = run_lint(home, path, hub)
    assert code == 1
    [finding] = findings
    assert finding["code"] == "HBM006" and finding["line"] == 6


def run_lint(home: Path, path: Path, hub: Hub) -> tuple[int, list, float]:
    return lint_json(home, path, endpoint=hub.url)


def test_gated_says_to_request_access_and_set_a_token_and_a_token_opens_it(home):
    path = write(home, spec())
    with Hub({GRANITE: granite_repo()}, token="hf_test_token") as hub:
        hub.mode[GRANITE] = "gated"
        code, findings, _ = lint_json(home, path, endpoint=hub.url)
        assert code == 0
        message = only_hbm015(findings)["message"]
        assert "gated" in message and "HF_TOKEN" in message and "request access" in message
        # with HF_TOKEN set, the client sends it and the model is budgeted
        entry, _ = budget_json(home, path, endpoint=hub.url, HF_TOKEN="hf_test_token")
        assert any(auth == "Bearer hf_test_token" for *_, auth in hub.requests)
    assert "stored checkpoint tensors" in entry["assumed"]["weights"]


@pytest.mark.parametrize(
    ("mode", "words"), [("error", "HTTP 500"), ("rate-limited", "rate-limited")]
)
def test_server_error_and_rate_limit_are_warnings(home, mode, words):
    path = write(home, spec())
    with Hub({GRANITE: granite_repo()}) as hub:
        hub.mode["*"] = mode
        code, findings, _ = lint_json(home, path, endpoint=hub.url)
    assert code == 0
    assert words in only_hbm015(findings)["message"]


def test_a_hub_that_never_answers_ends_in_bounded_time_one_warning_per_model(home):
    # three files naming the same model, one naming another: two warnings, one wait
    for i in range(3):
        write(home, spec(), f"a{i}.yaml")
    write(home, spec("acme/other-model"), "b.yaml")
    with Hub({GRANITE: granite_repo()}) as hub:
        hub.mode["*"] = "hang"
        code, out, err, seconds = run(
            home, "--format", "json", ".", endpoint=hub.url, HBMLINT_HUB_TIMEOUT="3"
        )
        asked = list(hub.requests)
    assert code == 0, err
    # the Hub is waited on once a model at most, not once a file (four files)
    assert 1 <= len(asked) <= 2, asked
    findings = [f for f in json.loads(out) if f["code"] == "HBM015"]
    assert sorted(f["message"].split("'")[1] for f in findings) == [
        "acme/other-model",
        GRANITE,
    ]
    assert all("did not answer within 3 s" in f["message"] for f in findings)
    # bounded: the timeout, not the 120 s the server hangs for (start-up on a busy CI machine
    # can take seconds, so the bound is loose; the request count above is the exact check)
    assert seconds < 60


# --------------------------------------------------------------------------- lock directory


def test_pull_writes_a_small_lock_file_that_offline_runs_read_first(home):
    path = write(home, spec(tp=2))
    (home / "project" / ".git").mkdir()  # the repository root: where the lock directory goes
    with Hub({GRANITE: granite_repo()}) as hub:
        code, out, err, _ = run(home, "models", "pull", "deploy.yaml", endpoint=hub.url)
        online, _ = budget_json(home, path, endpoint=hub.url)
    assert code == 0, err
    lock = home / "project" / ".hbmlint" / "models" / f"{GRANITE.replace('/', '--')}.json"
    assert str(lock.relative_to(home / "project")) in out
    assert lock.stat().st_size < 8 * 1024  # config and tensor-size summary: a few KB
    data = json.loads(lock.read_text())
    assert data["id"] == GRANITE and data["revision"] == COMMIT
    assert data["checkpoint"]["total_size"] == TOTAL_SIZE

    # pre-commit.ci: no network, no Hugging Face cache; the lock file is all there is
    fresh = home / "ci"
    fresh.mkdir()
    (fresh / "project").symlink_to(home / "project")
    entry, _ = budget_json(fresh, path, HF_HUB_OFFLINE="1")
    assert entry["weights_bytes"] == online["weights_bytes"]
    assert "lock file" in entry["assumed"]["weights"]

    code, out, _, _ = run(fresh, "models", HF_HUB_OFFLINE="1")
    [row] = [line for line in out.splitlines() if line.startswith(GRANITE)]
    assert "lock" in row and "stored tensors" in row and COMMIT[:12] in row
    assert "catalog: parameter arithmetic" in out  # the catalog's models are listed too


def test_pull_of_a_model_the_hub_does_not_have_fails_with_its_reason(home):
    with Hub({GRANITE: granite_repo()}) as hub:
        code, _, err, _ = run(home, "models", "pull", "acme/missing", endpoint=hub.url)
    assert code == 1
    assert "acme/missing" in err and "not found" in err
    assert not (home / "project" / ".hbmlint").exists()


def test_a_broken_lock_file_is_a_located_finding(home):
    folder = home / "project" / ".hbmlint" / "models"
    folder.mkdir(parents=True)
    (folder / f"{GRANITE.replace('/', '--')}.json").write_text("{not json")
    code, findings, _ = lint_json(home, write(home, spec()), HF_HUB_OFFLINE="1")
    [finding] = findings
    assert finding["code"] == "HBM006" and finding["line"] == 6
    assert "lock file" in finding["message"]


# --------------------------------------------------------------------------- speculator heads

HEAD = "test-org/eagle3-llama3.1-8b"


def eagle3_manifest(tp: int = 1, version: str | None = None) -> str:
    release = f"engine: vllm\n        engine_version: '{version}'\n        " if version else ""
    return manifest(f"""
        {release}gpu: {{type: H100, count: {tp}}}
        model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
        parallel: {{tensor: {tp}}}
        serving: {{max_model_len: 8192}}
        speculative: {{method: eagle3, model: {HEAD}, num_speculative_tokens: 3}}
    """)


@pytest.mark.parametrize(
    ("own_embeddings", "version", "loads_embedding"),
    [
        (False, None, False),
        # a stored embedding of the target's shape is the frozen copy published heads save:
        # vLLM from 0.12 shares it when equal, 0.9.1-0.11 always; before 0.9.1 it loaded it
        (True, None, False),
        (True, "0.10.1", False),
        (True, "0.8.5", True),
    ],
)
def test_an_eagle3_head_from_the_hub_weighs_what_the_engine_loads(
    home, own_embeddings, version, loads_embedding
):
    from hubserver import eagle3_repo

    path = write(home, eagle3_manifest(version=version))
    with Hub({HEAD: eagle3_repo(own_embeddings)}) as hub:
        entry, _ = budget_json(home, path, endpoint=hub.url)
    h = 4096
    params = (2 * h * h + 2 * (2 * h * 1024) + h * h) + 3 * h * 14_336 + 4 * h
    params += 3 * h * h + 32_000 * h  # fc, and lm_head over the draft vocabulary
    stored = params * 2 + 32_000 * 8  # float16, and the d2t map (int64); t2d is not loaded
    if loads_embedding:  # the head's own embedding, as the engine loads it
        stored += 128_256 * h * 2
    assert entry["draft_weights_bytes"] == stored
    assumed = entry["assumed"]["draft_weights"]
    assert "stored checkpoint tensors" in assumed
    if own_embeddings and not loads_embedding:
        assert "embed_tokens not counted" in assumed
    elif own_embeddings:
        assert "own embed_tokens counted" in assumed
    else:
        assert "stores no embed_tokens" in assumed


def test_an_eagle3_head_split_over_two_ranks(home):
    from hubserver import eagle3_repo

    path = write(home, eagle3_manifest(tp=2))
    with Hub({HEAD: eagle3_repo()}) as hub:
        entry, _ = budget_json(home, path, endpoint=hub.url)
    h = 4096
    split = (2 * h * h + 2 * (2 * h * 1024) + h * h) + 3 * h * 14_336 + 32_000 * h
    whole = 3 * h * h + 4 * h  # fc (replicated) and the norms
    assert entry["draft_weights_bytes"] == split + whole * 2 + 32_000 * 8


# --------------------------------------------------------------------------- tokens and caches


def test_the_token_hf_auth_login_saved_is_sent(home):
    (home / "hf").mkdir()
    (home / "hf" / "token").write_text("hf_saved_token")  # where `hf auth login` keeps it
    path = write(home, spec())
    with Hub({GRANITE: granite_repo()}, token="hf_saved_token") as hub:
        hub.mode[GRANITE] = "gated"
        entry, _ = budget_json(home, path, endpoint=hub.url)
    assert "stored checkpoint tensors" in entry["assumed"]["weights"]


def test_a_serving_box_cache_with_the_weights_is_weighed_from_their_headers(home):
    """vLLM downloaded the model: hbmlint reads the safetensors headers on disk (8 bytes and
    the header of each file), offline, with no Hub and nothing of its own cached."""
    repo = granite_repo()
    snapshot = home / "hf" / "hub" / f"models--{GRANITE.replace('/', '--')}" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    for name, body in repo.files.items():
        (snapshot / name).write_bytes(body)
    for name, (head, size) in repo.shards.items():
        with open(snapshot / name, "wb") as handle:  # sparse: the header, then a hole
            handle.write(head)
            handle.truncate(size)
    entry, _ = budget_json(home, write(home, spec()), HF_HUB_OFFLINE="1")
    assert entry["weights_bytes"] == TOTAL_SIZE // 2 + 131072 * 64 * 2
    assert "local Hugging Face cache" in entry["assumed"]["weights"]


def test_a_hub_config_hbmlint_cannot_read_is_a_warning_in_an_engine_manifest(home):
    from hubserver import Repo

    # a speculators-format head: its layer shape sits in a nested config hbmlint does not read
    odd = Repo({"config.json": b'{"architectures": ["Eagle3Speculator"]}'}, {})
    path = write(home, vllm_config("acme/odd-head"))
    with Hub({"acme/odd-head": odd}) as hub:
        code, findings, _ = lint_json(home, path, endpoint=hub.url)
        strict, native, _ = lint_json(
            home, write(home, spec("acme/odd-head"), "n.yaml"), endpoint=hub.url
        )
    assert code == 0
    [finding] = [f for f in findings if f["code"] == "HBM006"]
    assert finding["severity"] == "warning" and finding["line"] == 3
    assert "hidden_size" in finding["message"]
    # in hbmlint's own format it stays an error, as any model hbmlint cannot read
    assert strict == 1 and [f["severity"] for f in native] == ["error"]


def test_parallel_workers_warn_once_per_model_in_the_run(home):
    # enough files for a process pool: each worker keeps its own record of what it reported,
    # and the run still shows one warning for the model, at the first file in order
    for i in range(70):
        write(home, spec(), f"d{i:02}.yaml")
    code, out, err, _ = run(home, "--jobs", "2", "--format", "json", ".", HF_HUB_OFFLINE="1")
    assert code == 0, err
    findings = [f for f in json.loads(out) if f["code"] == "HBM015"]
    assert len(findings) == 1
    assert findings[0]["file"].endswith("d00.yaml")


# --------------------------------------------------------------------------- Mistral's own format

MISTRAL = "test-org/mistral-7b-instruct-v0.3-consolidated"
# Mistral-7B-Instruct-v0.3's parameters: 32 layers x (attention 4096x4096 x 2 + 1024x4096 x 2
# + MLP 3 x 4096 x 14336 + 2 norms) + embedding and output 32768 x 4096 each + final norm
MISTRAL_PARAMS = 32 * (2 * 4096 * 4096 + 2 * 1024 * 4096 + 3 * 4096 * 14336 + 2 * 4096)
MISTRAL_PARAMS += 2 * 32768 * 4096 + 4096


def test_a_mistral_format_repository_is_read_from_params_json_and_consolidated_weights(home):
    from hubserver import mistral_repo

    path = write(home, spec(MISTRAL, gpu="H100"))
    with Hub({MISTRAL: mistral_repo()}) as hub:
        entry, _ = budget_json(home, path, endpoint=hub.url)
        requests = list(hub.requests)
    # the architecture from params.json: 32 layers x K and V x 8 heads x 128 x 2 bytes a token
    assert entry["kv_bytes_per_token"] == 32 * 2 * 8 * 128 * 2
    # the weights from consolidated.safetensors' header (a ranged read), Mistral's tensor names
    assert "stored checkpoint tensors" in entry["assumed"]["weights"]
    rope = entry["weights_bytes"] - MISTRAL_PARAMS * 2
    assert 0 <= rope < 64 * 2**20  # the RoPE cache beside the stored tensors
    gets = [r for m, p, r, _ in requests if m == "GET" and p.endswith("consolidated.safetensors")]
    assert gets and all(r and r.startswith("bytes=0-") for r in gets)
    # warm: params.json from the Hugging Face cache, no server
    again, _ = budget_json(home, path)
    assert again["weights_bytes"] == entry["weights_bytes"]
    assert again["kv_bytes_per_token"] == entry["kv_bytes_per_token"]


def test_mistral_tensor_names_split_over_tensor_parallel_ranks_like_the_hf_ones(home):
    from hubserver import mistral_repo

    path = write(home, spec(MISTRAL, gpu="H100", tp=2))
    with Hub({MISTRAL: mistral_repo()}) as hub:
        entry, _ = budget_json(home, path, endpoint=hub.url)
    norms = (32 * 2 + 1) * 4096 * 2  # whole on every rank
    split = (MISTRAL_PARAMS * 2 - norms) / 2
    assert entry["weights_bytes"] - (split + norms) < 64 * 2**20  # + the RoPE cache
    assert entry["weights_bytes"] - (split + norms) >= 0


# --------------------------------------------------------------------------- proxies


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy"])
def test_the_hub_is_reached_through_the_proxy_the_environment_names(home, variable):
    """HF_ENDPOINT names a host that does not resolve: only a proxy can reach it. The proxy on
    127.0.0.1 forwards every request to the local Hub, and records them."""
    from hubserver import Proxy

    path = write(home, spec())
    endpoint = "http://hub.hbmlint-test.invalid:8080"
    with Hub({GRANITE: granite_repo()}) as hub, Proxy(hub.url) as proxy:
        code, out, err, _ = run(
            home,
            "budget",
            "--format",
            "json",
            str(path),
            endpoint=endpoint,
            NO_PROXY="",
            **{variable: proxy.url},
        )
        seen = list(proxy.requests)
    assert code == 0, err
    [entry] = json.loads(out)
    assert "stored checkpoint tensors" in entry["assumed"]["weights"]
    assert any(p == f"{endpoint}/api/models/{GRANITE}" for _, p in seen)
    assert any(p.endswith(".safetensors") for _, p in seen)


def test_a_proxy_that_refuses_is_a_located_warning_naming_the_proxy_settings(home):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    path = write(home, spec())
    code, findings, seconds = lint_json(
        home,
        path,
        endpoint="http://hub.hbmlint-test.invalid:8080",
        NO_PROXY="",
        HTTP_PROXY=dead,
        HBMLINT_HUB_TIMEOUT="5",
    )
    assert code == 0
    message = only_hbm015(findings)["message"]
    assert "proxy" in message and GRANITE in message
    assert seconds < 5 + 8
