"""Sweeps on clusters: Hydra launcher presets for SLURM and Ray, and how a failed job is reported."""
