"""SelfImprint: long-term memory for conversational assistants."""

__version__ = "0.1.0"
