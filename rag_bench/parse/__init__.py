"""The parse stage: files of any type in ``docs/`` (PDF, HTML, Office) to text with its structure, cleaned and cached."""
