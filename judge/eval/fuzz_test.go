package eval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzReadItems checks that ReadItems never panics and that what it reads survives a
// write and a second read.
func FuzzReadItems(f *testing.F) {
	items := tinyItems()
	var buf bytes.Buffer
	if err := WriteItems(&buf, items); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add(`{"id":"x","pair":{"old":{"text":"a"},"new":{"text":"b"}},"gold":{"status":"conflict","conflict_type":"none","action":"keep"}}`)
	f.Add("\n\n{}\n[1]\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ReadItems(strings.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteItems(&out, got); err != nil {
			t.Fatalf("WriteItems: %v", err)
		}
		again, err := ReadItems(&out)
		if err != nil {
			t.Fatalf("ReadItems refuses what WriteItems wrote: %v", err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("items changed through a write (-first +second):\n%s", diff)
		}
	})
}
