"""The chunk stage: documents cut into chunks with exact offsets (fixed, recursive, sentence, semantic ...)."""
