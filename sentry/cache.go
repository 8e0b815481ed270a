package sentry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/atma-dev/atma/sentry/safetensors"
)

// Embedder turns texts into backbone embeddings; *onnx.Encoder is one.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

var _ Embedder = (*Cache)(nil)

// CacheConfig says where a Cache keeps its file and what its vectors depend on.
type CacheConfig struct {
	// Dir holds one file per Key. Required.
	Dir string
	// Key identifies everything that determines the vectors: at least the backbone model's
	// sha256, plus the output dimension and task prefix when those are configurable. Texts
	// are looked up under Key + the text's sha256. Required.
	Key string
	// Logger reports corrupt entries and rebuilt files; nil means slog.Default().
	Logger *slog.Logger
}

// CacheStats counts what a Cache did since it was opened.
type CacheStats struct {
	Hits     int // texts served from the file
	Misses   int // texts sent to the embedder
	Corrupt  int // entries that failed their checksum and were recomputed
	Appended int // entries written
}

// Cache is an Embedder that computes each distinct text's embedding once and keeps it in an
// append-only file, dir/<sha256(key)[:32]>.embcache:
//
//	header:  "ATMAEMB1" | dim uint32 LE | CRC-32C of the other 44 bytes | sha256(key) — 48 bytes
//	record:  sha256(text) (32 bytes) | dim float32 LE | CRC-32C of the preceding bytes
//
// Records have a fixed size, so a damaged one (checksum mismatch) is skipped, its text
// recomputed and appended again; a partial record left by a crash is cut off before the next
// append; a damaged header makes the file start over. Appends hold an exclusive file lock
// (flock) and reads pick up records other processes appended, so several processes may
// share a file. A Cache is safe for concurrent use.
type Cache struct {
	inner Embedder
	path  string
	key   [32]byte
	log   *slog.Logger

	mu      sync.Mutex
	f       *os.File
	dim     int                // 0 until the file has a header
	index   map[[32]byte]int64 // text hash → record offset
	scanned int64              // file bytes indexed so far
	stats   CacheStats
}

const (
	cacheMagic     = "ATMAEMB1"
	cacheHeaderLen = 48
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// OpenCache opens (or creates) the cache file for cfg.Key and indexes it.
func OpenCache(cfg CacheConfig, inner Embedder) (*Cache, error) {
	if cfg.Dir == "" || cfg.Key == "" {
		return nil, errors.New("open embedding cache: directory and key are required")
	}
	if inner == nil {
		return nil, errors.New("open embedding cache: no embedder")
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	c := &Cache{inner: inner, key: sha256.Sum256([]byte(cfg.Key)), log: cfg.Logger, index: map[[32]byte]int64{}}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.path = filepath.Join(cfg.Dir, hex.EncodeToString(c.key[:16])+".embcache")
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	c.f = f
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.withLock(false, c.refresh); err != nil {
		f.Close()
		return nil, fmt.Errorf("open embedding cache %s: %w", c.path, err)
	}
	return c, nil
}

// Path is the cache file.
func (c *Cache) Path() string { return c.path }

// Stats returns the counters since OpenCache.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Close closes the file.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

func (c *Cache) withLock(exclusive bool, fn func() error) error {
	if err := lockFile(c.f, exclusive); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer unlockFile(c.f)
	return fn()
}

func (c *Cache) recordLen() int64 { return int64(32 + 4*c.dim + 4) }

// refresh reads the header if needed and indexes records appended since the last scan.
// The caller holds c.mu and a file lock.
func (c *Cache) refresh() error {
	st, err := c.f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size < c.scanned { // emptied by another process: start over
		clear(c.index)
		c.dim, c.scanned = 0, 0
	}
	if c.dim == 0 {
		if size == 0 {
			return nil
		}
		if err := c.readHeader(size); err != nil {
			return err
		}
		if c.dim == 0 { // the damaged file was emptied
			return nil
		}
	}
	rl := c.recordLen()
	n := (size - c.scanned) / rl
	if n <= 0 {
		return nil
	}
	buf := make([]byte, n*rl)
	if _, err := c.f.ReadAt(buf, c.scanned); err != nil {
		return fmt.Errorf("read records: %w", err)
	}
	for i := range n {
		rec := buf[i*rl : (i+1)*rl]
		off := c.scanned + i*rl
		if !recordOK(rec) {
			c.stats.Corrupt++
			c.log.Warn("embedding cache: corrupt entry skipped; its text will be recomputed", "file", c.path, "offset", off)
			continue
		}
		c.index[[32]byte(rec[:32])] = off
	}
	c.scanned += n * rl
	return nil
}

// readHeader checks the header; a damaged or foreign one empties the file (under an
// exclusive lock) so that it is rebuilt.
func (c *Cache) readHeader(size int64) error {
	hdr := make([]byte, cacheHeaderLen)
	var bad string
	if size < cacheHeaderLen {
		bad = "header is truncated"
	} else if _, err := c.f.ReadAt(hdr, 0); err != nil {
		return fmt.Errorf("read header: %w", err)
	} else if string(hdr[:8]) != cacheMagic || binary.LittleEndian.Uint32(hdr[12:]) != headerCRC(hdr) ||
		binary.LittleEndian.Uint32(hdr[8:]) == 0 || binary.LittleEndian.Uint32(hdr[8:]) > 1<<20 {
		bad = "header is damaged"
	} else if !bytes.Equal(hdr[16:48], c.key[:]) {
		bad = "header belongs to another key"
	}
	if bad == "" {
		c.dim = int(binary.LittleEndian.Uint32(hdr[8:]))
		c.scanned = cacheHeaderLen
		return nil
	}
	c.log.Warn("embedding cache: starting the file over", "file", c.path, "reason", bad)
	// Re-take the lock exclusively before emptying the file.
	if err := lockFile(c.f, true); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if err := c.f.Truncate(0); err != nil {
		return fmt.Errorf("reset damaged cache: %w", err)
	}
	c.stats.Corrupt++
	c.dim, c.scanned = 0, 0
	return nil
}

// headerCRC is the checksum of a header's bytes other than the checksum field.
func headerCRC(hdr []byte) uint32 {
	crc := crc32.Update(0, crcTable, hdr[:12])
	return crc32.Update(crc, crcTable, hdr[16:cacheHeaderLen])
}

func recordOK(rec []byte) bool {
	n := len(rec) - 4
	return crc32.Checksum(rec[:n], crcTable) == binary.LittleEndian.Uint32(rec[n:])
}

// Embed returns the embeddings of texts, computing (in one call to the wrapped embedder) only
// the distinct texts not yet in the file. Embeddings that are not finite or change size are
// an error and are not stored.
func (c *Cache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	hashes := make([][32]byte, len(texts))
	first := map[[32]byte]int{} // hash → first position
	for i, t := range texts {
		hashes[i] = sha256.Sum256([]byte(t))
		if _, ok := first[hashes[i]]; !ok {
			first[hashes[i]] = i
		}
	}
	var missing []int // first positions of texts to compute
	c.mu.Lock()
	if c.f == nil {
		c.mu.Unlock()
		return nil, errors.New("embedding cache is closed")
	}
	err := c.withLock(false, func() error {
		if err := c.refresh(); err != nil {
			return err
		}
		for h, i := range first {
			if v, ok := c.lookup(h); ok {
				out[i] = v
				c.stats.Hits++
			} else {
				missing = append(missing, i)
			}
		}
		return nil
	})
	c.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("embedding cache: %w", err)
	}
	if len(missing) > 0 {
		if err := c.compute(ctx, texts, hashes, missing, out); err != nil {
			return nil, err
		}
	}
	for i := range texts {
		if out[i] == nil {
			out[i] = out[first[hashes[i]]]
		}
	}
	return out, nil
}

// lookup reads and verifies the record of h; a damaged record is dropped from the index.
func (c *Cache) lookup(h [32]byte) ([]float32, bool) {
	off, ok := c.index[h]
	if !ok {
		return nil, false
	}
	rec := make([]byte, c.recordLen())
	if _, err := c.f.ReadAt(rec, off); err != nil || !recordOK(rec) || !bytes.Equal(rec[:32], h[:]) {
		c.stats.Corrupt++
		c.log.Warn("embedding cache: corrupt entry; recomputing", "file", c.path, "offset", off)
		delete(c.index, h)
		return nil, false
	}
	return safetensors.DecodeF32(rec[32 : len(rec)-4]), true
}

// compute embeds the missing texts, checks them, appends them to the file and fills out.
func (c *Cache) compute(ctx context.Context, texts []string, hashes [][32]byte, missing []int, out [][]float32) error {
	slices.Sort(missing) // the embedder sees texts in input order
	batch := make([]string, len(missing))
	for k, i := range missing {
		batch[k] = texts[i]
	}
	embs, err := c.inner.Embed(ctx, batch)
	if err != nil {
		return fmt.Errorf("embedding cache: embed %d texts: %w", len(batch), err)
	}
	if len(embs) != len(batch) {
		return fmt.Errorf("embedding cache: embedder returned %d vectors for %d texts", len(embs), len(batch))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return errors.New("embedding cache is closed")
	}
	dim := c.dim
	if dim == 0 {
		dim = len(embs[0])
	}
	for k, e := range embs {
		if len(e) != dim || dim == 0 {
			return fmt.Errorf("embedding cache: text %d: embedding has %d values, the cache holds %d-d vectors", missing[k], len(e), dim)
		}
		if j, bad := firstNonFinite(e); bad {
			return fmt.Errorf("embedding cache: text %d: embedding value %d is %v", missing[k], j, e[j])
		}
	}
	err = c.withLock(true, func() error {
		if err := c.refresh(); err != nil {
			return err
		}
		if c.dim == 0 {
			if err := c.writeHeader(dim); err != nil {
				return err
			}
		} else if c.dim != dim {
			return fmt.Errorf("text %d: embedding has %d values, the cache holds %d-d vectors (include the dimension in the cache key)", missing[0], dim, c.dim)
		}
		// Cut off a partial record left by an interrupted writer.
		st, err := c.f.Stat()
		if err != nil {
			return err
		}
		rl := c.recordLen()
		end := cacheHeaderLen + (st.Size()-cacheHeaderLen)/rl*rl
		if end != st.Size() {
			if err := c.f.Truncate(end); err != nil {
				return err
			}
		}
		buf := make([]byte, 0, int64(len(embs))*rl)
		for k, e := range embs {
			start := len(buf)
			buf = append(buf, hashes[missing[k]][:]...)
			buf = append(buf, safetensors.EncodeF32(e)...)
			buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf[start:], crcTable))
		}
		if _, err := c.f.WriteAt(buf, end); err != nil {
			return err
		}
		for k := range embs {
			c.index[hashes[missing[k]]] = end + int64(k)*rl
		}
		c.scanned = end + int64(len(buf))
		c.stats.Appended += len(embs)
		return nil
	})
	if err != nil {
		return fmt.Errorf("embedding cache: append: %w", err)
	}
	c.stats.Misses += len(embs)
	for k, i := range missing {
		out[i] = embs[k]
	}
	return nil
}

func (c *Cache) writeHeader(dim int) error {
	hdr := make([]byte, cacheHeaderLen)
	copy(hdr, cacheMagic)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(dim))
	copy(hdr[16:], c.key[:])
	binary.LittleEndian.PutUint32(hdr[12:], headerCRC(hdr))
	if _, err := c.f.WriteAt(hdr, 0); err != nil {
		return fmt.Errorf("write header: %w", err)
	}
	c.dim, c.scanned = dim, cacheHeaderLen
	return nil
}
