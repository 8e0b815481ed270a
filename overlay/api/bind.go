package api

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// ErrOpenBind: an API without a token may only listen on a loopback address.
var ErrOpenBind = errors.New("refusing to serve without a token on a non-loopback address")

// CheckBind reports whether the API may listen on addr ("host:port"): with a token,
// anywhere; without one, only on a loopback address (127.0.0.0/8, ::1 or localhost),
// since anyone who can reach the port could read and change every user's memory. An
// empty host ("":8088") means every interface and is refused without a token.
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

// IsLoopback reports whether host (an IP address or "localhost") is a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
