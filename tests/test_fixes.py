"""Fixes as data (issue 15): each fix is a record in the manifest's own terms with its edits;
--fix applies the safe ones, --unsafe-fixes the first of each finding, --diff shows them.

The fixtures in tests/fixtures/fixes follow real manifests' patterns (flags as quoted list
items, a compose `command: [...]` with comments and joined flags, a `sh -c` script with
continued lines, a folded `command: >`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

import pytest
from helpers import EXAMPLES, REPO

from hbmlint.yamlsrc import load_documents

FIXTURES = REPO / "tests" / "fixtures" / "fixes"


def copy(tmp_path, name, source=FIXTURES):
    target = tmp_path / name
    shutil.copyfile(source / name, target)
    return target


def findings(cli, *args):
    run = cli("--format", "json", *args)
    assert run.exit_code in (0, 1), run.output
    return run.json()


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """The lines that differ, pairwise (the files keep their line count in these cases)."""
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


# --- the records --------------------------------------------------------------------------------


def test_a_fix_is_a_record_in_the_manifests_own_terms(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "k8s-llama8b-l4-long-context.yaml")
    # a 64k context: too long for the BF16 cache (about 33k tokens), within an FP8 one (66k),
    # so the FP8 KV cache is offered as a fix with its edit
    full = '            - "131072"   # the model\'s full context'
    path.write_text(path.read_text().replace(full, '            - "65536"    # a 64k context'))
    [finding] = findings(cli, "k8s-llama8b-l4-long-context.yaml")
    assert finding["code"] == "HBM102"
    first = finding["fixes"][0]
    fit = int(first["setting"].split()[-1])
    # what one L4 holds for Llama-3.1-8B in BF16 at the low edge of the estimate
    assert 20_000 < fit < 35_000
    assert first["setting"] == f"--max-model-len {fit}"  # the flag as the author writes it
    assert first["message"] == (
        f"Lower max_model_len to {fit:,} tokens (--max-model-len {fit}), which fits either way."
    )
    assert first["effect"] == f"Lower max_model_len to {fit:,} tokens, which fits either way."
    assert first["applicability"] == "unsafe"  # a shorter context changes the deployment
    text = (tmp_path / "k8s-llama8b-l4-long-context.yaml").read_text()
    line = text.splitlines().index('            - "65536"    # a 64k context') + 1
    assert first["edits"] == [
        {
            "file": "k8s-llama8b-l4-long-context.yaml",
            "line": line,
            "column": 15,
            "end_line": line,
            "end_column": 22,  # the 7 characters of '"65536"'
            "replacement": f'"{fit}"',  # quoted stays quoted
        }
    ]
    # a missing flag is added as the next list items, in the neighbours' style
    kv = finding["fixes"][1]
    assert kv["setting"] == "--kv-cache-dtype fp8"
    [insert] = kv["edits"]
    assert insert["replacement"] == '\n            - --kv-cache-dtype\n            - "fp8"'
    # a fix that needs more than the command line (more GPUs) has no edit
    assert finding["fixes"][2]["edits"] == []


def test_hbmlint_format_fixes_name_the_field(cli, tmp_path):
    manifest = tmp_path / "m.yaml"
    manifest.write_text(
        textwrap.dedent("""\
        apiVersion: hbmlint/v1
        kind: ServingManifest
        metadata: {name: kv-short}
        spec:
          gpu: {type: L4}
          model: {name: meta-llama/Llama-3.1-8B-Instruct}
          serving:
            max_model_len: 65536
        """)
    )
    [finding] = findings(cli, manifest)
    first, kv = finding["fixes"][:2]  # 64k tokens: an FP8 KV cache holds them, BF16 not
    assert first["setting"].startswith("serving.max_model_len: ")
    fit = int(first["setting"].split()[-1])
    assert first["message"] == (
        f"Lower max_model_len to {fit:,} tokens (serving.max_model_len: {fit}),"
        " which fits either way."
    )
    assert [e["replacement"] for e in first["edits"]] == [str(fit)]
    assert kv["setting"] == "serving.kv_cache_dtype: fp8"
    assert kv["edits"][0]["replacement"] == "\n    kv_cache_dtype: fp8"  # beside max_model_len


# --- --fix, --unsafe-fixes, --diff --------------------------------------------------------------


def test_unsafe_fixes_make_a_kubernetes_deployment_fit(cli, tmp_path, monkeypatch):
    """Issue 15's first 'done when': only the args it must change, and a second run clean."""
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "k8s-llama8b-l4-long-context.yaml")
    before = path.read_text()
    run = cli("--fix", "--unsafe-fixes", path.name)
    assert run.exit_code == 0, run.output
    assert "All clear" in run.output and "Fixed 1 finding in" in run.output
    after = path.read_text()
    [(old, new)] = changed_lines(before, after)  # one line: the value of --max-model-len
    assert old == '            - "131072"   # the model\'s full context'
    assert new.startswith('            - "') and new.endswith("\"   # the model's full context")
    again = cli(path.name)
    assert again.exit_code == 0 and "All clear" in again.output


def test_fix_applies_only_safe_fixes(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "k8s-llama8b-l4-long-context.yaml")
    before = path.read_text()
    run = cli("--fix", path.name)
    assert run.exit_code == 1  # the error has only unsafe fixes: it remains
    assert path.read_text() == before
    assert "HBM102" in run.output and "Fixed" not in run.output


def test_fix_rewrites_removed_speculative_flags_and_leaves_the_memory_error(
    cli, tmp_path, monkeypatch
):
    """Issue 15's second 'done when', on a compose file with vLLM's removed flags."""
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "compose-legacy-speculative.yaml")
    before = path.read_text()
    removed = [f for f in findings(cli, "--gpu", "L4", path.name) if f["code"] == "HBM010"]
    assert len(removed) == 2 and all(f["fixes"][0]["applicability"] == "safe" for f in removed)
    run = cli("--fix", "--gpu", "L4", "--format", "json", path.name)
    assert run.exit_code == 1
    codes = [f["code"] for f in run.json()]
    assert "HBM010" not in codes and "HBM102" in codes  # the memory error is the user's call
    after = path.read_text()
    assert after.count("\n") == before.count("\n") - 1  # two items became one
    config = '"--speculative-config={\\"model\\": \\"meta-llama/Llama-3.2-1B-Instruct\\", '
    config += '\\"num_speculative_tokens\\": 5}",'
    assert f"      {config}\n" in after
    assert '"--speculative-model' not in after and '"--num-speculative-tokens' not in after
    # every other line as it was, the comment inside the list too
    kept = [line for line in before.splitlines() if "speculative" not in line]
    assert kept == [line for line in after.splitlines() if "speculative" not in line]
    [document] = load_documents(after)[0]
    command = document.data["services"]["vllm"]["command"]
    value = next(c for c in command if c.startswith("--speculative-config="))
    assert json.loads(value.partition("=")[2]) == {
        "model": "meta-llama/Llama-3.2-1B-Instruct",
        "num_speculative_tokens": 5,
    }


def test_fix_in_a_folded_command(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "compose-vllm.yaml", EXAMPLES)
    run = cli("--fix", "--unsafe-fixes", "--gpu", "L4", path.name)
    assert run.exit_code == 0, run.output
    text = path.read_text()
    assert "      --max-model-len 36944\n" in text
    assert (
        '      --speculative-config \'{"method": "ngram", "num_speculative_tokens": 5, '
        '"prompt_lookup_max": 4}\'\n    deploy:'
    ) in text


def test_fix_in_a_shell_script(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "k8s-sh-c-script.yaml")
    before = path.read_text()
    [kv] = [
        fix
        for f in findings(cli, path.name)
        if f["code"] == "HBM102"
        for fix in f["fixes"]
        if fix["setting"] == "--kv-cache-dtype fp8"
    ]
    # after the last flag, on a continued line of its own, as the author wrote the others
    assert kv["edits"][0]["replacement"] == " \\\n                --kv-cache-dtype fp8"
    run = cli("--fix", "--unsafe-fixes", path.name)
    assert run.exit_code == 0, run.output
    # HBM102's fix and HBM303's both edit --max-model-len: not applied together; the second
    # pass applies what remains (the model's own maximum)
    [(old, new)] = changed_lines(before, path.read_text())
    assert old.strip() == "--max-model-len 131072 \\"
    assert new.strip() == "--max-model-len 32768 \\"


def test_diff_writes_nothing(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "compose-legacy-speculative.yaml")
    before = path.read_bytes()
    run = cli("--diff", path.name)
    assert run.exit_code == 1
    assert path.read_bytes() == before
    assert run.output.startswith(f"--- a/{path.name}\n+++ b/{path.name}\n@@ ")
    assert '-      "--speculative-model=meta-llama/Llama-3.2-1B-Instruct",' in run.output
    assert '-      "--num-speculative-tokens=5",' in run.output
    # the diff applies with git, the way a suggestion bot would apply it
    if shutil.which("git"):
        patch = tmp_path / "fix.patch"
        patch.write_text(run.output)
        subprocess.run(["git", "apply", "--unsafe-paths", "fix.patch"], cwd=tmp_path, check=True)
        assert "--speculative-config=" in path.read_text()


def test_diff_without_fixes_is_empty_and_exit_0(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = copy(tmp_path, "llama8b-l4-ngram.yaml", EXAMPLES)
    run = cli("--diff", path.name)
    assert run.exit_code == 0 and run.output == ""


def test_fix_refuses_standard_input(cli):
    run = cli("--fix", "-")
    assert run.exit_code == 2


def test_fix_keeps_crlf_and_the_byte_order_mark(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = (FIXTURES / "k8s-llama8b-l4-long-context.yaml").read_text()
    path = tmp_path / "crlf.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + source.replace("\n", "\r\n").encode())
    run = cli("--fix", "--unsafe-fixes", path.name)
    assert run.exit_code == 0, run.output
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"")


# --- conflicting fixes ------------------------------------------------------------------------


def test_overlapping_fixes_are_not_applied_together():
    from hbmlint.diagnostics import Edit, Fix
    from hbmlint.fixes import apply

    text = "a: 1\nb: 2\n"
    one = Fix("one", edits=[Edit("f", 1, 4, 1, 5, "10")])
    same = Fix("same edit, another finding", edits=[Edit("f", 1, 4, 1, 5, "10")])
    other = Fix("other", edits=[Edit("f", 1, 4, 1, 5, "20")])
    insert_at_end = Fix("insert", edits=[Edit("f", 1, 5, 1, 5, " # x")])
    elsewhere = Fix("elsewhere", edits=[Edit("f", 2, 4, 2, 5, "3")])
    new, applied = apply(text, "f", [one, same, other, insert_at_end, elsewhere])
    assert new == "a: 10\nb: 3\n"
    assert applied == [one, elsewhere]


# --- SARIF and the JSON schema of rule files ----------------------------------------------------


def test_sarif_with_fixes_validates(cli, tmp_path, monkeypatch):
    from test_sarif import validator

    monkeypatch.chdir(tmp_path)
    copy(tmp_path, "compose-legacy-speculative.yaml")
    copy(tmp_path, "k8s-llama8b-l4-long-context.yaml")
    run = cli("--format", "sarif", "--gpu", "L4", ".")
    assert run.exit_code == 1
    document = json.loads(run.output)
    checker = validator()
    if checker is not None:
        errors = list(checker.iter_errors(document))
        assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    results = document["runs"][0]["results"]
    with_fixes = [r for r in results if r.get("fixes")]
    assert {r["ruleId"] for r in with_fixes} >= {"HBM010", "HBM102"}
    removed = next(r for r in with_fixes if r["ruleId"] == "HBM010")
    [fix] = removed["fixes"]
    assert fix["properties"] == {"applicability": "safe"}
    [change] = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "compose-legacy-speculative.yaml"
    inserted = [r["insertedContent"]["text"] for r in change["replacements"]]
    assert any(text.startswith('"--speculative-config=') for text in inserted)
    if checker is None:
        pytest.skip("the official SARIF schema is not in ../shared; shape checked only")


def test_a_rule_file_may_say_what_its_fix_sets(tmp_path):
    from hbmlint.rules import load_rule_file

    rule = tmp_path / "HBM901.yaml"
    rule.write_text(
        textwrap.dedent("""\
        id: HBM901
        name: short-context
        summary: test
        severity: warning
        check: serving.max_model_len <= 4096
        at: serving.max_model_len
        message: too long
        fixes:
          - text: Use 4096.
            set: {serving.max_model_len: "4096"}
            applicability: unsafe
          - text: Bad.
            set: {serving.nonsense: "1"}
        """)
    )
    loaded, problems = load_rule_file(rule)
    assert loaded is None and problems and "serving.nonsense" in problems[0].message


def test_fix_runs_as_a_module_entry_point(tmp_path):
    """The installed command, end to end: --diff then --fix in a subprocess."""
    path = tmp_path / "deploy.yaml"
    shutil.copyfile(FIXTURES / "k8s-llama8b-l4-long-context.yaml", path)
    diff = subprocess.run(
        [sys.executable, "-m", "hbmlint.cli", "--diff", "--unsafe-fixes", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        # outside the checkout: `-m` from the repository root would import the source tree,
        # which lacks the package-data modules a regular install has (hbmlint.builtin_rules)
        cwd=tmp_path,
    )
    assert diff.returncode == 1 and '+            - "' in diff.stdout


def test_readme_shows_the_real_output(cli, monkeypatch):
    monkeypatch.chdir(REPO)
    readme = (REPO / "README.md").read_text()
    command = "$ hbmlint tests/fixtures/fixes/k8s-llama8b-l4-long-context.yaml\n"
    shown = readme[readme.index(command) + len(command) :].split("```")[0]
    output = cli("tests/fixtures/fixes/k8s-llama8b-l4-long-context.yaml").output
    assert shown.strip() and all(line in output.splitlines() for line in shown.splitlines())
