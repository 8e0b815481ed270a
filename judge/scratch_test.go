package judge

import (
	"fmt"
	"testing"

	"github.com/atma-dev/atma/data"
)

func TestScratch(t *testing.T) {
	d, err := data.Generate(data.GenConfig{Seed: 3, Interactions: 120, ImplicitRate: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range d.Interactions {
		p, _ := d.Profile(in.ProfileID)
		f, _ := p.Fact(in.SlotKey)
		fmt.Printf("%s | %s | %s | %q -> %q [%s]\n", in.Family, in.Relation, in.UpdateType, f.Text, in.Text, in.Value)
	}
}
