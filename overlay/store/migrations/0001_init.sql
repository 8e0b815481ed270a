-- The overlay bank: records, their typed links, and an FTS5 index over their content.

CREATE TABLE records (
    rid            INTEGER PRIMARY KEY,
    user           TEXT    NOT NULL,
    id             TEXT    NOT NULL,
    content        TEXT    NOT NULL,
    event_ns       INTEGER,
    source_pos     INTEGER NOT NULL DEFAULT 0,
    ingest_ns      INTEGER NOT NULL,
    status         TEXT    NOT NULL CHECK (status IN ('active', 'superseded', 'transition', 'unknown')),
    retracted      INTEGER NOT NULL DEFAULT 0 CHECK (retracted IN (0, 1)),
    slot           TEXT    NOT NULL DEFAULT '',
    single_valued  INTEGER NOT NULL DEFAULT 0 CHECK (single_valued IN (0, 1)),
    valid_from_ns  INTEGER,
    valid_until_ns INTEGER,
    confidence     REAL    NOT NULL DEFAULT 0,
    source         TEXT    NOT NULL DEFAULT '',
    host_id        TEXT    NOT NULL DEFAULT '',
    meta           TEXT    NOT NULL DEFAULT '{}',
    backbone       BLOB,
    topic          BLOB,
    logic          BLOB,
    UNIQUE (user, id)
) STRICT;

-- Version groups, in CompareVersions order.
CREATE INDEX records_version ON records (user, slot, coalesce(event_ns, ingest_ns), source_pos, ingest_ns, id);
CREATE INDEX records_status ON records (user, status, id);

-- Links are stored in both directions. The composite foreign keys keep both ends in the
-- same user's namespace and drop a record's links with it.
CREATE TABLE links (
    user TEXT NOT NULL,
    src  TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('supersedes', 'superseded_by', 'evolves_from', 'evolves_to', 'scoped_exception', 'coexists_with')),
    dst  TEXT NOT NULL,
    PRIMARY KEY (user, src, type, dst),
    FOREIGN KEY (user, src) REFERENCES records (user, id) ON DELETE CASCADE,
    FOREIGN KEY (user, dst) REFERENCES records (user, id) ON DELETE CASCADE,
    CHECK (src <> dst)
) STRICT, WITHOUT ROWID;
CREATE INDEX links_dst ON links (user, dst);

-- External-content FTS5 index over records.content, kept in step by triggers, so every
-- write updates it in the writer's own transaction.
CREATE VIRTUAL TABLE records_fts USING fts5 (
    content,
    content = 'records',
    content_rowid = 'rid',
    tokenize = 'unicode61 remove_diacritics 2'
);
-- Document frequencies, to leave near-universal terms out of queries (fts.Prune).
CREATE VIRTUAL TABLE records_fts_vocab USING fts5vocab (records_fts, row);
CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, content) VALUES (new.rid, new.content);
END;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, content) VALUES ('delete', old.rid, old.content);
END;
CREATE TRIGGER records_fts_update AFTER UPDATE OF content ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, content) VALUES ('delete', old.rid, old.content);
    INSERT INTO records_fts (rowid, content) VALUES (new.rid, new.content);
END;
