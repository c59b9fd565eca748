"""Interactive sessions on this machine: an engine fed one user turn at a time, with its files."""
