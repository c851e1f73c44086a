"""Layer 2: results files as the package reads them (loading, the DataFrame frame, the metric and
workload catalogue of _core, the misuse battery's section, profiles, shared record readers).
May import stats and the root's _core and version only."""
