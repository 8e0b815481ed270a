-- The built-in host memory: raw memories, their vectors and an FTS5 index. It may share
-- the database file with the overlay bank; every table here is prefixed host_.

CREATE TABLE host_memories (
    rid     INTEGER PRIMARY KEY,
    user    TEXT    NOT NULL,
    id      TEXT    NOT NULL,
    content TEXT    NOT NULL,
    time_ns INTEGER NOT NULL,
    meta    TEXT    NOT NULL DEFAULT '{}',
    vec     BLOB,   -- unit-length float32, little-endian
    UNIQUE (user, id)
) STRICT;

-- One row per user: gen changes with every write, so a process holding the user's
-- vectors in memory knows when another process changed them; dim and vectors keep all
-- of a user's vectors the same size.
CREATE TABLE host_users (
    user    TEXT    PRIMARY KEY,
    gen     INTEGER NOT NULL,
    dim     INTEGER NOT NULL DEFAULT 0,
    vectors INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;

CREATE VIRTUAL TABLE host_fts USING fts5 (
    content,
    content = 'host_memories',
    content_rowid = 'rid',
    tokenize = 'unicode61 remove_diacritics 2'
);
-- Document frequencies, to leave near-universal terms out of queries (fts.Prune).
CREATE VIRTUAL TABLE host_fts_vocab USING fts5vocab (host_fts, row);
CREATE TRIGGER host_fts_insert AFTER INSERT ON host_memories BEGIN
    INSERT INTO host_fts (rowid, content) VALUES (new.rid, new.content);
END;
CREATE TRIGGER host_fts_delete AFTER DELETE ON host_memories BEGIN
    INSERT INTO host_fts (host_fts, rowid, content) VALUES ('delete', old.rid, old.content);
END;
CREATE TRIGGER host_fts_update AFTER UPDATE OF content ON host_memories BEGIN
    INSERT INTO host_fts (host_fts, rowid, content) VALUES ('delete', old.rid, old.content);
    INSERT INTO host_fts (rowid, content) VALUES (new.rid, new.content);
END;
