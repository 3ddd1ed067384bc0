"""A workload that takes its settings from a ConfigMap applied from another file of the run
(kustomize bases, GitOps folders): the value is read, and findings point at the reference in
the workload's own file."""

from __future__ import annotations

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: model-settings
data:
  model: mistralai/Mistral-7B-Instruct-v0.3
  max-len: "8192"
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mistral
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: ["/bin/sh", "-c"]
        args: ["vllm serve $MODEL --max-model-len $MAX_LEN"]
        env:
        - name: MODEL
          valueFrom:
            configMapKeyRef: {name: model-settings, key: model}
        - name: MAX_LEN
          valueFrom:
            configMapKeyRef: {name: model-settings, key: max-len}
        resources:
          limits: {nvidia.com/gpu: 1}
"""


def test_a_configmap_in_another_file_of_the_run_gives_the_model(tmp_path, cli):
    (tmp_path / "configmap.yaml").write_text(CONFIGMAP)
    (tmp_path / "deploy.yaml").write_text(DEPLOYMENT)
    shown = cli("formats", tmp_path / "deploy.yaml", tmp_path / "configmap.yaml").output
    assert "mistralai/Mistral-7B-Instruct-v0.3" in shown
    run = cli("budget", "--format", "json", tmp_path)
    assert run.exit_code == 0, run.output
    [entry] = run.json()
    assert entry["max_model_len"] == 8192
    lint = cli("--format", "json", tmp_path)
    assert [f for f in lint.json() if f["code"] == "HBM011"] == []


def test_alone_the_workload_says_where_the_value_would_come_from(tmp_path, cli):
    (tmp_path / "configmap.yaml").write_text(CONFIGMAP)
    (tmp_path / "deploy.yaml").write_text(DEPLOYMENT)
    run = cli("--format", "json", tmp_path / "deploy.yaml")
    [info] = [f for f in run.json() if f["code"] == "HBM011" and "the model" in f["message"]]
    assert info["severity"] == "info"
    assert "ConfigMap 'model-settings', key 'model'" in info["message"]
    assert "others linted with it" in info["message"]


def test_worker_processes_see_the_configmaps_of_the_run(tmp_path, cli):
    (tmp_path / "a-configmap.yaml").write_text(CONFIGMAP)
    for i in range(70):  # enough files for a process pool
        (tmp_path / f"deploy-{i:02}.yaml").write_text(DEPLOYMENT)
    run = cli("--jobs", "2", tmp_path)
    assert run.exit_code == 0, run.output
    assert "HBM011" not in run.output
    assert "in 71 files, 70 deployments" in run.output
