package wordpiece

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// fileConfig is the part of a Hugging Face tokenizer.json that this package reads. Sections
// are kept raw until their "type" is known, so that an unsupported type is reported by name
// instead of as a JSON shape error.
type fileConfig struct {
	AddedTokens   []addedTokenConfig `json:"added_tokens"`
	Normalizer    json.RawMessage    `json:"normalizer"`
	PreTokenizer  json.RawMessage    `json:"pre_tokenizer"`
	Model         json.RawMessage    `json:"model"`
	PostProcessor json.RawMessage    `json:"post_processor"`
	Decoder       json.RawMessage    `json:"decoder"`
	Padding       json.RawMessage    `json:"padding"`
}

type addedTokenConfig struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    bool   `json:"special"`
}

type typed struct {
	Type string `json:"type"`
}

type bertNormalizerConfig struct {
	CleanText          *bool `json:"clean_text"`
	HandleChineseChars *bool `json:"handle_chinese_chars"`
	StripAccents       *bool `json:"strip_accents"`
	Lowercase          *bool `json:"lowercase"`
}

type wordPieceConfig struct {
	UnkToken                *string          `json:"unk_token"`
	ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
	MaxInputCharsPerWord    *int             `json:"max_input_chars_per_word"`
	Vocab                   map[string]int32 `json:"vocab"`
}

type templatePiece struct {
	SpecialToken *struct {
		ID     string `json:"id"`
		TypeID int32  `json:"type_id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID     string `json:"id"`
		TypeID int32  `json:"type_id"`
	} `json:"Sequence"`
}

type templateConfig struct {
	Single        []templatePiece `json:"single"`
	SpecialTokens map[string]struct {
		ID     string   `json:"id"`
		IDs    []int32  `json:"ids"`
		Tokens []string `json:"tokens"`
	} `json:"special_tokens"`
}

type bertProcessingConfig struct {
	Sep [2]json.RawMessage `json:"sep"`
	CLS [2]json.RawMessage `json:"cls"`
}

type wordPieceDecoderConfig struct {
	Prefix  *string `json:"prefix"`
	Cleanup *bool   `json:"cleanup"`
}

type paddingConfig struct {
	PadID    *int32 `json:"pad_id"`
	PadToken string `json:"pad_token"`
}

// Load reads a Hugging Face tokenizer.json file; see Parse.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return t, nil
}

// Parse builds a Tokenizer from the contents of a Hugging Face tokenizer.json. The model must
// be WordPiece; the normalizer, if any, BertNormalizer; the pre-tokenizer, if any,
// BertPreTokenizer; the post-processor, if any, TemplateProcessing or BertProcessing; the
// decoder, if any, WordPiece. Any other type is rejected with an error naming it. The file's
// truncation and padding sections are not applied (see the package documentation).
func Parse(data []byte) (*Tokenizer, error) {
	var fc fileConfig
	if err := json.Unmarshal(data, &fc); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	t := &Tokenizer{}
	var errs []error
	if err := t.parseModel(fc.Model); err != nil {
		// Everything after this needs the vocabulary.
		return nil, fmt.Errorf("model: %w", err)
	}
	if err := t.parseNormalizer(fc.Normalizer); err != nil {
		errs = append(errs, fmt.Errorf("normalizer: %w", err))
	}
	if err := t.parsePreTokenizer(fc.PreTokenizer); err != nil {
		errs = append(errs, fmt.Errorf("pre_tokenizer: %w", err))
	}
	if err := t.parseAddedTokens(fc.AddedTokens); err != nil {
		errs = append(errs, fmt.Errorf("added_tokens: %w", err))
	}
	if err := t.parsePostProcessor(fc.PostProcessor); err != nil {
		errs = append(errs, fmt.Errorf("post_processor: %w", err))
	}
	if err := t.parseDecoder(fc.Decoder); err != nil {
		errs = append(errs, fmt.Errorf("decoder: %w", err))
	}
	if err := t.parsePadding(fc.Padding); err != nil {
		errs = append(errs, fmt.Errorf("padding: %w", err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	t.vocabSize = len(t.model.vocab)
	for _, at := range t.added.byID {
		if _, ok := t.model.vocab[at.content]; !ok {
			t.vocabSize++
		}
	}
	return t, nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

func sectionType(raw json.RawMessage) (string, error) {
	var ty typed
	if err := json.Unmarshal(raw, &ty); err != nil {
		return "", err
	}
	return ty.Type, nil
}

func (t *Tokenizer) parseModel(raw json.RawMessage) error {
	if isNull(raw) {
		return errors.New("missing")
	}
	// Read the type before the rest: other models have other shapes.
	var head struct {
		Type                    string          `json:"type"`
		ContinuingSubwordPrefix json.RawMessage `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    json.RawMessage `json:"max_input_chars_per_word"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return err
	}
	// Old files omit the model type; a WordPiece model is then recognised by its fields.
	if head.Type != "WordPiece" && (head.Type != "" || head.ContinuingSubwordPrefix == nil || head.MaxInputCharsPerWord == nil) {
		name := head.Type
		if name == "" {
			name = "(untyped)"
		}
		return fmt.Errorf("unsupported model type %q: only WordPiece is supported", name)
	}
	var mc wordPieceConfig
	if err := json.Unmarshal(raw, &mc); err != nil {
		return err
	}
	if len(mc.Vocab) == 0 {
		return errors.New("empty vocabulary")
	}
	m := wordPieceModel{
		vocab:    mc.Vocab,
		unk:      "[UNK]",
		prefix:   "##",
		maxChars: 100,
	}
	if mc.UnkToken != nil {
		m.unk = *mc.UnkToken
	}
	if mc.ContinuingSubwordPrefix != nil {
		m.prefix = *mc.ContinuingSubwordPrefix
	}
	if mc.MaxInputCharsPerWord != nil {
		if *mc.MaxInputCharsPerWord < 0 {
			return fmt.Errorf("max_input_chars_per_word %d is negative", *mc.MaxInputCharsPerWord)
		}
		m.maxChars = *mc.MaxInputCharsPerWord
	}
	unk, ok := m.vocab[m.unk]
	if !ok {
		return fmt.Errorf("unk_token %q is not in the vocabulary", m.unk)
	}
	m.unkID = unk
	maxID := int32(-1)
	for tok, id := range m.vocab {
		if id < 0 {
			return fmt.Errorf("token %q has negative id %d", tok, id)
		}
		maxID = max(maxID, id)
	}
	m.idToToken = make([]string, int(maxID)+1)
	// Iterate in a fixed order so that a vocabulary with two tokens for one id always
	// decodes that id the same way.
	keys := make([]string, 0, len(m.vocab))
	for tok := range m.vocab {
		keys = append(keys, tok)
	}
	sort.Strings(keys)
	for _, tok := range keys {
		id := m.vocab[tok]
		if m.idToToken[id] == "" {
			m.idToToken[id] = tok
		}
		if strings.HasPrefix(tok, m.prefix) {
			m.maxContLen = max(m.maxContLen, len(tok)-len(m.prefix))
		}
		m.maxWordLen = max(m.maxWordLen, len(tok))
	}
	t.model = m
	return nil
}

func (t *Tokenizer) parseNormalizer(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	ty, err := sectionType(raw)
	if err != nil {
		return err
	}
	if ty != "BertNormalizer" {
		return fmt.Errorf("unsupported normalizer type %q: only BertNormalizer is supported", ty)
	}
	var nc bertNormalizerConfig
	if err := json.Unmarshal(raw, &nc); err != nil {
		return err
	}
	// Defaults as in the Hugging Face BertNormalizer; strip_accents unset follows lowercase.
	n := &bertNormalizer{cleanText: true, handleChinese: true, lowercase: true}
	if nc.CleanText != nil {
		n.cleanText = *nc.CleanText
	}
	if nc.HandleChineseChars != nil {
		n.handleChinese = *nc.HandleChineseChars
	}
	if nc.Lowercase != nil {
		n.lowercase = *nc.Lowercase
	}
	n.stripAccents = n.lowercase
	if nc.StripAccents != nil {
		n.stripAccents = *nc.StripAccents
	}
	t.normalizer = n
	return nil
}

func (t *Tokenizer) parsePreTokenizer(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	ty, err := sectionType(raw)
	if err != nil {
		return err
	}
	if ty != "BertPreTokenizer" {
		return fmt.Errorf("unsupported pre-tokenizer type %q: only BertPreTokenizer is supported", ty)
	}
	t.bertPreTokenizer = true
	return nil
}

func (t *Tokenizer) parseAddedTokens(list []addedTokenConfig) error {
	var specs []addedToken
	for i, at := range list {
		if at.Content == "" {
			// Hugging Face ignores empty added tokens.
			continue
		}
		id, ok := t.model.vocab[at.Content]
		if !ok {
			id = at.ID
		}
		if id < 0 {
			return fmt.Errorf("entry %d (%q): negative id %d", i, at.Content, id)
		}
		normalized := !at.Special
		if at.Normalized != nil {
			normalized = *at.Normalized
		}
		specs = append(specs, addedToken{
			id:         id,
			content:    at.Content,
			singleWord: at.SingleWord,
			lstrip:     at.LStrip,
			rstrip:     at.RStrip,
			normalized: normalized,
			special:    at.Special,
		})
	}
	t.added = newAddedVocab(specs, t.normalizeForPattern)
	return nil
}

func (t *Tokenizer) parsePostProcessor(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	ty, err := sectionType(raw)
	if err != nil {
		return err
	}
	switch ty {
	case "TemplateProcessing":
		var tc templateConfig
		if err := json.Unmarshal(raw, &tc); err != nil {
			return err
		}
		return t.buildTemplate(tc)
	case "BertProcessing":
		var bc bertProcessingConfig
		if err := json.Unmarshal(raw, &bc); err != nil {
			return err
		}
		cls, clsID, err := tokenIDPair(bc.CLS)
		if err != nil {
			return fmt.Errorf("cls: %w", err)
		}
		sep, sepID, err := tokenIDPair(bc.Sep)
		if err != nil {
			return fmt.Errorf("sep: %w", err)
		}
		t.template = []templateItem{
			{special: true, ids: []int32{clsID}, tokens: []string{cls}},
			{},
			{special: true, ids: []int32{sepID}, tokens: []string{sep}},
		}
		t.nSpecial = 2
		return nil
	default:
		return fmt.Errorf("unsupported post-processor type %q: only TemplateProcessing and BertProcessing are supported", ty)
	}
}

func tokenIDPair(pair [2]json.RawMessage) (string, int32, error) {
	var tok string
	var id int32
	if err := json.Unmarshal(pair[0], &tok); err != nil {
		return "", 0, fmt.Errorf("token: %w", err)
	}
	if err := json.Unmarshal(pair[1], &id); err != nil {
		return "", 0, fmt.Errorf("id: %w", err)
	}
	return tok, id, nil
}

func (t *Tokenizer) buildTemplate(tc templateConfig) error {
	if len(tc.Single) == 0 {
		return errors.New("TemplateProcessing has an empty single template")
	}
	var items []templateItem
	seqs := 0
	for i, p := range tc.Single {
		switch {
		case p.SpecialToken != nil:
			st, ok := tc.SpecialTokens[p.SpecialToken.ID]
			if !ok {
				return fmt.Errorf("single template piece %d: special token %q missing from special_tokens", i, p.SpecialToken.ID)
			}
			if len(st.IDs) != len(st.Tokens) {
				return fmt.Errorf("special token %q: %d ids but %d tokens", p.SpecialToken.ID, len(st.IDs), len(st.Tokens))
			}
			items = append(items, templateItem{special: true, ids: st.IDs, tokens: st.Tokens, typeID: p.SpecialToken.TypeID})
			t.nSpecial += len(st.IDs)
		case p.Sequence != nil:
			if p.Sequence.ID != "A" {
				return fmt.Errorf("single template piece %d: sequence %q (a single text has only sequence A)", i, p.Sequence.ID)
			}
			items = append(items, templateItem{typeID: p.Sequence.TypeID})
			seqs++
		default:
			return fmt.Errorf("single template piece %d: neither SpecialToken nor Sequence", i)
		}
	}
	if seqs != 1 {
		return fmt.Errorf("single template has %d sequence pieces, want 1", seqs)
	}
	t.template = items
	return nil
}

func (t *Tokenizer) parseDecoder(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	ty, err := sectionType(raw)
	if err != nil {
		return err
	}
	if ty != "WordPiece" {
		return fmt.Errorf("unsupported decoder type %q: only WordPiece is supported", ty)
	}
	var dc wordPieceDecoderConfig
	if err := json.Unmarshal(raw, &dc); err != nil {
		return err
	}
	d := &wordPieceDecoder{prefix: "##", cleanup: true}
	if dc.Prefix != nil {
		d.prefix = *dc.Prefix
	}
	if dc.Cleanup != nil {
		d.cleanup = *dc.Cleanup
	}
	t.decoder = d
	return nil
}

func (t *Tokenizer) parsePadding(raw json.RawMessage) error {
	if !isNull(raw) {
		var pc paddingConfig
		if err := json.Unmarshal(raw, &pc); err != nil {
			return err
		}
		if pc.PadID != nil {
			t.padID = *pc.PadID
			return nil
		}
		if id, ok := t.tokenID(pc.PadToken); ok && pc.PadToken != "" {
			t.padID = id
			return nil
		}
	}
	if id, ok := t.tokenID("[PAD]"); ok {
		t.padID = id
	}
	return nil
}
