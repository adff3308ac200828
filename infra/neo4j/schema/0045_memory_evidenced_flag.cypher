// Retrieval tests one stored flag, `evidenced`, before computing the belief-confidence factor
// (adapters/neo4j/retrieval.py; every write sets it, records.node_row). Memories whose evidence
// lists were written before the flag existed get it here; a missing flag reads as false.
//
// In batches of $batch_rows memories, each its own transaction (`CALL { } IN TRANSACTIONS`,
// which the runner sends as an auto-commit transaction): one transaction over every memory of a
// large graph held all its changes in memory and its locks until the end. The label scan
// streams into the batches (the plan has no eager step). Rerunnable: what a batch committed
// before a crash no longer matches the filter. This text replaced a one-transaction version
// after release; databases that applied that one have its checksum recorded, which the runner
// accepts as this migration (migrations.REWRITTEN): the effect is the same.
MATCH (n:Memory)
WHERE n.evidenced IS NULL
  AND size(coalesce(n.observed_for, [])) + size(coalesce(n.observed_against, []))
      + size(coalesce(n.self_report_for, [])) + size(coalesce(n.self_report_against, [])) > 0
CALL (n) {
  SET n.evidenced = true
} IN TRANSACTIONS OF $batch_rows ROWS;
