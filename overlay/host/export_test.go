package host

import (
	"math/rand/v2"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Migrations returns the host's schema migrations (SQLite's), for tests that build a
// database at an older version.
func Migrations() ([]sqlitedb.Migration, error) { return schema.Migrations() }

// IndexReads returns how many times h read a user's index whole and how many times it
// read only what changed since (refresh).
func (h *SQL) IndexReads() (whole, incremental int64) { return h.loads.Load(), h.refreshes.Load() }

// LowRank returns a generator of unit vectors of dim dimensions near a random
// rank-dimensional subspace drawn from basisSeed; seed draws the points.
func LowRank(basisSeed, seed uint64, dim, rank int) func() []float32 {
	g := newLowRank(basisSeed, dim, rank)
	g.rng = rand.New(rand.NewPCG(seed, seed^0x5eed))
	return g.vector
}
