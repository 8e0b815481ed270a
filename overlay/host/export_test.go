package host

// IndexReads returns how many times h read a user's index whole and how many times it
// read only what changed since (refresh).
func (h *SQL) IndexReads() (whole, incremental int64) { return h.loads.Load(), h.refreshes.Load() }
