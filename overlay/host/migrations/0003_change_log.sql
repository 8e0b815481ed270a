-- Each memory keeps the generation of the write that last set it, and a deletion leaves
-- a tombstone with its generation, so that a process whose index of a user is some
-- generations old reads only what changed since (see SQL.index) instead of reloading the
-- user's whole index after another process's write. reset_gen is the generation of the
-- user's last DeleteUser: an index older than it is reloaded whole.
ALTER TABLE host_memories ADD COLUMN gen INTEGER NOT NULL DEFAULT 0;
CREATE INDEX host_memories_gen ON host_memories (user, gen);
CREATE TABLE host_deletions (
    user TEXT    NOT NULL,
    id   TEXT    NOT NULL,
    gen  INTEGER NOT NULL,
    PRIMARY KEY (user, id)
) STRICT, WITHOUT ROWID;
ALTER TABLE host_users ADD COLUMN reset_gen INTEGER NOT NULL DEFAULT 0;
