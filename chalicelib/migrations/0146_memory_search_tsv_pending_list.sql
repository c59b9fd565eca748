-- Every full-text lookup reads the GIN index's whole pending list (entries inserted since the
-- last vacuum, kept unsorted for fast inserts) before the index proper. At the default 4 MB
-- limit that was 350 pages and 3.6 to 7 ms per lookup, twice per search (the project's branch
-- and `_global`'s), on a table that ingested since its last vacuum. 256 kB bounds it at 32
-- pages; an insert that fills it merges it into the index (docs/benchmarks.md measures both).
ALTER INDEX memories_search_tsv SET (gin_pending_list_limit = 256);
