// Retrieval tests one stored flag, `evidenced`, before computing the belief-confidence factor
// (adapters/neo4j/retrieval.py; every write sets it, records.node_row). Memories whose evidence
// lists were written before the flag existed get it here; a missing flag reads as false.
MATCH (n:Memory)
WHERE n.evidenced IS NULL
  AND size(coalesce(n.observed_for, [])) + size(coalesce(n.observed_against, []))
      + size(coalesce(n.self_report_for, [])) + size(coalesce(n.self_report_against, [])) > 0
SET n.evidenced = true;
