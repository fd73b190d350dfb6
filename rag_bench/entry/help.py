"""``rag-bench --help``: usage, the verbs, the config groups and their options, the sweep presets, the
environment variables, and where Hydra's own help is.

Read from the verb table and the YAML files under configs/ (an option's line is its file's first comment
line), with the standard library alone: the page prints without loading Hydra, numpy or pandas.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rag_bench.entry.hydra_app import GROUP_ALIASES

USAGE = """\
usage: rag-bench [GROUP=OPTION] [KEY=VALUE] ...   one run; its outputs go to results/runs/DATE/TIME/
       rag-bench -m KEY=A,B ... | sweep=PRESET    a sweep: one run per point, then its summary
       rag-bench VERB [ARGS]                      a verb; rag-bench VERB --help (or help VERB) explains it
       rag-bench ... --dry-run                    the plan of a run or sweep: texts, tokens, cost, time
"""
SETTINGS = """\
Settings: any key of the composed config, e.g. chunker.size=400 retrieval.depth=50 ks=[1,5,10] tau=0.3.
A sweep's caps: budget.usd=5 budget.seconds=3600 (a point that would pass either is not run; exit 3).
"""
ENVIRONMENT = {
    "RAG_BENCH_CACHE": "the cache folder (else $XDG_CACHE_HOME/rag-bench, else ~/.cache/rag-bench)",
    "VOYAGE_API_KEY": "the key for embedder=voyage and reranker=voyage (or VOYAGE_API_KEY_PATH: a file holding it)",
    "OPENAI_API_KEY": "the key of embedder=openai (or embedder.api_key_env names one); OPENAI_BASE_URL: its server",
    "CO_API_KEY": "the key for embedder=cohere and reranker=cohere; CO_API_URL their server",
    "JINA_API_KEY": "the key for reranker=jina (another variable, or none: reranker.api_key_env)",
    "ANTHROPIC_API_KEY": "the key for generator=anthropic (synthesize, rewrite, contextualize, check-generation)",
    "RAG_BENCH_QUIET": "1: no progress bars or lines (as quiet=true; TQDM_DISABLE=1 too)",
}
HYDRA_HELP = {
    "rag-bench --cfg job [OVERRIDES]": "the composed config, every key with its value (nothing runs)",
    "rag-bench --help-config [OVERRIDES]": "Hydra's app help: every config group (internal schema/ ones too), config",
    "rag-bench --hydra-help": "Hydra's flags: --multirun, --cfg, --resolve, --info, --shell-completion, ...",
}
OWN_SECTION = ("hydra", "sweep")  # Hydra's settings are not options; sweep presets are a section of their own
_DEFAULT = re.compile(r"\s+-\s+([\w/-]+):\s*([\w.-]+)")  # a defaults-list line choosing an option: "  - chunker: fixed"


@dataclass(frozen=True)
class Group:
    """A config group: its name (``retrieval/index``), its options (name -> one line) and its default option."""

    name: str
    options: dict[str, str]
    default: str | None


def page(verbs: Mapping[str, object], configs: Path, width: int | None = None) -> str:
    """The whole help page: ``verbs`` (name -> an object with a ``summary``) and the groups under ``configs``."""
    width = width or min(shutil.get_terminal_size((100, 24)).columns, 120)
    runs = groups(configs)
    presets = options(configs / "sweep")
    names = [2 + len(name) for name in [*verbs, "help"]] + [4 + len(name) for name in presets]
    names += [4 + len(name) + 2 * (name == group.default) for group in runs for name in group.options]  # " *"
    column = max(names) + 2  # where every row's line starts: two spaces after the longest name
    lines = [USAGE, "Verbs:"]
    lines += rows({name: verb.summary for name, verb in verbs.items()}, 2, column, width)
    lines += rows({"help": "this page; help VERB: the verb's own help"}, 2, column, width)
    lines += ["", "Config groups: GROUP=OPTION chooses configs/GROUP/OPTION.yaml (* marks the default)"]
    for group in runs:
        alias = next((key for key, value in GROUP_ALIASES.items() if value == group.name), None)
        lines.append(f"  {group.name}" + (f" (also {alias}=OPTION)" if alias else ""))
        marked = {f"{name} *" if name == group.default else name: line for name, line in group.options.items()}
        lines += rows(marked, 4, column, width)
    lines += ["", "Sweep presets: sweep=PRESET runs configs/sweep/PRESET.yaml"]
    lines += rows(presets, 4, column, width)
    lines += ["", SETTINGS.rstrip(), "", "Environment:"]
    lines += rows(ENVIRONMENT, 2, 21, width)
    lines += ["", "Hydra's help:"]
    lines += rows(HYDRA_HELP, 2, 39, width)
    return "\n".join(lines) + "\n"


def rows(entries: Mapping[str, str], indent: int, column: int, width: int) -> list[str]:
    """One entry a row: its name at ``indent``, its line from ``column``, wrapped to ``width``."""
    out = []
    for name, line in entries.items():
        head = " " * indent + name
        if not line:
            out.append(head)
            continue
        text = textwrap.wrap(line, max(width - column, 30), break_on_hyphens=False)
        head = head.ljust(column) if len(head) < column else head + "\n" + " " * column
        out.append(head + ("\n" + " " * column).join(text))
    return out


def groups(configs: Path) -> list[Group]:
    """The run's config groups: every folder of option YAMLs under ``configs`` (nested ones too), except
    hydra/, sweep/ and a verb's own config folder (one holding a config.yaml, such as rewrite/), in the
    order of config.yaml's defaults list, each nested group after its parent."""
    chosen = defaults(configs / "config.yaml")
    order = {name: place for place, name in enumerate(chosen)}
    found: list[Group] = []
    for folder in sorted(path for path in configs.rglob("*") if path.is_dir()):
        name = folder.relative_to(configs).as_posix()
        top = name.split("/")[0]
        if top in OWN_SECTION or (configs / top / "config.yaml").is_file() or not options(folder):
            continue
        parent, _, last = name.rpartition("/")
        if parent:  # a nested group's default is chosen by its parent's default option: retrieval/hybrid's index
            parent_default = chosen.get(parent)
            parent_file = configs / parent / f"{parent_default}.yaml"
            chosen[name] = defaults(parent_file).get(last) if parent_default and parent_file.is_file() else None
        found.append(Group(name, options(folder), chosen.get(name)))
    return sorted(found, key=lambda group: (order.get(group.name.split("/")[0], len(order)), group.name))


def options(folder: Path) -> dict[str, str]:
    """Option name -> its one line, for every YAML file in ``folder``."""
    return {path.stem: summary(path) for path in sorted(folder.glob("*.yaml"))}


def summary(path: Path) -> str:
    """The first comment line of a YAML file, after any ``# @package`` line; "" when it opens with no comment."""
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text or text.startswith("# @package"):
            continue
        return text.lstrip("#").strip() if text.startswith("#") else ""
    return ""


def defaults(path: Path) -> dict[str, str]:
    """What a YAML file's defaults list chooses, group -> option (``- chunker: recursive``); nulls left out."""
    chosen: dict[str, str] = {}
    inside = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line[:1].strip() and not line.startswith("#"):  # a top-level key opens or closes the list
            inside = line.startswith("defaults:")
        found = _DEFAULT.match(line)
        if inside and found and found.group(2) != "null":
            chosen[found.group(1)] = found.group(2)
    return chosen
