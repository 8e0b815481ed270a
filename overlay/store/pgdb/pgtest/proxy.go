package pgtest

import (
	"io"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to the test server, so that a test can cut the
// database away from a store mid-request, as a failing network or a server restart
// would, and bring it back. Safe for concurrent use.
type Proxy struct {
	ln      net.Listener
	network string // of the server: "unix" or "tcp"
	addr    string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// NewProxy starts a proxy to the server of url (a URL from URL) and returns it with the
// URL that reaches the same database through it. It stops when t ends.
func NewProxy(t testing.TB, rawURL string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{conns: map[net.Conn]bool{}}
	q := u.Query()
	if dir := q.Get("host"); dir != "" && filepath.IsAbs(dir) {
		port := u.Port()
		if port == "" {
			port = q.Get("port")
		}
		if port == "" {
			port = "5432"
		}
		p.network, p.addr = "unix", filepath.Join(dir, ".s.PGSQL."+port)
		q.Del("host")
		q.Del("port")
	} else {
		host, port := u.Hostname(), u.Port()
		if port == "" {
			port = "5432"
		}
		p.network, p.addr = "tcp", net.JoinHostPort(host, port)
	}
	if p.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	u.Host = p.ln.Addr().String()
	u.RawQuery = q.Encode()
	return p, u.String()
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		s, err := net.Dial(p.network, p.addr)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[s] = true, true
		p.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			io.Copy(dst, src)
			dst.Close()
			src.Close()
		}
		p.wg.Go(func() { pipe(s, c) })
		p.wg.Go(func() { pipe(c, s) })
	}
}

// Cut closes every open connection and refuses new ones until Restore: to the store,
// the database is gone.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

func (p *Proxy) close() {
	p.ln.Close()
	p.Cut()
	p.wg.Wait()
}
