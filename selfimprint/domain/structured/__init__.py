"""Structured extraction: typed memories, dates, people, causes and contradictions from the
user's own words, without a large model (`extractor.structured_extraction`)."""
