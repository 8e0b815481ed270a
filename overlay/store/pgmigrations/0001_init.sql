-- The overlay bank on PostgreSQL: records and their typed links, as SQLite's migrations
-- 1 and 2 build them, without the FTS5 index (Search ranks in the serving process).
-- Text keys are COLLATE "C": ids, users and slots sort by their bytes, as on SQLite and
-- in Go, whatever the database's default collation.

CREATE TABLE records (
    "user"         text COLLATE "C" NOT NULL,
    id             text COLLATE "C" NOT NULL,
    content        text             NOT NULL,
    event_ns       bigint,
    source_pos     bigint           NOT NULL DEFAULT 0,
    ingest_ns      bigint           NOT NULL,
    status         text             NOT NULL CHECK (status IN ('active', 'superseded', 'transition', 'unknown')),
    retracted      integer          NOT NULL DEFAULT 0 CHECK (retracted IN (0, 1)),
    slot           text COLLATE "C" NOT NULL DEFAULT '',
    single_valued  integer          NOT NULL DEFAULT 0 CHECK (single_valued IN (0, 1)),
    valid_from_ns  bigint,
    valid_until_ns bigint,
    confidence     double precision NOT NULL DEFAULT 0,
    source         text             NOT NULL DEFAULT '',
    host_id        text             NOT NULL DEFAULT '',
    meta           text             NOT NULL DEFAULT '{}',
    backbone       bytea,
    topic          bytea,
    logic          bytea,
    PRIMARY KEY ("user", id)
);

-- Version groups, in CompareVersions order.
CREATE INDEX records_version ON records ("user", slot, (coalesce(event_ns, ingest_ns)), source_pos, ingest_ns, id);
CREATE INDEX records_status ON records ("user", status, id);

-- Links are stored in both directions. The composite foreign keys keep both ends in the
-- same user's namespace and drop a record's links with it.
CREATE TABLE links (
    "user" text COLLATE "C" NOT NULL,
    src    text COLLATE "C" NOT NULL,
    type   text COLLATE "C" NOT NULL CHECK (type IN ('supersedes', 'superseded_by', 'evolves_from', 'evolves_to', 'scoped_exception', 'coexists_with')),
    dst    text COLLATE "C" NOT NULL,
    PRIMARY KEY ("user", src, type, dst),
    FOREIGN KEY ("user", src) REFERENCES records ("user", id) ON DELETE CASCADE,
    FOREIGN KEY ("user", dst) REFERENCES records ("user", id) ON DELETE CASCADE,
    CHECK (src <> dst)
);
CREATE INDEX links_dst ON links ("user", dst);
