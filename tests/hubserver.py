"""A local server speaking the Hugging Face Hub's HTTP protocol, for driving the real
huggingface_hub client in tests: /api/models/<repo>[/revision/<rev>], HEAD and GET
/<repo>/resolve/<rev>/<file> with ETag, X-Repo-Commit and Content-Length, ranged GETs (the
safetensors headers), and X-Error-Code on errors. A safetensors file is its real header
followed by zeros that are never sent unless asked for. Started and stopped by the tests, on
127.0.0.1 only."""

from __future__ import annotations

import hashlib
import json
import re
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = Path(__file__).parent / "data" / "hub"
COMMIT = "0a854d48947ba295cc76a294b46d5f55f26c4bf4"
DTYPE_BYTES = {"F32": 4, "BF16": 2, "F16": 2, "I64": 8, "I32": 4, "U8": 1, "I8": 1, "BOOL": 1}


def safetensors_file(tensors: dict[str, tuple[str, list[int]]]) -> tuple[bytes, int]:
    """(8-byte length + JSON header, total file size) of a file holding these tensors."""
    header, offset = {}, 0
    for name, (dtype, shape) in sorted(tensors.items()):
        size = DTYPE_BYTES[dtype]
        for n in shape:
            size *= n
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # the format pads the header to 8 bytes
    head = struct.pack("<Q", len(raw)) + raw
    return head, len(head) + offset


def granite_tensors(config: dict) -> dict[str, tuple[str, list[int]]]:
    """GraniteMoe's tensors, their shapes from config.json (see data/hub/SOURCES.md)."""
    h, inter = config["hidden_size"], config["intermediate_size"]
    experts, heads = config["num_local_experts"], config["num_attention_heads"]
    kv = config["num_key_value_heads"] * h // heads
    out = {"model.embed_tokens.weight": ("F32", [config["vocab_size"], h])}
    out["model.norm.weight"] = ("F32", [h])
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        out[p + "block_sparse_moe.input_linear.weight"] = ("F32", [experts, 2 * inter, h])
        out[p + "block_sparse_moe.output_linear.weight"] = ("F32", [experts, h, inter])
        out[p + "block_sparse_moe.router.layer.weight"] = ("F32", [experts, h])
        out[p + "input_layernorm.weight"] = ("F32", [h])
        out[p + "post_attention_layernorm.weight"] = ("F32", [h])
        out[p + "self_attn.q_proj.weight"] = ("F32", [h, h])
        out[p + "self_attn.k_proj.weight"] = ("F32", [kv, h])
        out[p + "self_attn.v_proj.weight"] = ("F32", [kv, h])
        out[p + "self_attn.o_proj.weight"] = ("F32", [h, h])
    return out


def eagle3_tensors(config: dict, own_embeddings: bool) -> dict[str, tuple[str, list[int]]]:
    """An EAGLE-3 head's tensors, shapes from its config.json (see data/hub/SOURCES.md)."""
    h, inter = config["hidden_size"], config["intermediate_size"]
    head_dim = h // config["num_attention_heads"]
    kv = config["num_key_value_heads"] * head_dim
    m = "midlayer."
    out = {
        "fc.weight": ("F16", [h, 3 * h]),
        m + "self_attn.q_proj.weight": ("F16", [h, 2 * h]),
        m + "self_attn.k_proj.weight": ("F16", [kv, 2 * h]),
        m + "self_attn.v_proj.weight": ("F16", [kv, 2 * h]),
        m + "self_attn.o_proj.weight": ("F16", [h, h]),
        m + "mlp.gate_proj.weight": ("F16", [inter, h]),
        m + "mlp.up_proj.weight": ("F16", [inter, h]),
        m + "mlp.down_proj.weight": ("F16", [h, inter]),
        m + "input_layernorm.weight": ("F16", [h]),
        m + "hidden_norm.weight": ("F16", [h]),
        m + "post_attention_layernorm.weight": ("F16", [h]),
        "norm.weight": ("F16", [h]),
        "lm_head.weight": ("F16", [config["draft_vocab_size"], h]),
        "d2t": ("I64", [config["draft_vocab_size"]]),
        "t2d": ("BOOL", [config["vocab_size"]]),
    }
    if own_embeddings:
        out["embed_tokens.weight"] = ("F16", [config["vocab_size"], h])
    return out


def eagle3_repo(own_embeddings: bool = False) -> Repo:
    config_raw = (DATA / "eagle3-llama3.1-8b" / "config.json").read_bytes()
    tensors = eagle3_tensors(json.loads(config_raw), own_embeddings)
    return Repo({"config.json": config_raw}, {"model.safetensors": safetensors_file(tensors)})


def mistral_tensors(params: dict) -> dict[str, tuple[str, list[int]]]:
    """consolidated.safetensors of a Mistral-format repository, in Mistral's own tensor names
    (tok_embeddings, layers.N.attention.wq/wk/wv/wo, feed_forward.w1/w2/w3, attention_norm,
    ffn_norm, norm, output), shapes from its params.json (see data/hub/SOURCES.md)."""
    h, inter, vocab = params["dim"], params["hidden_dim"], params["vocab_size"]
    q = params["n_heads"] * params["head_dim"]
    kv = params["n_kv_heads"] * params["head_dim"]
    out = {
        "tok_embeddings.weight": ("BF16", [vocab, h]),
        "norm.weight": ("BF16", [h]),
        "output.weight": ("BF16", [vocab, h]),
    }
    for i in range(params["n_layers"]):
        p = f"layers.{i}."
        out[p + "attention.wq.weight"] = ("BF16", [q, h])
        out[p + "attention.wk.weight"] = ("BF16", [kv, h])
        out[p + "attention.wv.weight"] = ("BF16", [kv, h])
        out[p + "attention.wo.weight"] = ("BF16", [h, q])
        out[p + "feed_forward.w1.weight"] = ("BF16", [inter, h])
        out[p + "feed_forward.w2.weight"] = ("BF16", [h, inter])
        out[p + "feed_forward.w3.weight"] = ("BF16", [inter, h])
        out[p + "attention_norm.weight"] = ("BF16", [h])
        out[p + "ffn_norm.weight"] = ("BF16", [h])
    return out


def mistral_repo() -> Repo:
    """A repository in Mistral's own format only: params.json and consolidated.safetensors."""
    raw = (DATA / "mistral-7b-instruct-v0.3" / "params.json").read_bytes()
    tensors = mistral_tensors(json.loads(raw))
    return Repo({"params.json": raw}, {"consolidated.safetensors": safetensors_file(tensors)})


class Repo:
    """The files of one repository: small ones whole, safetensors as header + size."""

    def __init__(self, files: dict[str, bytes], shards: dict[str, tuple[bytes, int]]):
        self.files = files
        self.shards = shards

    def names(self) -> list[str]:
        return sorted([*self.files, *self.shards])


def granite_repo() -> Repo:
    folder = DATA / "ibm-granite--granite-3.1-1b-a400m-instruct"
    config_raw = (folder / "config.json").read_bytes()
    index_raw = (folder / "model.safetensors.index.json").read_bytes()
    tensors = granite_tensors(json.loads(config_raw))
    weight_map = json.loads(index_raw)["weight_map"]
    shards = {}
    for shard in sorted(set(weight_map.values())):
        mine = {k: v for k, v in tensors.items() if weight_map[k] == shard}
        shards[shard] = safetensors_file(mine)
    files = {"config.json": config_raw, "model.safetensors.index.json": index_raw}
    return Repo(files, shards)


class Hub:
    """The server. ``repos`` maps repo ids to a Repo; ``mode`` per repo id or "*" says how to
    misbehave: "not-found", "gated" (unless the request carries ``token``), "error" (HTTP
    500), "rate-limited" (429), "hang" (never answers)."""

    def __init__(self, repos: dict[str, Repo], token: str | None = None):
        self.repos = repos
        self.token = token
        self.mode: dict[str, str] = {}
        self.requests: list[tuple[str, str, str | None, str | None]] = []
        self._stop = threading.Event()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_HEAD(self):
                hub._handle(self, head=True)

            def do_GET(self):
                hub._handle(self, head=False)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Hub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------------ protocol
    def _handle(self, req: BaseHTTPRequestHandler, head: bool) -> None:
        path = req.path.split("?")[0]
        self.requests.append(
            (req.command, path, req.headers.get("Range"), req.headers.get("Authorization"))
        )
        api = re.match(r"^/api/models/([^/]+/[^/]+?)(?:/revision/([^/]+))?$", path)
        resolve = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
        repo_id = (api or resolve).group(1) if (api or resolve) else None
        mode = self.mode.get(repo_id or "", self.mode.get("*", ""))
        if mode == "hang":
            self._stop.wait(120)  # never answers while the test runs
            return
        if mode == "error":
            return self._send(req, 500, b"internal error", head)
        if mode == "rate-limited":
            return self._send(req, 429, b"slow down", head, {"Retry-After": "60"})
        repo = self.repos.get(repo_id or "")
        if repo is None or mode == "not-found":
            return self._send(req, 401, b"", head, {"X-Error-Code": "RepoNotFound"})
        if api:
            info = {
                "id": repo_id,
                "modelId": repo_id,
                "sha": COMMIT,
                "private": False,
                "gated": "manual" if mode == "gated" else False,
                "siblings": [{"rfilename": n} for n in repo.names()],
            }
            return self._send(
                req, 200, json.dumps(info).encode(), head, {"Content-Type": "application/json"}
            )
        name = resolve.group(3)
        authorized = req.headers.get("Authorization") == f"Bearer {self.token}"
        if mode == "gated" and not authorized:
            return self._send(req, 401, b"", head, {"X-Error-Code": "GatedRepo"})
        if name in repo.files:
            body, size = repo.files[name], len(repo.files[name])
        elif name in repo.shards:
            body, size = repo.shards[name]
        else:
            return self._send(
                req, 404, b"", head, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": COMMIT}
            )
        etag = hashlib.sha256(body + str(size).encode()).hexdigest()
        headers = {"ETag": f'"{etag}"', "X-Repo-Commit": COMMIT, "Accept-Ranges": "bytes"}
        wanted = req.headers.get("Range")
        if wanted and not head:
            start, _, end = wanted.removeprefix("bytes=").partition("-")
            start, end = int(start), min(int(end or size - 1), size - 1)
            chunk = body[start : end + 1]
            chunk += b"\0" * (end + 1 - start - len(chunk))  # tensor data: zeros
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
            return self._send(req, 206, chunk, head, headers)
        if len(body) < size and not head:
            # the weights themselves are never to be downloaded: fail loudly if asked for
            return self._send(req, 500, b"a whole safetensors file was requested", head)
        return self._send(req, 200, body, head, headers, length=size)

    @staticmethod
    def _send(req, status, body, head, headers=None, length=None) -> None:
        req.send_response(status)
        for key, value in (headers or {}).items():
            req.send_header(key, value)
        req.send_header("Content-Length", str(length if length is not None else len(body)))
        req.end_headers()
        if not head:
            req.wfile.write(body)


def wait_for(predicate, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


class Proxy:
    """A forward HTTP proxy on 127.0.0.1 for the proxy tests: it takes absolute-form requests
    (``GET http://host:port/path``), records them, and sends each to ``upstream`` (the local
    Hub) whatever host the request names, relaying status, headers and body."""

    def __init__(self, upstream: str):
        import http.client
        from urllib.parse import urlsplit

        target = urlsplit(upstream)
        self.requests: list[tuple[str, str]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args):  # quiet
                pass

            def _relay(self) -> None:
                proxy.requests.append((self.command, self.path))
                if not self.path.startswith("http://"):  # not a proxy request
                    self.send_response(400)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                path = "/" + self.path.split("/", 3)[3] if self.path.count("/") >= 3 else "/"
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "proxy-connection", "connection")
                }
                conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                conn.request(self.command, path, headers=headers)
                answer = conn.getresponse()
                body = answer.read()
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(key, value)
                length = answer.getheader("Content-Length") if self.command == "HEAD" else None
                self.send_header("Content-Length", length or str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                conn.close()

            do_GET = _relay
            do_HEAD = _relay

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Proxy:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
