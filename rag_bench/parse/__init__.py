"""The parse stage: files in ``docs/`` (PDF, HTML, Office) to text with its structure, cleaned and cached."""
