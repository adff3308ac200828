"""The HTTP API (FastAPI): the app backend's way in."""
