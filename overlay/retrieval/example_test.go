package retrieval_test

import (
	"context"
	"fmt"
	"time"

	"github.com/atma-dev/atma/overlay/retrieval"
)

func ExampleProfileQuery() {
	for _, q := range []string{
		"where do I live now?",
		"where did I live before?",
		"when did I move to Lisbon?",
		"my former colleague still lives in Paris — where do I live?",
		"tell me about my hobbies",
	} {
		p := retrieval.ProfileQuery(q)
		fmt.Printf("%-11s confident=%-5t %q\n", p.Mode, p.Confident, p.Hints)
	}
	// Output:
	// current     confident=true  ["current:do i" "current:now"]
	// historical  confident=true  ["historical:did i live" "historical:before"]
	// transition  confident=true  ["change:when did i move"]
	// current     confident=false ["guard:person former colleague" "guard:context still" "current:do i"]
	// neutral     confident=false []
}

func ExampleBuildPool() {
	date := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	bank := retrieval.NewMapGraph([]retrieval.Candidate{
		{ID: "berlin", Content: "I live in Berlin.", Slot: "user.city", Status: retrieval.StatusSuperseded, EventTime: date("2019-03-01"),
			Links: []retrieval.Link{{Type: retrieval.LinkSupersededBy, To: "lisbon"}, {Type: retrieval.LinkEvolvesTo, To: "move"}}},
		{ID: "move", Content: "I moved from Berlin to Lisbon.", Slot: "user.city", Status: retrieval.StatusTransition, EventTime: date("2023-05-10"),
			Links: []retrieval.Link{{Type: retrieval.LinkEvolvesFrom, To: "berlin"}, {Type: retrieval.LinkEvolvesTo, To: "lisbon"}}},
		{ID: "lisbon", Content: "I live in Lisbon now.", Slot: "user.city", Status: retrieval.StatusActive, EventTime: date("2023-05-12"),
			Links: []retrieval.Link{{Type: retrieval.LinkSupersedes, To: "berlin"}, {Type: retrieval.LinkEvolvesFrom, To: "move"}}},
	}, nil)

	// The host's search found only the old record: its live successor goes before it.
	query := "where do I live now?"
	p := retrieval.ProfileQuery(query)
	pool, err := retrieval.BuildPool(context.Background(), bank, p, []retrieval.Candidate{{ID: "berlin"}}, retrieval.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(retrieval.BuildPacket(query, p, pool.Top, retrieval.PacketOptions{}).Text())
	// Output:
	// [1] current memory | 2023-05-12 | I live in Lisbon now.
	// [2] historical memory | 2019-03-01 | I live in Berlin.
	// [3] transition memory | 2023-05-10 | I moved from Berlin to Lisbon.
}
