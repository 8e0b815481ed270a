-- API keys of the overlay's HTTP API: each bound to a tenant namespace, optionally to
-- some of its users, with scopes. The secret is stored as its SHA-256 only.
CREATE TABLE api_keys (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	tenant     TEXT NOT NULL,
	users      TEXT NOT NULL, -- JSON array; empty: every user of the tenant
	scopes     TEXT NOT NULL, -- JSON array of read, write, admin
	secret_sha TEXT NOT NULL,
	created_ns INTEGER NOT NULL,
	revoked_ns INTEGER
) STRICT;
