"""Application services: what the API and the CLI both do with the lifecycle workflows and the
stores (tell a lifecycle about messages, read a context with the archive fallback, export)."""
