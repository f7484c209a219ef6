// Package reviewcred makes and checks review credentials: what a review
// link's handoff token is exchanged for. A credential stands for one API
// key's access to one job, for a limited time, and for nothing else; it
// is sent in the X-API-Key header in place of the key.
//
// A credential is stateless, so that any instance of the API accepts it:
//
//	rvc1.<payload>.<mac>
//
// payload is the unpadded base64url of "<key id>\n<job id>\n<expiry, Unix
// seconds>", mac the unpadded base64url of HMAC-SHA256(secret,
// "review-credential v1\n" + payload bytes). The secret is the service's
// (derived from its signing key locally and from its API keys' secret on
// AWS); nobody without it can make or alter one. A credential cannot be
// withdrawn on its own before it expires: withdrawing its key (or
// changing the secret) ends it.
package reviewcred

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Prefix starts every credential; no API key the service hands out has it.
const Prefix = "rvc1."

// TTL is how long a credential works: a working day of review.
const TTL = 8 * time.Hour

// macContext separates a credential's MAC from other uses of the secret.
const macContext = "review-credential v1\n"

// maxLength bounds a credential: longer header values are refused before
// any decoding.
const maxLength = 512

// Errors of Verify; test with errors.Is.
var (
	ErrMalformed = errors.New("not a review credential, or one altered or made without the service's secret")
	ErrExpired   = errors.New("review credential expired")
)

// Credential is what a credential grants.
type Credential struct {
	KeyID     string
	JobID     string
	ExpiresAt time.Time
}

// Minter makes and checks credentials with one secret.
type Minter struct {
	secret []byte
}

// New returns a Minter with secret, which must not be empty.
func New(secret []byte) (*Minter, error) {
	if len(secret) == 0 {
		return nil, errors.New("reviewcred: empty secret")
	}
	return &Minter{secret: append([]byte(nil), secret...)}, nil
}

// Mint returns the credential for c. The key and job IDs must not hold a
// newline.
func (m *Minter) Mint(c Credential) string {
	payload := []byte(c.KeyID + "\n" + c.JobID + "\n" + strconv.FormatInt(c.ExpiresAt.Unix(), 10))
	return Prefix + base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(m.mac(payload))
}

func (m *Minter) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, m.secret)
	h.Write([]byte(macContext))
	h.Write(payload)
	return h.Sum(nil)
}

// Verify checks token at now and returns what it grants: ErrMalformed
// when it is not a credential of this secret, ErrExpired (with the
// credential) when it is but now is at or past its expiry. The MAC is
// compared in constant time.
func (m *Minter) Verify(token string, now time.Time) (Credential, error) {
	rest, ok := strings.CutPrefix(token, Prefix)
	if !ok || len(token) > maxLength {
		return Credential{}, ErrMalformed
	}
	p64, mac64, ok := strings.Cut(rest, ".")
	if !ok {
		return Credential{}, ErrMalformed
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p64)
	mac, err2 := base64.RawURLEncoding.DecodeString(mac64)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, m.mac(payload)) {
		return Credential{}, ErrMalformed
	}
	fields := strings.Split(string(payload), "\n")
	if len(fields) != 3 || fields[0] == "" || fields[1] == "" {
		return Credential{}, ErrMalformed
	}
	exp, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return Credential{}, ErrMalformed
	}
	c := Credential{KeyID: fields[0], JobID: fields[1], ExpiresAt: time.Unix(exp, 0).UTC()}
	if !now.Before(c.ExpiresAt) {
		return c, ErrExpired
	}
	return c, nil
}
