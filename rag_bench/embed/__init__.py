"""The embed stage: embedders (local, ONNX, OpenAI-compatible, Cohere, TEI, Voyage, fake), the vector cache."""
