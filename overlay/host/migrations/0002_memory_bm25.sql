-- BM25 runs in memory over each user's own memories (see package doc): the FTS5 index,
-- which scored every user's memories with statistics of the whole file, goes.

DROP TRIGGER host_fts_insert;
DROP TRIGGER host_fts_delete;
DROP TRIGGER host_fts_update;
DROP TABLE host_fts_vocab;
DROP TABLE host_fts;
