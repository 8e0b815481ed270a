package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/atma-dev/atma/grpo/grpotest"
	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/judge/eval"
)

func TestWriteDataset(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteDataset(&buf, []eval.Item{grpotest.ItemJob, grpotest.ItemDiet, grpotest.ItemHobby}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d rows", len(lines))
	}
	var row DatasetRow
	if err := reward.DecodeStrict(strings.NewReader(lines[1]), &row); err != nil {
		t.Fatal(err)
	}
	l, err := reward.ParseLabel([]byte(`"` + strings.ReplaceAll(row.Label, `"`, `\"`) + `"`))
	if err != nil || l != reward.LabelFor(grpotest.ItemDiet) || row.DataSource != DataSource || row.ExtraInfo.Prompt != promptOf(grpotest.ItemDiet) || len(row.Messages) != 2 {
		t.Errorf("row %+v, label %+v, %v", row, l, err)
	}
}
