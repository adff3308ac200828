// A memory's reply-context vector (domain.reply_context), searched for users in the vector index
// as their content vectors are: the context read path asks both indexes, so that an answer
// whose own words are far from the question is found by the question it answered.
CREATE VECTOR INDEX indexed_memory_context_embedding_384 IF NOT EXISTS
FOR (n:IndexedMemory) ON (n.context_embedding_384)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};

CREATE VECTOR INDEX indexed_memory_context_embedding_1024 IF NOT EXISTS
FOR (n:IndexedMemory) ON (n.context_embedding_1024)
OPTIONS {indexConfig: {`vector.dimensions`: 1024, `vector.similarity_function`: 'cosine'}};
