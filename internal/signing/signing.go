// Package signing makes and checks the HMAC-signed, expiring URLs that the
// service serves itself in local mode: the upload PUT, page images and
// symbol icons. A signature is lowercase hex HMAC-SHA256 over
// "METHOD\npath\nexpires" with a secret kept in the data directory.
package signing

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// KeyFile is the name of the signing secret inside the data directory.
const KeyFile = "signing.key"

// keyBytes is the length of a generated secret.
const keyBytes = 32

// Query parameter names of a signed URL.
const (
	ParamExpires = "expires"
	ParamSig     = "sig"
)

// Errors of Verify; test with errors.Is.
var (
	ErrExpired = errors.New("signed URL expired")
	ErrForged  = errors.New("signed URL signature invalid")
)

// Signer signs and verifies URLs with one secret. The zero value is not
// usable; create one with New or LoadOrCreate.
type Signer struct {
	key []byte
}

// New returns a Signer using secret, which must not be empty.
func New(secret []byte) (*Signer, error) {
	if len(secret) == 0 {
		return nil, errors.New("signing: empty secret")
	}
	return &Signer{key: append([]byte(nil), secret...)}, nil
}

// LoadOrCreate reads the secret from dir/signing.key, creating the file with
// a fresh random secret (mode 0600) when it does not exist.
func LoadOrCreate(dir string) (*Signer, error) {
	path := filepath.Join(dir, KeyFile)
	b, err := os.ReadFile(path)
	if err == nil {
		key, derr := hex.DecodeString(strings.TrimSpace(string(b)))
		if derr != nil || len(key) == 0 {
			return nil, fmt.Errorf("signing: %s is not a hex secret", path)
		}
		return New(key)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("signing: read key: %w", err)
	}
	key := make([]byte, keyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("signing: generate key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another process created it first
		return LoadOrCreate(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("signing: create key file: %w", err)
	}
	if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("signing: write key file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("signing: write key file: %w", err)
	}
	return New(key)
}

// Derive returns a secret for another purpose (such as review
// credentials), derived from the signing secret: HMAC-SHA256 of
// "derive\n" + purpose. No signature of a URL is ever equal to it (a
// URL's signed text holds two newlines).
func (s *Signer) Derive(purpose string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("derive\n" + purpose))
	return m.Sum(nil)
}

// Sign returns the lowercase hex signature of method, path and expiry.
func (s *Signer) Sign(method, path string, expires time.Time) string {
	return s.sign(method, path, strconv.FormatInt(expires.Unix(), 10))
}

func (s *Signer) sign(method, path, expires string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(strings.ToUpper(method) + "\n" + path + "\n" + expires))
	return hex.EncodeToString(m.Sum(nil))
}

// URL returns base+path with the expires and sig query parameters. base is
// the public base URL without a trailing slash; path starts with "/" and
// is escaped as a URL path (a "#" or "?" in it stays part of the path),
// so the server sees it, decoded, as the path that was signed.
func (s *Signer) URL(base, method, path string, expires time.Time) string {
	q := url.Values{}
	q.Set(ParamExpires, strconv.FormatInt(expires.Unix(), 10))
	q.Set(ParamSig, s.Sign(method, path, expires))
	u := url.URL{Path: path}
	return strings.TrimRight(base, "/") + u.EscapedPath() + "?" + q.Encode()
}

// Verify checks the query of a signed request to path. It returns ErrForged
// when the signature is missing or wrong and ErrExpired when it is right but
// now is past its expiry. The comparison takes constant time.
func (s *Signer) Verify(method, path string, query url.Values, now time.Time) error {
	exp := query.Get(ParamExpires)
	sig := query.Get(ParamSig)
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || sig == "" {
		return ErrForged
	}
	want := s.sign(method, path, exp)
	if !hmac.Equal([]byte(want), []byte(strings.ToLower(sig))) {
		return ErrForged
	}
	if now.Unix() > unix {
		return ErrExpired
	}
	return nil
}
