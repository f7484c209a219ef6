package job

import (
	"context"
	"errors"
	"time"
)

// Errors of Handoffs.TakeHandoff besides ErrNotFound; test with errors.Is.
var (
	ErrHandoffUsed    = errors.New("handoff token already used")
	ErrHandoffExpired = errors.New("handoff token expired")
)

// HandoffGrace is how long a handoff record is kept past its expiry, so
// that a late exchange is told "expired" rather than "unknown"; stores
// may drop it after that (DynamoDB's TTL, bbolt's sweep on put).
const HandoffGrace = time.Hour

// Handoff is the record of a review link's single-use handoff token. The
// token itself is never stored, only its hash; the record names the key
// by its ID and never holds the key.
type Handoff struct {
	// TokenHash is the lowercase hex SHA-256 of the token.
	TokenHash string    `json:"-"`
	KeyID     string    `json:"key_id"`
	JobID     string    `json:"job_id"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Handoffs keeps the handoff tokens of review links where every API
// process sees them (bbolt locally, the jobs table on AWS), so that a link
// made on one instance is exchanged on any other.
type Handoffs interface {
	// PutHandoff stores h. ErrExists if a record with its TokenHash exists.
	PutHandoff(ctx context.Context, h Handoff) error
	// TakeHandoff uses the token with hash tokenHash at now: the first use
	// before ExpiresAt returns the record and marks it used, in one
	// conditional write, so that of concurrent uses exactly one succeeds.
	// Otherwise ErrHandoffUsed, ErrHandoffExpired (now at or past
	// ExpiresAt), or ErrNotFound (never stored, or dropped).
	TakeHandoff(ctx context.Context, tokenHash string, now time.Time) (*Handoff, error)
}
