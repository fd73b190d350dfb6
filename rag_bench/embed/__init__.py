"""The embed stage: embedders (local ONNX, Voyage, fake), the vector cache, and dimension reduction."""
