"""Neo4j adapter: the only place in SelfImprint that speaks Cypher (docs/graph-store.md)."""

from selfimprint.adapters.neo4j.driver import open_driver
from selfimprint.adapters.neo4j.migrations import MigrationError, MigrationReport, migrate
from selfimprint.adapters.neo4j.records import UnsupportedDimensionError
from selfimprint.adapters.neo4j.retrieval import VectorSearchConfig
from selfimprint.adapters.neo4j.store import Neo4jGraphStore, Neo4jUserGraph
from selfimprint.adapters.neo4j.writes import MissingNodesError, ScopeViolationError

__all__ = [
    "MigrationError",
    "MigrationReport",
    "MissingNodesError",
    "Neo4jGraphStore",
    "Neo4jUserGraph",
    "ScopeViolationError",
    "UnsupportedDimensionError",
    "VectorSearchConfig",
    "migrate",
    "open_driver",
]
