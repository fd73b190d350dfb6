"""The rerank stage: rerankers (Voyage, max-sim, fake) reordering the head of the fused candidates."""
