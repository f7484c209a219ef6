// Package apikey holds the partner API keys. Keys are kept only as SHA-256
// hashes and compared in constant time; each key has a stable ID (used as
// the owner of jobs), a webhook secret and a request rate.
package apikey

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultRequestsPerMinute is the rate of a key that does not name one.
const DefaultRequestsPerMinute = 120

// MinKeyLength is the shortest API key accepted from configuration: a
// shorter one can be guessed.
const MinKeyLength = 16

// DevKeyFile is the file in the data directory holding the development key
// created when no keys are configured, as "key:webhook_secret".
const DevKeyFile = "dev-api-key"

// Key is one configured API key, without the key itself.
type Key struct {
	// ID identifies the key in job records and logs; it is derived from the
	// key's hash and does not reveal the key.
	ID string
	// WebhookSecret signs this key's webhooks.
	WebhookSecret []byte
	// RequestsPerMinute is the key's rate limit.
	RequestsPerMinute int

	hash [sha256.Size]byte
}

// Keyring is an immutable set of keys, safe for concurrent use.
type Keyring struct {
	keys []Key
	// secret is a MAC of every configured key and webhook secret, known
	// only to the service: a partner knows its own key and secret only.
	secret [sha256.Size]byte
}

// Entry is one key as configured, before hashing.
type Entry struct {
	Key               string
	WebhookSecret     string
	RequestsPerMinute int
}

// NewKeyring hashes the entries. Keys shorter than MinKeyLength, empty
// secrets, non-positive rates and duplicate keys are errors.
func NewKeyring(entries []Entry) (*Keyring, error) {
	r := &Keyring{}
	seen := map[[sha256.Size]byte]bool{}
	material := hmac.New(sha256.New, []byte("blueprint keyring v1"))
	for i, e := range entries {
		if len(e.Key) < MinKeyLength || e.WebhookSecret == "" {
			return nil, fmt.Errorf("apikey: entry %d: the key must have at least %d characters and the webhook secret must not be empty", i+1, MinKeyLength)
		}
		if e.RequestsPerMinute <= 0 {
			return nil, fmt.Errorf("apikey: entry %d: requests per minute must be positive", i+1)
		}
		h := sha256.Sum256([]byte(e.Key))
		if seen[h] {
			return nil, fmt.Errorf("apikey: entry %d: duplicate key", i+1)
		}
		seen[h] = true
		for _, part := range []string{e.Key, e.WebhookSecret} {
			material.Write([]byte(strconv.Itoa(len(part)) + ":" + part))
		}
		r.keys = append(r.keys, Key{
			ID:                "key_" + hex.EncodeToString(h[:8]),
			WebhookSecret:     []byte(e.WebhookSecret),
			RequestsPerMinute: e.RequestsPerMinute,
			hash:              h,
		})
	}
	copy(r.secret[:], material.Sum(nil))
	return r, nil
}

// ParseEntries parses BLUEPRINT_API_KEYS: comma-separated
// "key:webhook_secret[:requests_per_minute]" items. Blank items (a
// trailing comma) are skipped, but a non-empty spec must hold at least one
// key: " , " is an error, not "no keys". Keys shorter than MinKeyLength,
// empty secrets and rates that are not positive integers are errors; an
// error names the item by its position, never by the key.
func ParseEntries(spec string) ([]Entry, error) {
	var out []Entry
	for i, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		parts := strings.Split(item, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("item %d: want key:webhook_secret[:requests_per_minute]", i+1)
		}
		e := Entry{Key: parts[0], WebhookSecret: parts[1], RequestsPerMinute: DefaultRequestsPerMinute}
		if len(e.Key) < MinKeyLength {
			return nil, fmt.Errorf("item %d: the key has %d characters; at least %d are required", i+1, len(e.Key), MinKeyLength)
		}
		if e.WebhookSecret == "" {
			return nil, fmt.Errorf("item %d: the webhook secret is empty", i+1)
		}
		if len(parts) == 3 {
			n, err := strconv.Atoi(parts[2])
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("item %d: requests per minute %q is not a positive integer", i+1, parts[2])
			}
			e.RequestsPerMinute = n
		}
		out = append(out, e)
	}
	if len(out) == 0 && spec != "" {
		return nil, fmt.Errorf("%q holds no key; give key:webhook_secret[:requests_per_minute] items, or leave it unset for a development key", spec)
	}
	return out, nil
}

// Derive returns a secret for purpose derived from every configured key
// and webhook secret: the same in every process with the same keys (the
// API's Lambda instances), different when any key changes. The service
// uses it where it has no secret of its own (review credentials on AWS).
func (r *Keyring) Derive(purpose string) []byte {
	m := hmac.New(sha256.New, r.secret[:])
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// Len returns the number of keys.
func (r *Keyring) Len() int { return len(r.keys) }

// Authenticate returns the key matching raw. Every configured key is
// compared, each in constant time, so timing reveals nothing about which
// or how many bytes matched.
func (r *Keyring) Authenticate(raw string) (Key, bool) {
	if raw == "" {
		return Key{}, false
	}
	h := sha256.Sum256([]byte(raw))
	found := -1
	for i := range r.keys {
		if subtle.ConstantTimeCompare(h[:], r.keys[i].hash[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Key{}, false
	}
	return r.keys[found], true
}

// ByID returns the key with the given ID.
func (r *Keyring) ByID(id string) (Key, bool) {
	for _, k := range r.keys {
		if k.ID == id {
			return k, true
		}
	}
	return Key{}, false
}

// LoadOrCreateDevKey returns the development key stored in dir, creating a
// random one (file mode 0600) on first use. created reports whether it was
// made now.
func LoadOrCreateDevKey(dir string) (e Entry, created bool, err error) {
	path := filepath.Join(dir, DevKeyFile)
	b, err := os.ReadFile(path)
	if err == nil {
		es, perr := ParseEntries(strings.TrimSpace(string(b)))
		if perr != nil || len(es) != 1 {
			return Entry{}, false, fmt.Errorf("apikey: %s: malformed development key file", path)
		}
		return es[0], false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return Entry{}, false, fmt.Errorf("apikey: read development key: %w", err)
	}
	e = Entry{Key: "dev_" + randomHex(24), WebhookSecret: "whsec_" + randomHex(24), RequestsPerMinute: DefaultRequestsPerMinute}
	if err := os.WriteFile(path, []byte(e.Key+":"+e.WebhookSecret+"\n"), 0o600); err != nil {
		return Entry{}, false, fmt.Errorf("apikey: write development key: %w", err)
	}
	return e, true, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("apikey: crypto/rand failed: %v", err)) // never happens on supported platforms
	}
	return hex.EncodeToString(b)
}
