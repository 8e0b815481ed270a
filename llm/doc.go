// Package llm is the OpenAI-compatible chat client that the judge, GRPO and
// the overlay use to reach a language model: vLLM, Ollama, llama.cpp's
// llama-server or a hosted API, all through POST {BaseURL}/chat/completions
// (non-streaming) and GET {BaseURL}/models.
//
// # Use
//
//	c, err := llm.New(llm.Config{
//		BaseURL: "http://localhost:8000/v1", // from ATMA_LLM_URL, read by the CLI
//		Model:   "Qwen/Qwen2.5-1.5B-Instruct",
//		APIKey:  key,
//	})
//	...
//	resp, err := c.Chat(ctx, llm.Request{
//		Messages:    []llm.Message{{Role: "user", Content: "2+2?"}},
//		N:           8,
//		Temperature: &temp,
//		Seed:        &seed,
//		Logprobs:    true,
//		TopLogprobs: 5,
//	})
//	switch {
//	case errors.Is(err, llm.ErrModelNotFound):
//		names, _ := c.Models(ctx) // tell the user what would have worked
//	case errors.Is(err, llm.ErrContextLength):
//		// shorten the prompt; retrying cannot help
//	}
//
// A Client is safe for concurrent use. Config.Concurrency bounds the HTTP
// requests it has in flight across all calls; a request waiting out a
// backoff does not hold a slot. Every call takes a context and stops when it
// is cancelled, including while waiting for a slot or a retry.
//
// # Server quirks
//
// Chat always returns exactly Request.N choices, however the server treats n:
//
//	Server        Behaviour                                   What the client does
//	------------  ------------------------------------------  -------------------------------------------
//	vLLM, OpenAI  honours n                                   one request
//	Ollama        ignores n, always one choice                issues the missing requests (concurrently)
//	llama-server  n above its slot count (-np) is a 400:      halves n until accepted, then splits the rest
//	              "n_cmpl cannot be greater than the          into requests of that size
//	              number of slots, please increase -np", or
//	              since late 2025 "Field 'n': Value must be
//	              between 1 <= value <= 4, but got 8"
//	any           fewer choices than asked, no error          treats the count returned as the server's cap
//	any           logprobs as chat-style content[] or as      one form: []TokenLogprob with Top
//	              legacy tokens/token_logprobs/top_logprobs
//	              arrays (top_logprobs as maps)
//	llama-server  usage counts one choice of a many-choice    Response.Counted counts tokens from logprobs
//	              response
//	Ollama        usage per request, prompt each time         Usage sums what servers said; Counted has the
//	                                                          prompt once
//	hosted        max_tokens refused in favour of             resends with max_completion_tokens
//	              max_completion_tokens
//	llama-server  context overflow as HTTP 500, or as HTTP    ErrContextLength, never retried
//	              200 with only an error object
//
// What the client learns (the largest n per request, max_completion_tokens)
// is kept for the Client's lifetime, so only the first call pays for
// probing. When a request is split, the sub-request whose first choice is
// choice k carries seed Seed+k: split choices are not copies of one another,
// and a given seed yields the same requests whether or not the limit was
// already known. (A server that honours n with one seed decides itself how
// its choices differ.)
//
// # Errors and retries
//
// A non-2xx answer is an *APIError carrying the status, the error body's
// type, code and message in whichever shape the server uses (OpenAI
// {"error":{...}}, vLLM {"object":"error",...}, Ollama {"error":"..."},
// FastAPI {"detail":...}) and the start of the body. It unwraps to a sentinel
// when one applies: ErrModelNotFound (404, or a body saying the model is not
// found or does not exist; a 404 that names no model is a wrong base URL and
// says so), ErrContextLength (OpenAI's context_length_exceeded, vLLM's
// "maximum context length" and "maximum model length", llama-server's
// exceed_context_size_error, Ollama's "exceeds the context length") and
// ErrBadResponse (an HTML page or other non-JSON body). A 2xx answer that is
// not a usable completion (HTML, truncated JSON, no choices, a choice with no
// message, logprobs asked for and missing) is ErrBadResponse, with what was
// wrong and the first 200 bytes. ErrUnreachable and ErrTimeout report
// failures to get any complete response.
//
// 429, 408, 5xx, connection errors and per-attempt timeouts are retried up to
// Config.MaxRetries times with exponential backoff (0.5 s doubling to
// Config.MaxBackoff, half of each wait random). A Retry-After or
// Retry-After-Ms header is honoured, plus up to 10% jitter, unless it asks
// for more than Config.MaxRetryAfter, in which case the error is returned at
// once. Other 4xx answers, context-length errors in any status, 429s for an
// exhausted quota and malformed 2xx bodies are not retried. The jitter comes
// from Config.Rand, so a seeded client waits the same way every run.
//
// # Why a hand-written client
//
// The official github.com/openai/openai-go/v3 was considered and not used,
// for four concrete reasons:
//
//   - Its ChatCompletion types model only chat-style logprobs. The legacy
//     arrays some servers send, the server-specific error shapes (vLLM's
//     top-level {"object":"error"}, Ollama's string error, integer codes from
//     vLLM and llama-server) and the 200-with-only-an-error body would all
//     have to be dug out of raw JSON, and its decoder accepts a body without
//     choices as an empty completion; the decoder that says what was wrong,
//     and that is fuzzed, has to be ours either way.
//   - Its retry loop draws jitter from the global math/rand (not injectable),
//     retries 409 and whatever x-should-retry says, and cannot skip
//     context-length 500s or quota 429s; it would be switched off
//     (option.WithMaxRetries(0)) and rebuilt, together with the semaphore.
//   - The n splitting and max_tokens fallback sit above any client and need
//     the classified errors above.
//   - Its module pulls the Azure and AWS SDKs, a websocket library and
//     gjson/sjson into the module graph for two endpoints that take some
//     four hundred lines of net/http and encoding/json.
//
// The request and response shapes follow the OpenAI API reference, so the
// server sees the same requests a stock client sends. Streaming is not
// implemented: every caller here wants whole completions.
package llm
