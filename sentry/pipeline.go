package sentry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	dataset "github.com/atma-dev/atma/data"
)

// Splits are a dataset's pairs, split and embedded.
type Splits struct {
	Train, Val, Test, HeldOut []Example
	// HeldOutFamilies are the phrasing families whose pairs are only in HeldOut.
	HeldOutFamilies []string
	// ValFamilies are the phrasing families whose pairs are only in Val (never trained
	// on); ValUnseen are those pairs, the tail of Val, and ValSeen the rest of Val.
	ValFamilies        []string
	ValSeen, ValUnseen []Example
	// DataHash identifies the dataset and the split configuration; checkpoints record it.
	DataHash string
}

// PrepareConfig says how a dataset becomes training examples.
type PrepareConfig struct {
	// Seed draws the irrelevant fact of each interaction and the split (SplitConfig.Seed is
	// set from it).
	Seed uint64
	// Split is the train/val/test shares and held-out phrasing families.
	Split dataset.SplitConfig
	// Batch is the most texts per Embed call (0: 256).
	Batch int
}

// Prepare builds the paper's pairs from d, splits them by interaction and embeds every
// distinct text once with e (wrap e in a Cache to keep the embeddings across runs).
func Prepare(ctx context.Context, e Embedder, d *dataset.Dataset, cfg PrepareConfig) (*Splits, error) {
	pairs, err := dataset.BuildPairs(d, rand.New(rand.NewPCG(cfg.Seed, 0x5e17)))
	if err != nil {
		return nil, err
	}
	cfg.Split.Seed = cfg.Seed
	ds, err := dataset.Split(pairs, cfg.Split)
	if err != nil {
		return nil, err
	}
	valOnly := map[string]bool{}
	for _, f := range ds.ValFamilies {
		valOnly[f] = true
	}
	var seen, unseen []dataset.Pair
	for _, p := range ds.Val {
		if valOnly[p.Family] {
			unseen = append(unseen, p)
		} else {
			seen = append(seen, p)
		}
	}
	parts := [][]dataset.Pair{ds.Train, seen, unseen, ds.Test, ds.HeldOut}
	var all []TextPair
	for _, part := range parts {
		for _, p := range part {
			all = append(all, TextPair{U: p.FactText, P: p.InteractionText, YTop: float32(p.YTop), YLog: float32(p.YLog)})
		}
	}
	exs, err := EmbedPairs(ctx, e, all, cfg.Batch)
	if err != nil {
		return nil, err
	}
	cut := func(i int) []Example {
		start := 0
		for _, p := range parts[:i] {
			start += len(p)
		}
		return exs[start : start+len(parts[i])]
	}
	splitJSON, err := json.Marshal(cfg.Split)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", d.Hash(), splitJSON)
	val := exs[len(ds.Train) : len(ds.Train)+len(ds.Val)]
	return &Splits{
		Train: cut(0), Val: val[:len(val):len(val)], Test: cut(3), HeldOut: cut(4),
		ValSeen: cut(1), ValUnseen: cut(2),
		HeldOutFamilies: ds.HeldOutFamilies, ValFamilies: ds.ValFamilies,
		DataHash: hex.EncodeToString(h.Sum(nil)),
	}, nil
}
