"""PostgreSQL + pgvector as a dense index: the embedded server, its supervisor, SQL and sessions."""
