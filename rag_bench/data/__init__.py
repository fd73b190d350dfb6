"""Datasets: the native format loaded and checked, bundled datasets, metadata, conventions and sidecar files."""
