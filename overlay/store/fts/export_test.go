package fts

// Numbers returns how many document numbers ix has given out and not renumbered away:
// its documents and the removed ones still numbered.
func (ix *Index) Numbers() int { return len(ix.ids) }
