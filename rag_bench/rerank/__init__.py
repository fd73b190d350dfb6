"""The rerank stage: rerankers (API, ONNX cross-encoder, max-sim, fake) reordering the fused candidates' head."""
