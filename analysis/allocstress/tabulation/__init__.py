"""Layer 4: the tables drawn from results (the comparison table and its display model, the
per-workload metric tables, data structures, phase series, per-cell summaries).  May import
tracing, results and stats."""
