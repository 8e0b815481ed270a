package overlay

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// DBFile is the SQLite file of a data directory: bank, host memory and traces share it.
const DBFile = "atma.db"

// Bank is the persistent part of an overlay: the record store, the host memory, the
// trace store and the API's keys, in one SQLite database.
type Bank struct {
	DB     *sql.DB
	Store  *store.SQLite
	Host   *host.SQLite
	Traces *SQLTraces
	// Keys are the API's keys (package apikey).
	Keys *apikey.Store
}

// OpenBank opens (creating it if needed) the bank in data directory dir.
func OpenBank(ctx context.Context, dir string) (*Bank, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open bank: %w", err)
	}
	db, err := sqlitedb.Open(ctx, filepath.Join(dir, DBFile), sqlitedb.Config{})
	if err != nil {
		return nil, fmt.Errorf("open bank %s: %w", dir, err)
	}
	b := &Bank{DB: db}
	if b.Store, err = store.NewSQLite(ctx, db, store.Config{}); err == nil {
		if b.Host, err = host.NewSQLite(ctx, db, host.Config{}); err == nil {
			if b.Traces, err = NewSQLTraces(ctx, db); err == nil {
				b.Keys, err = apikey.NewSQLite(ctx, db)
			}
		}
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open bank %s: %w", dir, err), db.Close())
	}
	return b, nil
}

// Close closes the prepared statements and the database.
func (b *Bank) Close() error {
	return errors.Join(b.Keys.Close(), b.Traces.Close(), b.Host.Close(), b.Store.Close(), b.DB.Close())
}
