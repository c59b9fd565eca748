"""The prompt context: what a prompt is given (memories and the graph's block), one pipeline for the
search route that serves the prompt hook and `itachi context`, and for the console's preview."""
