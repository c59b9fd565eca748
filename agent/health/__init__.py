"""`itachi status` and `itachi doctor`: what runs, what is missing, what to fix."""
