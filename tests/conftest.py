"""Shared pytest wiring. Service-backed fixtures live in tests/integration/conftest.py."""
