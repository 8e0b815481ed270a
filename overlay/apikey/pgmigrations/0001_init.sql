-- API keys of the overlay's HTTP API on PostgreSQL, as SQLite's migration 1: each bound
-- to a tenant namespace, optionally to some of its users, with scopes. The secret is
-- stored as its SHA-256 only.
CREATE TABLE api_keys (
	id         text COLLATE "C" PRIMARY KEY,
	name       text   NOT NULL,
	tenant     text   NOT NULL,
	users      text   NOT NULL, -- JSON array; empty: every user of the tenant
	scopes     text   NOT NULL, -- JSON array of read, write, admin
	secret_sha text   NOT NULL,
	created_ns bigint NOT NULL,
	revoked_ns bigint
);
