package facts

import (
	"os"
	"strings"
	"testing"
)

func TestDbg(t *testing.T) {
	for _, s := range strings.Split(os.Getenv("DBG"), "|") {
		for _, c := range clauses(s) {
			a, v := ownLabel(clause{toks: c, text: join(c)}, true)
			t.Logf("%q -> %q %q", join(c), a, v)
		}
	}
}
