"""The command line lists the built-in rule files once and hands the list to load_rules, which
lists them itself only when called without it; the listing is the folder's rule files in the
order their paths sort."""

from __future__ import annotations

from pathlib import Path

from hbmlint import cli, rules


def test_the_listing_is_the_folders_rule_files_sorted_as_paths():
    folder = rules._package_dir("hbmlint.builtin_rules")
    expected = sorted(p for p in folder.iterdir() if p.name.endswith((".yaml", ".yml")))
    listed = rules.builtin_rule_files()
    assert listed == expected and len(listed) > 40
    assert [str(p) for p in listed] == [str(p) for p in expected]


def test_the_command_line_lists_the_rule_files_once(monkeypatch, tmp_path):
    calls = []
    real = rules.builtin_rule_files

    def counted() -> list[Path]:
        calls.append(1)
        return real()

    monkeypatch.setattr(rules, "builtin_rule_files", counted)
    loaded, problems = cli._load_rules(())
    assert len(calls) == 1
    again, again_problems = rules.load_rules(real(), builtin_files=None)
    assert len(calls) == 2  # without the list, load_rules lists the folder itself
    assert [r.id for r in loaded] == [r.id for r in again] and problems == again_problems


def test_a_rules_dir_after_the_builtin_rules(tmp_path):
    own = tmp_path / "HBM999-own.yaml"
    own.write_text(
        (rules._package_dir("hbmlint.builtin_rules") / "HBM101-weights-exceed-hbm.yaml")
        .read_text()
        .replace("HBM101", "HBM999")
    )
    loaded, _ = cli._load_rules((str(tmp_path),))
    plain, _ = rules.load_rules([*rules.builtin_rule_files(), own])
    assert [r.id for r in loaded] == [r.id for r in plain]
    assert loaded[-1].file == str(own)
