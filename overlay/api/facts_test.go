package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/overlay"
)

// homeFacts states user/home for every text that says where the user lives.
type homeFacts struct{}

func (homeFacts) Extract(_ context.Context, in []facts.Input) ([]facts.Result, error) {
	out := make([]facts.Result, len(in))
	for i, x := range in {
		for _, city := range []string{"Berlin", "Lisbon"} {
			if strings.Contains(x.Text, city) {
				out[i].Facts = []facts.Fact{{Subject: "user", Attribute: "home", Value: city}}
			}
		}
	}
	return out, nil
}

// The slot keys the tools document are the keys records carry: "user/home" gets the
// current value and the history, by tool and by the records endpoint.
func TestSlotKeysFromFacts(t *testing.T) {
	e := newEnv(t, func(c *overlay.Config) { c.Facts = homeFacts{} }, nil)
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	trs := e.add("alice", Memory{Content: "I live in Berlin.", EventTime: day}, Memory{Content: "I moved to Lisbon last month.", EventTime: day.AddDate(0, 2, 0)})
	if trs[1].Slot != "user/home" || len(trs[1].Facts) != 1 {
		t.Fatalf("ingest trace: slot %q facts %+v", trs[1].Slot, trs[1].Facts)
	}
	var byKey getResult
	toolJSON(t, e.tool("alice", "memory_get", map[string]any{"key": "user/home"}), &byKey)
	if len(byKey.Current) != 1 || !strings.Contains(byKey.Current[0].Content, "Lisbon") || len(byKey.History) != 2 {
		t.Errorf("memory_get user/home: %+v", byKey)
	}
	var page struct {
		Records []struct {
			Slot   string `json:"slot"`
			Status string `json:"status"`
		} `json:"records"`
	}
	e.call(req{method: "GET", path: "/v1/users/alice/records?slot=" + url.QueryEscape("user/home")}, http.StatusOK, &page)
	if len(page.Records) != 2 || page.Records[0].Slot != "user/home" {
		t.Errorf("records of user/home: %+v", page.Records)
	}
}
