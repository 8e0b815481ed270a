-- Every Put is an upsert that sets content, so "AFTER UPDATE OF content" re-indexed a
-- record's text on each status or link change; now only a changed text is re-indexed.

DROP TRIGGER records_fts_update;
CREATE TRIGGER records_fts_update AFTER UPDATE OF content ON records
WHEN old.content IS NOT new.content BEGIN
    INSERT INTO records_fts (records_fts, rowid, content) VALUES ('delete', old.rid, old.content);
    INSERT INTO records_fts (rowid, content) VALUES (new.rid, new.content);
END;
