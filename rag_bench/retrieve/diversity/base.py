"""What every diversity option shares: its settings base, the option that changes nothing, the stage name."""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import MISSING

STAGE = "diversified"  # the diversified list's name among the run's stages


@dataclass
class DiversityConfig:
    """Every diversity option: its name (``diversity=<name>``)."""

    name: str = MISSING


@dataclass
class NoDiversityConfig(DiversityConfig):
    """Keep the retrieved list as it is."""

    name: str = "none"
