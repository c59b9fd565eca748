"""`itachi claude|codex|gemini`, `itachic`, `itachig`: engines run by hand, with memory."""
