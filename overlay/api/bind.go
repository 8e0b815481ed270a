package api

import "github.com/atma-dev/atma/internal/httpauth"

// ErrOpenBind: an API without a token may only listen on a loopback address.
var ErrOpenBind = httpauth.ErrOpenBind

// CheckBind reports whether the API may listen on addr ("host:port"): with a token,
// anywhere; without one, only on a loopback address (127.0.0.0/8, ::1 or localhost),
// since anyone who can reach the port could read and change every user's memory. An
// empty host ("":8088") means every interface and is refused without a token.
func CheckBind(addr, token string) error { return httpauth.CheckBind(addr, token) }
