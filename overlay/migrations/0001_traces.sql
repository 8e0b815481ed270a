-- The overlay's ingest and query traces (package overlay, SQLTraces), one row a trace.
-- IF NOT EXISTS: banks made before the traces had a migration created the table when
-- they opened; for them this migration only records the schema.

CREATE TABLE IF NOT EXISTS overlay_traces (
    user    TEXT NOT NULL,
    id      TEXT NOT NULL,
    kind    TEXT NOT NULL,
    created TEXT NOT NULL,
    data    TEXT NOT NULL,
    PRIMARY KEY (user, id)
);
