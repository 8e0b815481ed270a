package api

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the committed OpenAPI document of the API; a test checks it describes
// exactly the routes served.
//
//go:embed openapi.json
var openAPIDoc []byte

func (s *server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(openAPIDoc)
	return nil
}
