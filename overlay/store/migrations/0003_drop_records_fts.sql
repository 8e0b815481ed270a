-- The records' FTS5 index goes: nothing searched it (the overlay finds records through
-- the host memory's per-user index), yet every write of a record updated it. The
-- triggers go first, since they write into the tables dropped after them. rid stays:
-- it is the table's rowid, which costs nothing, and dropping it would rebuild the table.
-- The pages the index held go to the file's free list, for the bank's next writes (the
-- file does not shrink; sqlite3's VACUUM would shrink it).

DROP TRIGGER records_fts_insert;
DROP TRIGGER records_fts_delete;
DROP TRIGGER records_fts_update;
DROP TABLE records_fts_vocab;
DROP TABLE records_fts;
