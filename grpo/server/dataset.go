package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
	"github.com/atma-dev/atma/llm"
)

// DataSource is the data_source column of exported datasets (verl routes rewards by it).
const DataSource = "atma/judge"

// DatasetRow is one training prompt for an external trainer, as WriteDataset writes it.
// One file serves all three recipes in scripts/grpo:
//
//   - OpenRLHF: --data.input_key messages --data.apply_chat_template --data.label_key label
//   - TRL: the script renames messages to prompt; label reaches the reward function as a
//     keyword argument
//   - verl: the script converts it to parquet with prompt = messages,
//     reward_model.ground_truth = label, data_source and extra_info as they are
//
// Label is the JSON of the item's Label as a string, so that every engine carries it as
// text and the reward server decodes it (ParseLabel).
type DatasetRow struct {
	ID         string        `json:"id"`
	Messages   []llm.Message `json:"messages"`
	Label      string        `json:"label"`
	DataSource string        `json:"data_source"`
	ExtraInfo  ExtraInfo     `json:"extra_info"`
}

// ExtraInfo is verl's extra_info column: the item ID and the prompt text, which the verl
// reward function forwards for the echo term.
type ExtraInfo struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
}

// DatasetRowFor is the row of one item.
func DatasetRowFor(it eval.Item) (DatasetRow, error) {
	label, err := json.Marshal(reward.LabelFor(it))
	if err != nil {
		return DatasetRow{}, fmt.Errorf("encode label of %s: %w", it.ID, err)
	}
	msgs := judge.Messages(it.Pair)
	return DatasetRow{
		ID: it.ID, Messages: msgs, Label: string(label), DataSource: DataSource,
		ExtraInfo: ExtraInfo{ID: it.ID, Prompt: reward.PromptText(msgs)},
	}, nil
}

// WriteDataset writes one DatasetRow per item as JSON lines.
func WriteDataset(w io.Writer, items []eval.Item) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		row, err := DatasetRowFor(it)
		if err != nil {
			return err
		}
		if err := enc.Encode(row); err != nil {
			return fmt.Errorf("write dataset row %s: %w", it.ID, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	return nil
}
