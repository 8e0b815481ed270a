package data

import (
	"embed"
	"slices"
)

//go:embed schema/*.schema.json
var schemaFS embed.FS

func mustSchema(name string) []byte {
	b, err := schemaFS.ReadFile("schema/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return slices.Clone(b)
}

// ProfileSchema returns the JSON Schema (draft 2020-12) of one profile record.
func ProfileSchema() []byte { return mustSchema("profile.schema.json") }

// InteractionSchema returns the JSON Schema (draft 2020-12) of one interaction record.
func InteractionSchema() []byte { return mustSchema("interaction.schema.json") }
