-- The built-in host memory on PostgreSQL, as SQLite's migrations 1 to 3 build it: raw
-- memories and their vectors (searched in the serving process; see the package doc), and
-- one row per user whose generation changes with every write, so that each process
-- holding the user's index in memory knows when another one wrote. Each memory keeps the
-- generation that last set it, and deletions leave tombstones, so that such a process
-- reads only what changed since its index (reset_gen: the user's last DeleteUser, before
-- which an index is reloaded whole). It may share the database with the overlay bank;
-- every table here is prefixed host_.

CREATE TABLE host_memories (
    "user"  text COLLATE "C" NOT NULL,
    id      text COLLATE "C" NOT NULL,
    content text             NOT NULL,
    time_ns bigint           NOT NULL,
    meta    text             NOT NULL DEFAULT '{}',
    vec     bytea, -- unit-length float32, little-endian
    gen     bigint           NOT NULL DEFAULT 0,
    PRIMARY KEY ("user", id)
);
CREATE INDEX host_memories_gen ON host_memories ("user", gen);

CREATE TABLE host_deletions (
    "user" text COLLATE "C" NOT NULL,
    id     text COLLATE "C" NOT NULL,
    gen    bigint           NOT NULL,
    PRIMARY KEY ("user", id)
);

CREATE TABLE host_users (
    "user"  text COLLATE "C" PRIMARY KEY,
    gen     bigint  NOT NULL,
    dim     integer NOT NULL DEFAULT 0,
    vectors bigint  NOT NULL DEFAULT 0,
    reset_gen bigint NOT NULL DEFAULT 0
);
