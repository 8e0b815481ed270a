package cli

import (
	"math"

	"github.com/spf13/pflag"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/llm"
)

// Fact extractor modes of --facts.
const (
	factsAuto    = "auto"
	factsOffline = "offline"
	factsLLM     = "llm"
	factsOff     = "off"
)

// factsOptions choose the fact extractor of the overlay.
type factsOptions struct {
	Facts   string
	FactMin float64
}

func (o *factsOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Facts, "facts", factsAuto, "fact extractor: auto (the LLM when an endpoint is configured, else offline), offline, llm or off (sentences judged as they are)")
	fs.Float64Var(&o.FactMin, "fact-min", 0, "least confidence of a fact that puts its memory in a version group, in [0, 1] (0: the default, 0.52; facts read by meaning below it stay in the trace only)")
}

func (o *factsOptions) validate() error {
	if math.IsNaN(o.FactMin) || o.FactMin < 0 || o.FactMin > 1 {
		return usagef("--fact-min must be in [0, 1], got %v", o.FactMin)
	}
	switch o.Facts {
	case factsAuto, factsOffline, factsLLM, factsOff:
		return nil
	}
	return usagef("--facts must be auto, offline, llm or off, got %q", o.Facts)
}

// factExtractor builds the extractor o asks for on the backbone emb and the endpoint c
// (nil: none configured), and names it; off gives nil.
func (f *Factory) factExtractor(o *factsOptions, emb facts.Embedder, c *llm.Client, lo *llmOptions) (facts.Extractor, string, error) {
	if o.Facts == factsOff {
		return nil, factsOff, nil
	}
	off, err := facts.NewOffline(emb, facts.Config{Logger: f.Logger})
	if err != nil {
		return nil, "", err
	}
	switch {
	case o.Facts == factsLLM && c == nil:
		return nil, "", usagef("--facts llm needs an endpoint (--llm-url or ATMA_LLM_URL)")
	case c == nil || o.Facts == factsOffline:
		return off, facts.SourceOffline, nil
	}
	cfg, _ := f.llmConfig(lo)
	x, err := facts.NewLLM(c, off, facts.LLMConfig{Name: cfg.Model, Logger: f.Logger})
	return x, cfg.Model, err
}
