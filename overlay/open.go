package overlay

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// DBFile is the SQLite file of a data directory: bank, host memory and traces share it.
const DBFile = "atma.db"

// Bank is the persistent part of an overlay: the record store, the host memory, the
// trace store and the API's keys, in one database — an SQLite file (OpenBank) or a
// PostgreSQL database that several processes share (OpenPostgresBank). Store and Host
// share the database, so an ingest commits its record and host memory in one
// transaction on either.
type Bank struct {
	DB     *sql.DB
	Store  *store.SQL
	Host   *host.SQL
	Traces *SQLTraces
	// Keys are the API's keys (package apikey).
	Keys *apikey.Store
	// Where names the bank for logs: the data directory, or the URL without its
	// password.
	Where string
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
	b := &Bank{DB: db, Where: dir}
	if b.Store, err = store.NewSQLite(ctx, db, store.Config{}); err == nil {
		if b.Host, err = host.NewSQLite(ctx, db, host.Config{}); err == nil {
			if b.Traces, err = NewSQLTraces(ctx, db); err == nil {
				b.Keys, err = apikey.NewSQLite(ctx, db)
			}
		}
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open bank %s: %w", dir, err), b.closeParts(), db.Close())
	}
	return b, nil
}

// OpenPostgresBank connects to the PostgreSQL database at url (postgres://…) and brings
// its tables up to date. Any number of processes may open one database: writes of a
// user are serialised across them, and each one's search index of a user follows the
// others' writes (see packages store and host). An unreachable database is an error
// that is store.ErrUnavailable and names the URL without its password.
func OpenPostgresBank(ctx context.Context, url string, cfg pgdb.Config) (*Bank, error) {
	where := pgdb.Redact(url)
	db, err := pgdb.Open(ctx, url, cfg)
	if err != nil {
		return nil, fmt.Errorf("open bank: %w", store.PostgresError(err))
	}
	b := &Bank{DB: db, Where: where}
	if b.Store, err = store.NewPostgres(ctx, db, store.Config{}); err == nil {
		if b.Host, err = host.NewPostgres(ctx, db, host.Config{}); err == nil {
			if b.Traces, err = NewPostgresTraces(ctx, db); err == nil {
				b.Keys, err = apikey.NewPostgres(ctx, db)
			}
		}
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open bank %s: %w", where, err), b.closeParts(), db.Close())
	}
	return b, nil
}

// closeParts closes the components opened so far.
func (b *Bank) closeParts() error {
	var errs []error
	if b.Keys != nil {
		errs = append(errs, b.Keys.Close())
	}
	if b.Traces != nil {
		errs = append(errs, b.Traces.Close())
	}
	if b.Host != nil {
		errs = append(errs, b.Host.Close())
	}
	if b.Store != nil {
		errs = append(errs, b.Store.Close())
	}
	return errors.Join(errs...)
}

// Close closes the components and the database.
func (b *Bank) Close() error {
	return errors.Join(b.closeParts(), b.DB.Close())
}

// CopyReport is what CopyBank copied and what checking the copy found.
type CopyReport struct {
	Users    int `json:"users"`
	Records  int `json:"records"`
	Links    int `json:"links"` // stored links, both directions counted
	Memories int `json:"memories"`
	Traces   int `json:"traces"`
	Keys     int `json:"keys"`
}

// CopyBank copies every user's records and links, host memories, the traces and the API
// keys of src into dst, which must be empty (a new database: nothing is merged), and
// then verifies the copy: per user, the same number of records, links and memories, and
// no invariant violation (store.Check); the same numbers of traces and keys. Each user's
// records go in one transaction, checked at commit as every write is, so a source with
// broken invariants stops the copy at that user (run `atma overlay check` on it first).
// progress, when not nil, hears of each user copied. A copy that fails leaves what it
// wrote: drop the target's tables (or the database) before trying again.
func CopyBank(ctx context.Context, dst, src *Bank, progress func(user string, records, memories int)) (CopyReport, error) {
	var rep CopyReport
	for _, b := range []struct {
		what string
		list func(context.Context) ([]string, error)
	}{{"records", dst.Store.Users}, {"host memories", dst.Host.Users}} {
		users, err := b.list(ctx)
		if err != nil {
			return rep, fmt.Errorf("copy bank: %w", err)
		}
		if len(users) > 0 {
			return rep, fmt.Errorf("copy bank: the target %s already holds %s of %d users: copy into an empty database", dst.Where, b.what, len(users))
		}
	}
	users, err := bankUsers(ctx, src)
	if err != nil {
		return rep, fmt.Errorf("copy bank: %w", err)
	}
	for _, u := range users {
		recs, err := allRecords(ctx, src.Store, u)
		if err != nil {
			return rep, fmt.Errorf("copy bank: read %s: %w", u, err)
		}
		ms, err := src.Host.Memories(ctx, u)
		if err != nil {
			return rep, fmt.Errorf("copy bank: read %s: %w", u, err)
		}
		links, err := copyUser(ctx, dst, u, recs, ms)
		if err != nil {
			return rep, fmt.Errorf("copy bank: %w", err)
		}
		if err := verifyUser(ctx, dst, u, len(recs), links, len(ms)); err != nil {
			return rep, fmt.Errorf("copy bank: %w", err)
		}
		rep.Users++
		rep.Records += len(recs)
		rep.Links += links
		rep.Memories += len(ms)
		if progress != nil {
			progress(u, len(recs), len(ms))
		}
	}
	if rep.Traces, err = src.Traces.CopyTo(ctx, dst.Traces); err != nil {
		return rep, fmt.Errorf("copy bank: %w", err)
	}
	if rep.Keys, err = src.Keys.CopyTo(ctx, dst.Keys); err != nil {
		return rep, fmt.Errorf("copy bank: %w", err)
	}
	if n, err := dst.Traces.Count(ctx); err != nil || n != rep.Traces {
		return rep, fmt.Errorf("copy bank: the target holds %d traces (%v), the source %d", n, err, rep.Traces)
	}
	if keys, err := dst.Keys.List(ctx); err != nil || len(keys) != rep.Keys {
		return rep, fmt.Errorf("copy bank: the target holds %d keys (%v), the source %d", len(keys), err, rep.Keys)
	}
	return rep, nil
}

// copyUser writes recs, with their links, and ms as user's in dst: the records in one
// transaction, the host memories in one batch. It returns how many links it wrote.
func copyUser(ctx context.Context, dst *Bank, user string, recs []store.Record, ms []host.Memory) (int, error) {
	links := 0
	if len(recs) > 0 {
		err := dst.Store.Tx(ctx, user, func(tx store.Tx) error {
			for _, r := range recs {
				r.User = user
				if err := tx.Put(ctx, r); err != nil {
					return err
				}
			}
			for _, r := range recs {
				for _, l := range r.Links {
					links++
					if err := tx.Link(ctx, r.ID, l.Type, l.To); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("records of %s: %w", user, err)
		}
	}
	if err := dst.Host.AddBatch(ctx, user, ms); err != nil {
		return links, fmt.Errorf("host memories of %s: %w", user, err)
	}
	return links, nil
}

// bankUsers lists the users with records or host memories, sorted.
func bankUsers(ctx context.Context, b *Bank) ([]string, error) {
	a, err := b.Store.Users(ctx)
	if err != nil {
		return nil, err
	}
	h, err := b.Host.Users(ctx)
	if err != nil {
		return nil, err
	}
	all := append(a, h...)
	slices.Sort(all)
	return slices.Compact(all), nil
}

// verifyUser checks the copy of user in dst: its counts and its invariants.
func verifyUser(ctx context.Context, dst *Bank, user string, records, links, memories int) error {
	got, err := allRecords(ctx, dst.Store, user)
	if err != nil {
		return err
	}
	gotLinks := 0
	for _, r := range got {
		gotLinks += len(r.Links)
	}
	if len(got) != records || gotLinks != links {
		return fmt.Errorf("%s: the copy has %d records and %d links, the source %d and %d", user, len(got), gotLinks, records, links)
	}
	if n, err := dst.Host.Len(ctx, user); err != nil || n != memories {
		return fmt.Errorf("%s: the copy has %d host memories (%v), the source %d", user, n, err, memories)
	}
	vs, err := store.Check(ctx, dst.Store, user)
	if err != nil {
		return err
	}
	if len(vs) > 0 {
		return fmt.Errorf("%s: the copy breaks %d invariants, the first: %s", user, len(vs), vs[0])
	}
	return nil
}

// allRecords reads every record of user, page by page.
func allRecords(ctx context.Context, s store.Reader, user string) ([]store.Record, error) {
	var out []store.Record
	f := store.Filter{Limit: store.MaxListLimit}
	for {
		page, next, err := s.List(ctx, user, f)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if next == "" {
			return out, nil
		}
		f.Cursor = next
	}
}
