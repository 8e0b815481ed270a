package overlay

// AllRecords and CopyUser are allRecords and copyUser, for the benchmarks that write one
// user's bank as many users' (BenchmarkQueryMillion) the way CopyBank copies one.
var (
	AllRecords = allRecords
	CopyUser   = copyUser
)
