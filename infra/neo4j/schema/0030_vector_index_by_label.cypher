// Only users large enough to need it are in the vector index (docs/decisions.md, "Graph store:
// who is in the vector index"): their nodes carry :IndexedMemory as well as :Memory. Everyone
// else is served by the exact scan, so their writes skip the HNSW insert, the largest single
// cost of an upsert, and the index stays small enough that its over-fetch stays cheap.
DROP INDEX memory_embedding_384 IF EXISTS;

DROP INDEX memory_embedding_1024 IF EXISTS;

CREATE VECTOR INDEX indexed_memory_embedding_384 IF NOT EXISTS
FOR (n:IndexedMemory) ON (n.embedding_384)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};

CREATE VECTOR INDEX indexed_memory_embedding_1024 IF NOT EXISTS
FOR (n:IndexedMemory) ON (n.embedding_1024)
OPTIONS {indexConfig: {`vector.dimensions`: 1024, `vector.similarity_function`: 'cosine'}};

// Routing counts a user's indexed nodes from this index alone.
CREATE INDEX indexed_memory_scope IF NOT EXISTS
FOR (n:IndexedMemory) ON (n.scope);
