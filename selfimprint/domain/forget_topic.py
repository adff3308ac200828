"""What a "forget this topic" request reaches (issue 37): which memories are about the topic.

A memory is about the topic when its content contains the topic's text (case-insensitive), or
when its search terms (`terms.search_terms`: stems) hold every search term of the topic. Stems
reach the word forms a substring misses ("Ненавижу свою работу." for "работа", "jobs" for
"job"); requiring all of them keeps a longer topic ("my job at Google") from taking every memory
that mentions one of its words. The Neo4j store applies the same rule in Cypher over the stored
terms (adapters/neo4j/forgetting `_TOPIC`), and a memory that stays but replied to a message
about the topic loses that reply context (`_DROP_REPLY_CONTEXT`).
"""

from __future__ import annotations

from collections.abc import Iterable

from selfimprint.domain.terms import search_terms


def replied_about_topic(context_terms: Iterable[str], topic: str) -> bool:
    """A memory replied to a message about the topic: its reply context's terms
    (`Node.context_terms`) hold every search term of the topic. It keeps its own words and
    loses that reply context (the Neo4j store: `_DROP_REPLY_CONTEXT`)."""
    wanted = set(search_terms(topic))
    return bool(wanted) and wanted <= set(context_terms)


def about_topic(content: str, topic: str) -> bool:
    if topic.lower() in content.lower():
        return True
    wanted = set(search_terms(topic))
    return bool(wanted) and wanted <= set(search_terms(content))
