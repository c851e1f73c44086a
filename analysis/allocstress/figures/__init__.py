"""Layer 5: the figures (matplotlib, Agg backend: plots.py) of results, phases and traces.
May import tabulation and the layers below it."""
