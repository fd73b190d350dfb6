"""Experiment tracking: each run or sweep point logged to MLflow (tracking=mlflow), its settings, metrics and files."""
