// Package storetest is the conformance suite every store.Store implementation passes:
// records and links, version groups and invariants, transactions that roll back on
// errors and panics, serialised concurrent writers and user isolation.
//
//	func TestSQLite(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, cfg store.Config) store.Store {
//			s, err := store.OpenSQLite(t.Context(), filepath.Join(t.TempDir(), "bank.db"), cfg)
//			...
//		})
//	}
//
// Each case gets a fresh store whose clock (Config.Now) starts at T0 and moves only
// when the case says so, so times in the records are exact.
package storetest
