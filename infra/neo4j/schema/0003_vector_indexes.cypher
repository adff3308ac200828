// A Neo4j vector index has exactly one dimension, so each embedding dimension gets its own
// property (embedding_<dim>) and index. 384: multilingual-e5-small (local); 1024: bge-m3.
CREATE VECTOR INDEX memory_embedding_384 IF NOT EXISTS
FOR (n:Memory) ON (n.embedding_384)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};

CREATE VECTOR INDEX memory_embedding_1024 IF NOT EXISTS
FOR (n:Memory) ON (n.embedding_1024)
OPTIONS {indexConfig: {`vector.dimensions`: 1024, `vector.similarity_function`: 'cosine'}};
