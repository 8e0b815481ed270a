package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/apikey"
)

// mcpInstructions tell an MCP client what the tools are and what the labels mean.
const mcpInstructions = `atma is a state-aware memory: memories are kept with their state.
Resources atma://state/{slot} ("atma://state/user/home") hold what is current for a slot.
memory_query answers "where do I live now?"-style questions with an evidence packet whose
rows are labelled: "current memory" holds now; "historical memory" was true and was
replaced (use it only for questions about the past); "transition memory" records a change
(old -> new); "transition linked memory" is one side of a recorded change; "retrieved
memory" is related but carries no state. Follow the state the question asks for: current
unless it asks about the past. memory_add stores one self-contained statement; the bank
decides what it replaces. Slot keys look like "user/home" or "sister/job".`

// mcpCaller is whom an MCP request acts for: the bank's user and the principal that
// authenticated the request.
type mcpCaller struct {
	user string
	p    principal
}

type mcpCallerKey struct{}

// errNoMCPCaller is the answer of the HTTP endpoint's MCP server to a request that did
// not come through mcp, which names its caller: nothing is done for nobody.
var errNoMCPCaller = errors.New("mcp: the request names no user")

// newMCP is a Model Context Protocol server whose tools are the agent tools (Tools),
// every one acting for the caller of its request alone: the user comes from the path,
// the API key or the configuration, never from a tool argument. A principal without the
// write scope cannot call the tools that write. The server is built once and serves
// every request; it is safe for concurrent use.
func (s *server) newMCP(callerOf func(context.Context) (mcpCaller, error)) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "atma", Version: "1"}, &mcp.ServerOptions{Instructions: mcpInstructions, Logger: s.log})
	for _, spec := range toolSpecs {
		name := spec.name
		srv.AddTool(&mcp.Tool{Name: name, Description: spec.description, InputSchema: spec.params}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := func(s string, isErr bool) *mcp.CallToolResult {
				return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
			}
			c, err := callerOf(ctx)
			if err != nil {
				return nil, err
			}
			if writeTools[name] {
				if err := c.p.allow(apikey.ScopeWrite); err != nil {
					return text(err.Error(), true), nil
				}
			}
			out, err := s.runTool(ctx, c.user, name, req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			s.metrics.toolCall(name, map[bool]string{true: "error", false: "ok"}[out.isError])
			return text(out.content, out.isError), nil
		})
	}
	// The user's current state, one resource per slot key: atma://state/user/home is
	// what holds now for "user/home" (its current records, as memory_get by key).
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "current state", URITemplate: "atma://state/{+slot}", MIMEType: "application/json",
		Description: "What holds now for a slot key (\"user/home\", \"sister/job\"): its current records."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			slot, ok := strings.CutPrefix(req.Params.URI, "atma://state/")
			if !ok || slot == "" {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			c, err := callerOf(ctx)
			if err != nil {
				return nil, err
			}
			recs, err := s.currentOf(ctx, c.user, slot)
			if err != nil {
				return nil, err
			}
			if len(recs) == 0 {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			out := make([]toolRecord, len(recs))
			for i, r := range recs {
				out[i] = toolRecordOf(r)
			}
			b, err := json.Marshal(out)
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
		})
	return srv
}

// mcpHandler serves MCP's streamable HTTP transport at POST /v1/users/{user}/mcp,
// stateless, answering in JSON: each request is one exchange, so nothing of a session
// outlives it and the route's authentication covers it whole. One MCP server serves
// every request; mcp puts each request's caller in its context, which the SDK hands on
// to the tool and resource handlers.
func (s *server) mcpHandler() http.Handler {
	srv := s.newMCP(func(ctx context.Context) (mcpCaller, error) {
		c, ok := ctx.Value(mcpCallerKey{}).(mcpCaller)
		if !ok {
			return mcpCaller{}, errNoMCPCaller
		}
		return c, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// mcpOwnUser serves POST /mcp, the endpoint MCP clients are usually pointed at: its user
// is the one the API key is bound to (a key naming exactly one user), so that nothing in
// the request names a user at all.
func (s *server) mcpOwnUser(w http.ResponseWriter, r *http.Request) error {
	k := principalOf(r).key
	if k == nil || len(k.Users) != 1 {
		return badRequest(errors.New("POST /mcp serves the user of an API key bound to one user (atma overlay keys create --users U); with the token or another key, name the user: POST /v1/users/{user}/mcp"))
	}
	r = r.Clone(r.Context())
	r.SetPathValue("user", k.Users[0])
	return s.mcp(w, r)
}

func (s *server) mcp(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	c := mcpCaller{user: user, p: principalOf(r)}
	s.mcpHTTP.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), mcpCallerKey{}, c)))
	return nil
}

// NewMCP returns the MCP server of ov for one user, for a client that talks to it over
// stdio (`atma overlay mcp -u alice`): the same tools as the HTTP API's, acting for user.
func NewMCP(ov *overlay.Overlay, user string, logger *slog.Logger) (*mcp.Server, error) {
	if logger == nil {
		logger = slog.Default()
	}
	h, err := New(Config{Overlay: ov, Logger: logger})
	if err != nil {
		return nil, err
	}
	c := mcpCaller{user: user}
	return h.(*server).newMCP(func(context.Context) (mcpCaller, error) { return c, nil }), nil
}
