// Package api serves an overlay over HTTP: a JSON API for applications and a set of
// OpenAI function-calling tools for agents that use the overlay as their memory.
//
// # Routes
//
//	POST   /v1/users/{user}/memories      add a batch of memories → one ingest trace each
//	GET    /v1/users/{user}/records       list records (?status=&slot=&limit=&cursor=)
//	GET    /v1/users/{user}/records/{id}  one record with its links and version history
//	DELETE /v1/users/{user}/records/{id}  delete a record (bank, links and every index)
//	DELETE /v1/users/{user}               delete all of a user's data
//	POST   /v1/users/{user}/query         the labelled evidence packet (mode packet|answer)
//	GET    /v1/users/{user}/traces/{id}   an ingest or query trace
//	GET    /v1/tools                      the agent tools as OpenAI tool definitions
//	POST   /v1/users/{user}/tools/call    execute one tool call
//	GET    /healthz                       liveness and the bank's answer (no token)
//	GET    /metrics                       Prometheus text format (with Config.Pool also the pool, atma_db_pool_*)
//	GET    /openapi.json                  the OpenAPI 3.1 document (no token)
//
// The OpenAPI document is committed next to this file (openapi.json) and embedded; a
// test keeps it and the routes in step.
//
// # Users, writes and errors
//
// Every data route names its user in the path, and every overlay call the handler makes
// is scoped to that user: no request for one user reads or changes another's records.
// Reads of a user without records answer 404 unknown_user; the first add creates the
// user. Writes of one user are serialised by the overlay (requests queue; none is
// lost), different users proceed in parallel. A batch is checked whole before anything
// is written; if an ingest fails midway, the memories before it stay committed and the
// error lists them. A write the server accepted runs to its end even if the client
// goes away.
//
// Errors are JSON, {"error": {"code": "invalid_input", "message": "…"}}, with 400
// (invalid_input, invalid_json, unknown_field: bodies are decoded strictly), 401, 404,
// 405, 409 (a commit that would break a bank invariant), 413 (body over
// Config.MaxBodyBytes), 415 (a body that is not application/json), 500 (details only in
// the log) and 503 (more than Config.MaxInFlight requests at once, with Retry-After; a
// passed deadline; a bank that does not answer the health check; a bank database that
// cannot be reached or whose connection was lost — PostgreSQL down or restarting, the
// write that failed committed nothing — or that gave up a transaction, or whose
// connection pool had no connection free within its acquire timeout, with
// Retry-After; bank_damaged: the bank
// file failed SQLite's integrity check — run at start-up, quick — or a statement found a
// malformed page, and every write is refused until the file is restored, while /healthz
// answers 503 with the same code). A Judge endpoint that
// is down is not an error: the LLM auditor falls back to the rule auditor and the
// ingest trace says why.
//
// # Authentication
//
// With Config.Token set, every route but /healthz and /openapi.json needs
// "Authorization: Bearer <token>", compared in constant time. Without a token the API
// is open, so it must listen on a loopback address only: CheckBind says whether an
// address is allowed, and `atma overlay serve` refuses any other.
//
// # Agent tools
//
// GET /v1/tools serves the memory operations as OpenAI tool definitions (pass them as
// a chat request's "tools"); POST /v1/users/{user}/tools/call executes the tool call the
// model made, as the chat completion returned it, and answers with the tool message to
// append. The tools:
//
//	memory_add              a new memory, through the commit path
//	memory_update           a new value for a record (by id) or a slot (by key): stored as
//	                        a new memory that the commit path reconciles with the old one
//	                        — the Judge, not the agent, decides whether it replaces it;
//	                        the result lists the targets replaced and those kept current
//	memory_delete           delete a record for good
//	memory_get              by slot key (current value and history) or by id
//	memory_list             a page of records, by status or key
//	memory_search_lexical   BM25 full-text search over the user's records
//	memory_search_semantic  the host memory's hybrid hits (embedding + full text), before
//	                        any state reasoning
//	memory_query            the state-aware query: labelled evidence (and an answer)
//
// Mistakes a model can correct (an unknown tool, bad arguments, no such record) come
// back as the tool's content with is_error set and status 200, so the agent loop can
// hand them to the model; server failures are HTTP errors.
package api
