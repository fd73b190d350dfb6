"""``rag-bench --help``: rag-bench's own page, read from the verb table and configs/, printed without Hydra."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from rag_bench.core.paths import project_folder
from rag_bench.entry.cli import VERBS, main
from rag_bench.entry.help import page

CONFIGS = project_folder("configs")
# the run's groups, in config.yaml's defaults order; their defaults from config.yaml and retrieval/hybrid.yaml
GROUPS = {
    "dataset": "kestrel-kb",
    "parser": "auto",
    "chunker": "recursive",
    "embedder": "local",
    "retrieval": "hybrid",
    "retrieval/index": "exact",
    "expand": "none",
    "diversity": "none",
    "reranker": "none",
    "tracking": "none",
    "strategy": None,  # presets of strategies (configs/strategy/), none chosen
}


def rag_bench(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rag_bench", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def first_comment(path) -> str:
    """The YAML file's first line after any ``# @package`` line, without its "# " ("" if not a comment)."""
    lines = [line for line in path.read_text().splitlines() if line and not line.startswith("# @package")]
    return lines[0][2:] if lines[0].startswith("# ") else ""


def blocks(text: str, title: str) -> dict[str, list[str]]:
    """The rows under each heading (a line at indent 2) of the page's section that starts with ``title``."""
    section = text.split(f"\n{title}", 1)[1].split("\n\n", 1)[0]
    found: dict[str, list[str]] = {}
    for line in section.splitlines()[1:]:
        if line.startswith("    "):
            found[list(found)[-1]].append(line)
        else:
            found[line.split()[0]] = []
    return found


def test_the_page_lists_every_verb_with_its_line(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: rag-bench [GROUP=OPTION] [KEY=VALUE] ...")
    verbs = out.split("\nVerbs:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split()[0] for line in verbs] == [*VERBS, "help"]
    for line, (name, verb) in zip(verbs, VERBS.items(), strict=False):
        assert line == f"  {name}".ljust(20) + verb.summary  # 20: check-generation at 2, then 2 spaces


def test_the_page_lists_every_option_yaml_of_every_group_with_its_first_comment_line():
    text = page(VERBS, CONFIGS, width=1000)  # no wrapping: one row per option
    groups = blocks(text, "Config groups:")
    assert list(groups) == list(GROUPS)
    for group, default in GROUPS.items():
        files = sorted((CONFIGS / group).glob("*.yaml"))
        assert len(files) >= 2 and all(first_comment(path) for path in files)  # each option has its line
        names = [f"{path.stem} *" if path.stem == default else path.stem for path in files]
        assert groups[group] == [
            f"    {name}".ljust(20) + first_comment(path) for name, path in zip(names, files, strict=True)
        ]
    assert "\n  retrieval/index (also retrieval.index=OPTION)\n" in text
    assert "\n    kestrel-kb *    Default bundled dataset: the Kestrel Systems knowledge base, 47 documents," in text
    presets = sorted((CONFIGS / "sweep").glob("*.yaml"))
    rows = text.split("\nSweep presets: sweep=PRESET runs configs/sweep/PRESET.yaml\n", 1)[1].split("\n\n")[0]
    assert rows.splitlines() == [f"    {path.stem}".ljust(20) + first_comment(path) for path in presets]
    assert (
        "\n    ann_ivfflat     pgvector IVFFlat: probes x filter mode (15 points), `rag-bench sweep=ann_ivfflat`.\n"
        in text
    )
    for internal in ("schema", "launcher", "submitit_slurm", "generator", "anthropic-prices", "@package"):
        assert internal not in text.split("\nSettings:", 1)[0]  # not among the groups and presets


def test_a_new_option_and_a_new_group_appear_by_themselves(tmp_path):
    configs = tmp_path / "configs"
    shutil.copytree(CONFIGS, configs)
    (configs / "chunker" / "mine.yaml").write_text("# My chunker: one chunk a line.\nname: mine\n")
    (configs / "loader").mkdir()
    (configs / "loader" / "pdf.yaml").write_text("name: pdf\n")  # no comment: listed without a line
    (configs / "sweep" / "tiny.yaml").write_text("# @package _global_\n# Two points.\nhydra:\n  mode: MULTIRUN\n")
    text = page(VERBS, configs, width=1000)
    assert "\n    mine            My chunker: one chunk a line.\n" in text
    assert text.split("Config groups:", 1)[1].count("\n  loader\n    pdf\n") == 1  # after the defaults' groups
    assert text.index("\n  reranker\n") < text.index("\n  loader\n") < text.index("Sweep presets:")
    assert "\n    tiny            Two points.\n" in text


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["help"], ["retrieval=bm25", "-m", "--help"]])
def test_the_page_prints_without_importing_hydra_numpy_or_pandas(argv):
    code = (
        "import sys\nfrom rag_bench.entry.cli import main\n"
        f"main({argv!r})\n"
        "heavy = {'hydra', 'omegaconf', 'numpy', 'pandas'}\n"
        "print(sorted({name.split('.')[0] for name in sys.modules} & heavy), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "[]\n"
    assert "\nVerbs:\n" in done.stdout and "\n  check-generation " in done.stdout
    assert "\nEnvironment:\n  RAG_BENCH_CACHE " in done.stdout
    assert all(f"\n  {name} " in done.stdout for name in ("VOYAGE_API_KEY", "ANTHROPIC_API_KEY", "RAG_BENCH_QUIET"))
    assert "rag-bench --hydra-help" in done.stdout and "rag-bench --cfg job" in done.stdout


def test_help_verb_is_the_verbs_own_help_and_a_verbs_help_is_unchanged(capsys):
    for argv in (["help", "gate"], ["gate", "--help"]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 0
        assert capsys.readouterr().out.startswith("usage: rag-bench gate [-h] --baseline BASELINE")


def test_help_of_no_verb_is_one_line_naming_the_verbs(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["help", "gatez"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err == f"rag-bench: error: help gatez: not a verb (did you mean gate?); the verbs: {', '.join(VERBS)}\n"


def test_a_bare_word_that_is_no_verb_reaches_hydra_as_an_override(tmp_path):
    done = rag_bench("gates", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("rag-bench: error: Error parsing override 'gates' missing EQUAL")  # Hydra's parser
    assert done.stderr.endswith("; gates is not a verb either (did you mean gate?): rag-bench --help lists them\n")
    assert done.stderr.count("\n") == 1 and not (tmp_path / "results").exists()


def test_cfg_job_prints_the_composed_config_and_runs_nothing(tmp_path):
    done = rag_bench("retrieval=bm25", "retrieval.depth=7", "--cfg", "job", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "retrieval:\n  mode: bm25\n  depth: 7\n" in done.stdout and "\nchunker:\n  name: recursive\n" in done.stdout
    assert not (tmp_path / "results").exists()


def test_help_config_is_hydras_app_help_with_the_overrides(tmp_path):
    done = rag_bench("--help-config", "retrieval=bm25", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("rag-bench is powered by Hydra.")
    assert "\nschema/chunker: " in done.stdout and "\n  mode: bm25\n" in done.stdout


def test_the_console_script_prints_the_page():
    script = shutil.which("rag-bench", path=os.path.dirname(sys.executable))
    if script is None:
        pytest.skip("the rag-bench script is not installed beside this Python")
    done = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "\nVerbs:\n  report " in done.stdout
