"""Runtime (monkey) patches: inventory, drift against upstream, live checks."""
