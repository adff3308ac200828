"""From an extraction to a write plan (DESIGN.md §5 write path; spec §3.2, §3.3, §3.9, §4, §6).

The extractor proposes candidate memories and links for a batch of messages
(`extraction.Extraction`); `planner.plan_ingestion` decides, without any I/O, what the graph
store writes (`plan.IngestionPlan`). Its steps, each in its own module:

- `candidates`: which candidates may become memories (the rejections), and the new nodes, with
  deterministic ids (`identity`) so that a retried extraction writes the same nodes;
- `reinforcement`: a candidate that restates a memory reinforces it instead of creating a twin;
- `edges`: links among candidates and to recent memories, and people named in a candidate;
- `contradictions`: `contradicts` edges, unresolved tensions, the older side's lost weight.

Every node, new or reinforced, keeps the ids of the messages it came from. `draft` holds what
the steps accumulate; `config` holds the numbers they use.
"""
