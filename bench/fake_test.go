package bench

import (
	"context"
	"hash/fnv"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/atma-dev/atma/internal/words"
	"github.com/atma-dev/atma/llm"
	"github.com/atma-dev/atma/overlay/retrieval"
)

// hashEmbedder is a bag-of-words embedder: each word adds ±1 to a hashed dimension, so
// texts that share words are close. No model, deterministic.
type hashEmbedder struct{ calls, texts int }

const hashDim = 64

func (h *hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	h.calls++
	h.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, hashDim)
		v[0] = 0.5 // no text is without direction
		for _, w := range words.Split(t) {
			f := fnv.New32a()
			f.Write([]byte(w))
			s := f.Sum32()
			sign := float32(1)
			if s&1 == 1 {
				sign = -1
			}
			v[1+int(s>>1)%(hashDim-1)] += sign
		}
		out[i] = v
	}
	return out, nil
}

// echoLLM answers with the first record of the packet it is shown, and grades every
// answer CORRECT unless it is empty.
type echoLLM struct{ answers, grades int }

func (e *echoLLM) Chat(_ context.Context, req llm.Request) (*llm.Response, error) {
	if len(req.Messages) > 0 && req.Messages[0].Content == graderPrompt {
		e.grades++
		verdict := "CORRECT"
		if strings.HasSuffix(req.Messages[1].Content, "Answer: ") {
			verdict = "WRONG"
		}
		return &llm.Response{Choices: []llm.Choice{{Content: verdict}}}, nil
	}
	e.answers++
	user := req.Messages[len(req.Messages)-1].Content
	first := ""
	for _, line := range strings.Split(user, "\n") {
		if strings.HasPrefix(line, "[1] ") {
			// "[1] label | time | content" or "[1] time | content"
			parts := strings.Split(line, " | ")
			first = parts[len(parts)-1]
		}
	}
	if first == "" {
		first = "I do not know."
	}
	return &llm.Response{Choices: []llm.Choice{{Content: first}}}, nil
}

func loadFixture(t testing.TB) []Conversation {
	t.Helper()
	convs, _, err := LoadLoCoMo("testdata/locomo_fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// fixed packets for scoreProbe tests.
func packetOf(marked bool, rows ...retrieval.Row) retrieval.Packet {
	return retrieval.Packet{Marked: marked, Rows: rows, Mode: retrieval.ModeCurrent}
}

// discard is a logger for runs whose progress nobody reads.
var discard = slog.New(slog.DiscardHandler)
