package store

import "github.com/atma-dev/atma/overlay/store/sqlitedb"

// Migrations returns the bank's schema migrations (SQLite's), for tests that check the
// schema version or build a bank at an older one.
func Migrations() ([]sqlitedb.Migration, error) { return schema.Migrations() }

// PostgresMigrations returns the bank's schema migrations on PostgreSQL.
func PostgresMigrations() ([]sqlitedb.Migration, error) { return pgSchema.Migrations() }
