"""``rag-bench check-generation RUN_DIR [--out DIR] [overrides]``: check answers grounded in a run's chunks.

Settings are composed with Hydra from ``configs/generate/`` (e.g. ``generator=anthropic
generator.model=claude-haiku-4-5 passages=10``); outputs go to ``RUN_DIR/generation/``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from omegaconf.errors import OmegaConfBaseException

from rag_bench.errors import ConfigError
from rag_bench.generate.config import GenerateConfig, register


def main(argv: Sequence[str]) -> int:
    """Run the verb; RagBenchError propagates to ``rag_bench.cli`` (one line, exit 2)."""
    parser = argparse.ArgumentParser(
        prog="rag-bench check-generation",
        description="Answer each question of a run from its retrieved chunks, check the answers, "
        "and attribute failures to retrieval, generation or refusal.",
    )
    parser.add_argument("run_dir", type=Path, help="a run folder written by `rag-bench`")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: RUN_DIR/generation)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. generator=anthropic passages=10")
    args = parser.parse_intermixed_args(list(argv))

    from rag_bench.generate.outputs import console_summary, write_generation
    from rag_bench.generate.run import check_generation

    settings = compose_settings(args.overrides)
    result = check_generation(args.run_dir, settings)
    out_dir = args.out or args.run_dir / "generation"
    payload = write_generation(result, out_dir)
    print(console_summary(payload, out_dir))
    return 0


def compose_settings(overrides: Sequence[str] = ()) -> GenerateConfig:
    """The checked settings from ``configs/generate/config.yaml`` and ``overrides``."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException

    from rag_bench.config import validate
    from rag_bench.data.bundled import project_folder

    register()
    config_dir = project_folder("configs") / "generate"
    try:
        with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
            cfg = compose(config_name="config", overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as exc:
        detail = _one_line(exc)
        raise ConfigError(
            f"check-generation settings: {detail} (keys and options: configs/generate/, rag_bench/generate/config.py)"
        ) from None
    return validate(cfg)


def _one_line(exc: BaseException) -> str:
    """Hydra's first line, its cause's first line, and the options it lists, on one line."""
    lines = str(exc).split("Config search path")[0].splitlines()
    cause = str(exc.__cause__).splitlines()[0] if exc.__cause__ is not None and str(exc.__cause__) else ""
    text = " ".join(part for part in (lines[0].strip() if lines else "", cause) if part)
    options = [line.strip() for line in lines if line.startswith("\t")]
    listed = [line.strip() for line in lines if line.startswith("Available options")]
    return f"{text}; {listed[0]} {', '.join(options)}" if listed else text
