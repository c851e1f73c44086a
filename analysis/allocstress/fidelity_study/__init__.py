"""Layer 6 (beside comparison, neither imports the other): the fidelity study (`allocstress
fidelity`): Spearman's rho of real programs against their models, and its text.  May import
tabulation and the layers below it."""
