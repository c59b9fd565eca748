"""One claimed task on this machine: worktree, engine processes, messages, progress, budget."""
