"""Weekly graph compaction (spec §3.9) as plans the graph store executes. Every module is pure.

- `plan`: one pass over a user's graph, what it deletes, merges and rewrites (`plan_compaction`),
  and the graph after it, computed in memory (`apply_compaction`);
- `edges`: how an edge is addressed without an id, and how its confidence decays;
- `duplicates`: which nodes restate each other, and what the node that absorbs them keeps;
- `entropy`: the chaos measures that turn a pass aggressive;
- `soft_reset`: when a graph falls back to its pinned and recent memories, and what is archived;
- `config`: the numbers all of them use.
"""
