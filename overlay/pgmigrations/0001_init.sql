-- The overlay's ingest and query traces (package overlay, SQLTraces), one row a trace.
CREATE TABLE overlay_traces (
    "user"  text COLLATE "C" NOT NULL,
    id      text COLLATE "C" NOT NULL,
    kind    text NOT NULL,
    created text NOT NULL,
    data    text NOT NULL,
    PRIMARY KEY ("user", id)
);
