package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"blueprint/internal/job"
)

// An upload body (the signed PUT of local mode) must keep pace: after
// UploadGrace it must have arrived at MinUploadRate on average, and all of
// it within MaxUploadTime. A client that falls behind has its connection's
// read deadline pass and gets a 422 (issue 47: a body sent at 1 byte every
// 2 s held its connection for the server's whole 10 minute ReadTimeout).
// A 50 MB upload at the minimum rate takes 27 minutes, so for the largest
// files MaxUploadTime (about 85 KB/s) is the bound that counts.
const (
	UploadGrace   = 30 * time.Second
	MinUploadRate = 32 << 10 // bytes a second
	MaxUploadTime = 10 * time.Minute
)

// uploadPace is the pace an upload body must keep (the constants above;
// tests shorten them).
type uploadPace struct {
	grace, max time.Duration
	rate       float64 // bytes a second
}

var defaultUploadPace = uploadPace{grace: UploadGrace, max: MaxUploadTime, rate: MinUploadRate}

// pacedBody reads an upload body, moving the connection's read deadline
// before each read to when the bytes read so far stop being enough.
type pacedBody struct {
	r        io.Reader
	rc       *http.ResponseController
	pace     uploadPace
	start    time.Time
	n        int64
	deadline time.Time
	slow     bool // a read failed at or past the deadline
	off      bool // the connection has no read deadline to set
}

func newPacedBody(w http.ResponseWriter, body io.Reader, pace uploadPace) *pacedBody {
	return &pacedBody{r: body, rc: http.NewResponseController(w), pace: pace, start: time.Now()}
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if !b.off {
		d := b.pace.grace + time.Duration(float64(b.n)/b.pace.rate*float64(time.Second))
		b.deadline = b.start.Add(min(d, b.pace.max))
		if err := b.rc.SetReadDeadline(b.deadline); err != nil {
			b.off = true // not a net/http connection (a test's recorder)
		}
	}
	k, err := b.r.Read(p)
	b.n += int64(k)
	if err != nil && !errors.Is(err, io.EOF) && !b.off && (errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(b.deadline)) {
		b.slow = true
	}
	return k, err
}

// tooSlow is the 422 of a body that fell behind the pace.
func (b *pacedBody) tooSlow() error {
	return &job.Error{Code: job.CodeUnprocessable,
		Message: fmt.Sprintf("upload body arrived too slowly (%d bytes in %s): after the first %s it must average at least %d bytes a second and end within %s; nothing was stored",
			b.n, time.Since(b.start).Round(time.Second), b.pace.grace, int(b.pace.rate), b.pace.max),
		Details: map[string]any{"received": b.n, "min_bytes_per_second": int(b.pace.rate), "grace_seconds": int(b.pace.grace / time.Second), "max_seconds": int(b.pace.max / time.Second)}}
}
