// Lexical retrieval reads a user's document frequencies and lexically best memories from this
// Lucene index instead of scanning every memory of the user (docs/decisions.md, "Retrieval: the
// term index"). The whitespace analyzer keeps the stored search terms (already stemmed and
// lower-cased by domain.terms.search_terms) and the scope key as single tokens; queries always
// require the scope token, so one user's query never matches another user's memories.
CREATE FULLTEXT INDEX memory_terms IF NOT EXISTS
FOR (n:Memory) ON EACH [n.terms, n.scope]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}};
