//go:build hftokenizers

package wordpiece

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	hf "github.com/daulet/tokenizers"

	"github.com/atma-dev/atma/tokenizer"
)

// HFTokenizer runs the Hugging Face tokenizers library itself (Rust, through cgo and
// github.com/daulet/tokenizers) with the semantics of Tokenizer.Encode. It exists to
// cross-check the pure-Go Tokenizer on real traffic; it is built only with the
// hftokenizers build tag and needs libtokenizers.a at link time (see the package
// documentation).
//
// Encode is safe for concurrent use; Close must not run concurrently with it.
type HFTokenizer struct {
	data     []byte // tokenizer.json without its padding and truncation sections
	full     *hf.Tokenizer
	nSpecial int

	mu      sync.Mutex
	limited map[int]*hf.Tokenizer // by maxTokens
}

// LoadHF loads a tokenizer.json into the Hugging Face library. As with Load, the file's
// padding and truncation sections are ignored.
func LoadHF(path string) (*HFTokenizer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	doc["padding"] = json.RawMessage("null")
	doc["truncation"] = json.RawMessage("null")
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("rewrite tokenizer.json: %w", err)
	}
	full, err := hf.FromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("load %s into hugging face tokenizers: %w", path, err)
	}
	// The number of special tokens the post-processor adds is the length of an empty text.
	empty := full.EncodeWithOptions("", true)
	return &HFTokenizer{data: data, full: full, nSpecial: len(empty.IDs), limited: make(map[int]*hf.Tokenizer)}, nil
}

// Encode is Tokenizer.Encode computed by the Hugging Face library. A text containing a NUL
// byte is rejected: the C interface would cut it there.
func (h *HFTokenizer) Encode(text string, maxTokens int) (tokenizer.Encoding, error) {
	if maxTokens < 0 {
		return tokenizer.Encoding{}, fmt.Errorf("encode: negative maxTokens %d", maxTokens)
	}
	if maxTokens > 0 && maxTokens < h.nSpecial {
		return tokenizer.Encoding{}, fmt.Errorf("encode: maxTokens %d leaves no room for the %d special tokens", maxTokens, h.nSpecial)
	}
	if !utf8.ValidString(text) {
		return tokenizer.Encoding{}, fmt.Errorf("encode: %w at byte %d", ErrInvalidUTF8, invalidUTF8At(text))
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return tokenizer.Encoding{}, fmt.Errorf("encode: NUL byte at %d cannot cross the C interface", i)
	}
	enc := h.full.EncodeWithOptions(text, true, hf.WithReturnAllAttributes())
	if maxTokens == 0 || len(enc.IDs) <= maxTokens {
		return fromHF(enc, false), nil
	}
	lim, err := h.limitedTokenizer(maxTokens)
	if err != nil {
		return tokenizer.Encoding{}, err
	}
	return fromHF(lim.EncodeWithOptions(text, true, hf.WithReturnAllAttributes()), true), nil
}

// limitedTokenizer returns a tokenizer that truncates to maxTokens, creating it once.
func (h *HFTokenizer) limitedTokenizer(maxTokens int) (*hf.Tokenizer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.limited[maxTokens]; ok {
		return t, nil
	}
	t, err := hf.FromBytesWithTruncation(h.data, uint32(maxTokens), hf.TruncationDirectionRight)
	if err != nil {
		return nil, fmt.Errorf("hugging face tokenizer with truncation to %d: %w", maxTokens, err)
	}
	h.limited[maxTokens] = t
	return t, nil
}

// Close frees the native tokenizers.
func (h *HFTokenizer) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	errs := []error{h.full.Close()}
	for k, t := range h.limited {
		errs = append(errs, t.Close())
		delete(h.limited, k)
	}
	return errors.Join(errs...)
}

func fromHF(e hf.Encoding, truncated bool) tokenizer.Encoding {
	out := tokenizer.Encoding{
		IDs:       make([]int32, len(e.IDs)),
		TypeIDs:   make([]int32, len(e.IDs)),
		Tokens:    e.Tokens,
		Offsets:   make([][2]int, len(e.IDs)),
		Truncated: truncated,
	}
	for i, id := range e.IDs {
		out.IDs[i] = int32(id)
		if i < len(e.TypeIDs) {
			out.TypeIDs[i] = int32(e.TypeIDs[i])
		}
		if i < len(e.Offsets) {
			out.Offsets[i] = [2]int{int(e.Offsets[i][0]), int(e.Offsets[i][1])}
		}
	}
	if out.Tokens == nil {
		out.Tokens = make([]string, len(e.IDs))
	}
	return out
}
