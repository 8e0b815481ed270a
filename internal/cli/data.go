package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/data"
)

func newCmdData(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data <command>",
		Short: "Generate, check and split Sentry training data",
		Example: `  atma data generate --out work/data --seed 1
  atma data check work/data
  atma data pairs work/data --out work/pairs --hold-out reported`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdDataGenerate(f, nil), newCmdDataCheck(f, nil), newCmdDataPairs(f, nil))
	return cmd
}

type dataGenerateOptions struct {
	Out  string
	Gen  data.GenConfig
	JSON bool
}

func newCmdDataGenerate(f *Factory, runF func(context.Context, *dataGenerateOptions) error) *cobra.Command {
	opts := &dataGenerateOptions{}
	cmd := &cobra.Command{
		Use:   "generate --out DIR",
		Short: "Generate a synthetic dataset of profiles and interactions",
		Long: `Generate profiles of user facts and interactions that agree with or contradict them, over
seven categories (job, location, relationship, pets, hobbies, likes/dislikes, numerical
facts), with many phrasing families. The same seed always gives the same files.
Writes DIR/profiles.jsonl and DIR/interactions.jsonl and prints counts.`,
		Example: `  atma data generate --out work/data
  atma data generate --out work/big --profiles 200 --interactions 5000 --implicit-rate 0.1 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Out == "" {
				return usagef("--out is required")
			}
			if err := opts.Gen.Validate(); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return dataGenerateRun(f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Out, "out", "o", "", "directory to write the dataset into")
	fl.Uint64Var(&opts.Gen.Seed, "seed", 1, "random seed")
	fl.IntVar(&opts.Gen.Profiles, "profiles", 0, "number of profiles (0: 50)")
	fl.IntVar(&opts.Gen.FactsPerProfile, "facts-per-profile", 0, fmt.Sprintf("facts per profile, 7..%d (0: 10)", data.MaxFactsPerProfile))
	fl.IntVar(&opts.Gen.Interactions, "interactions", 0, "number of interactions (0: 1000)")
	fl.Float64Var(&opts.Gen.ConflictRatio, "conflict-ratio", 0, "share of conflicting interactions (0: 0.5)")
	fl.Float64Var(&opts.Gen.NoiseRate, "noise-rate", 0, "share of interactions with filler or chat casing (0: 0.1; negative: none)")
	fl.Float64Var(&opts.Gen.ImplicitRate, "implicit-rate", 0, "share of implicit violations where a category has them (0: none)")
	fl.BoolVar(&opts.JSON, "json", false, "print the dataset's statistics as JSON")
	return cmd
}

func dataGenerateRun(f *Factory, opts *dataGenerateOptions) error {
	d, err := data.Generate(opts.Gen)
	if err != nil {
		return err
	}
	if err := d.Write(opts.Out); err != nil {
		return err
	}
	return writeDataStats(f.IO.Out, opts.Out, d, opts.JSON)
}

type dataCheckOptions struct {
	Dir  string
	JSON bool
}

func newCmdDataCheck(f *Factory, runF func(context.Context, *dataCheckOptions) error) *cobra.Command {
	opts := &dataCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check DIR",
		Short: "Check a dataset against the schema and print its statistics",
		Long: `Load DIR/profiles.jsonl and DIR/interactions.jsonl (JSON lines or a JSON array), check
them against the schema and each other, and print statistics. Every problem is reported at
once with its file, line and field; the exit code is then 1.`,
		Example: "  atma data check work/data\n  atma data check work/data --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			d, err := data.Load(opts.Dir)
			if err != nil {
				return err
			}
			return writeDataStats(f.IO.Out, opts.Dir, d, opts.JSON)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print statistics as JSON")
	return cmd
}

func writeDataStats(w io.Writer, dir string, d *data.Dataset, asJSON bool) error {
	st := d.Stats()
	if asJSON {
		return json.NewEncoder(w).Encode(struct {
			Dir  string `json:"dir"`
			Hash string `json:"hash"`
			data.Stats
		}{dir, d.Hash(), st})
	}
	fmt.Fprintf(w, "%s: %d profiles, %d facts, %d interactions (%d distinct texts), %d consistent / %d conflicting\nhash %s\n",
		dir, st.Profiles, st.Facts, st.Interactions, st.DistinctTexts, st.All.Consistent, st.All.Conflicting, d.Hash())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CATEGORY\tUPDATE TYPE\tCONSISTENT\tCONFLICTING")
	for _, c := range data.Categories() {
		n := st.ByCategory[c]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", c, c.UpdateType(), n.Consistent, n.Conflicting)
	}
	if n, ok := st.ByUpdateType[data.UpdateImplicitViolation]; ok && n.Total() > 0 {
		fmt.Fprintf(tw, "(implicit)\t%s\t%d\t%d\n", data.UpdateImplicitViolation, n.Consistent, n.Conflicting)
	}
	return tw.Flush()
}

type dataPairsOptions struct {
	Dir   string
	Out   string
	Seed  uint64
	Split data.SplitConfig
	JSON  bool
}

func newCmdDataPairs(f *Factory, runF func(context.Context, *dataPairsOptions) error) *cobra.Command {
	opts := &dataPairsOptions{}
	cmd := &cobra.Command{
		Use:   "pairs DIR --out OUT",
		Short: "Build Sentry training pairs and split them into train/val/test(/heldout)",
		Long: `Build the paper's two pairs per interaction — with the fact of its own slot (y_top 1,
y_log 0 if conflicting else 1) and with an irrelevant fact of another topic (0, 0) — and split
them by interaction, stratified by update type × relation. Families held out with
--hold-out go to heldout.jsonl only, so unseen wording can be measured.
Writes OUT/train.jsonl, val.jsonl, test.jsonl and, with held-out families, heldout.jsonl.`,
		Example: `  atma data pairs work/data --out work/pairs
  atma data pairs work/data --out work/pairs --hold-out reported --hold-out job/narrative`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if opts.Out == "" {
				return usagef("--out is required")
			}
			if err := opts.Split.Validate(); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return dataPairsRun(f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Out, "out", "o", "", "directory to write the splits into")
	fl.Uint64Var(&opts.Seed, "seed", 1, "random seed for the irrelevant facts and the split")
	fl.Float64Var(&opts.Split.Train, "train", 0, "train share (all three 0: 0.8/0.1/0.1)")
	fl.Float64Var(&opts.Split.Val, "val", 0, "validation share")
	fl.Float64Var(&opts.Split.Test, "test", 0, "test share")
	fl.StringSliceVar(&opts.Split.HoldOutFamilies, "hold-out", nil, `phrasing families ("job/reported") or styles ("reported") to hold out`)
	fl.Float64Var(&opts.Split.HoldOutFraction, "hold-out-fraction", 0, "hold out this share of the families, drawn with the seed")
	fl.BoolVar(&opts.JSON, "json", false, "print the split sizes as JSON")
	return cmd
}

type splitCount struct {
	Split       string `json:"split"`
	Pairs       int    `json:"pairs"`
	Conflicting int    `json:"conflicting"`
	File        string `json:"file"`
}

func dataPairsRun(f *Factory, opts *dataPairsOptions) error {
	d, err := data.Load(opts.Dir)
	if err != nil {
		return err
	}
	opts.Split.Seed = opts.Seed
	pairs, err := data.BuildPairs(d, rand.New(rand.NewPCG(opts.Seed, 0x5e17)))
	if err != nil {
		return err
	}
	splits, err := data.Split(pairs, opts.Split)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return err
	}
	var counts []splitCount
	for _, s := range []struct {
		name  string
		pairs []data.Pair
	}{{"train", splits.Train}, {"val", splits.Val}, {"test", splits.Test}, {"heldout", splits.HeldOut}} {
		if s.name == "heldout" && len(s.pairs) == 0 {
			continue
		}
		path := filepath.Join(opts.Out, s.name+".jsonl")
		if err := data.WriteJSONLFile(path, s.pairs); err != nil {
			return err
		}
		c := splitCount{Split: s.name, Pairs: len(s.pairs), File: path}
		for _, p := range s.pairs {
			if p.Conflicting && p.YTop == 1 {
				c.Conflicting++
			}
		}
		counts = append(counts, c)
	}
	if opts.JSON {
		return json.NewEncoder(f.IO.Out).Encode(struct {
			HeldOutFamilies []string     `json:"held_out_families,omitempty"`
			Splits          []splitCount `json:"splits"`
		}{splits.HeldOutFamilies, counts})
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SPLIT\tPAIRS\tCONFLICTING\tFILE")
	for _, c := range counts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.Split, c.Pairs, c.Conflicting, c.File)
	}
	if len(splits.HeldOutFamilies) > 0 {
		fmt.Fprintf(tw, "held out:\t%v\n", slices.Sorted(slices.Values(splits.HeldOutFamilies)))
	}
	return tw.Flush()
}
