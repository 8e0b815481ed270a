// Package httpauth is the bearer-token check and the bind rule shared by atma's HTTP
// servers (the overlay API, the reward server): one token compared in constant time,
// and no server without a token on an address other machines can reach.
package httpauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// MinTokenBytes is the shortest token a server accepts.
const MinTokenBytes = 16

// Errors of Bearer.Check.
var (
	ErrMissingToken = errors.New(`missing bearer token: send "Authorization: Bearer <token>"`)
	ErrWrongToken   = errors.New("wrong bearer token")
)

// ErrOpenBind: a server without a token may only listen on a loopback address.
var ErrOpenBind = errors.New("refusing to serve without a token on a non-loopback address")

// ValidateToken reports a token that cannot be sent in a header or is too short to be
// secret; "" (no token) is valid.
func ValidateToken(token string) error {
	switch {
	case token == "":
		return nil
	case strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return errors.New("token has spaces or control characters")
	case len(token) < MinTokenBytes:
		return fmt.Errorf("token is %d bytes, fewer than %d: anyone who guesses it gets in; make one with `openssl rand -hex 32`", len(token), MinTokenBytes)
	}
	return nil
}

// Bearer checks an "Authorization: Bearer <token>" header. The zero value lets every
// request through (no token configured). Safe for concurrent use.
type Bearer struct {
	hash [sha256.Size]byte
	set  bool
}

// NewBearer returns the check for token ("" lets every request through).
func NewBearer(token string) Bearer {
	if token == "" {
		return Bearer{}
	}
	return Bearer{hash: sha256.Sum256([]byte(token)), set: true}
}

// Check returns nil when r carries the token, else ErrMissingToken or ErrWrongToken.
// It compares the tokens' hashes in constant time, so neither the token nor its length
// leaks through timing.
func (b Bearer) Check(r *http.Request) error {
	if !b.set {
		return nil
	}
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") {
		return ErrMissingToken
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	if subtle.ConstantTimeCompare(got[:], b.hash[:]) != 1 {
		return ErrWrongToken
	}
	return nil
}

// CheckBind reports whether a server may listen on addr ("host:port"): with a token,
// anywhere; without one, only on a loopback address (127.0.0.0/8, ::1 or localhost). An
// empty host (":8088") means every interface and is refused without a token.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if token != "" || IsLoopback(host) {
		return nil
	}
	return fmt.Errorf("%w: %q is reachable from other machines; set a token or listen on 127.0.0.1", ErrOpenBind, addr)
}

// CheckBound is CheckBind for the address a listener got: a host name that passed
// CheckBind must still have bound to a loopback address.
func CheckBound(a net.Addr, token string) error {
	if tcp, ok := a.(*net.TCPAddr); ok && token == "" && !tcp.IP.IsLoopback() {
		return fmt.Errorf("%w: bound to %s; set a token", ErrOpenBind, tcp.IP)
	}
	return nil
}

// IsLoopback reports whether host (an IP address or "localhost") is a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
