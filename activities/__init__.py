"""Temporal activities: thin classes with adapters injected in __init__."""
