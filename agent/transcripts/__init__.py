"""Session transcripts other engines left on this machine, found and read for `itachi backfill`.

One module per engine finds its files and reads what identifies a session (its id, working
directory, start); the conversation itself is read by the hooks' transcript reader
(`hooks/transcript.py`), the one that reads every engine's format at SessionEnd.
"""
