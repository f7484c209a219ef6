package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"blueprint/internal/job"
)

// TestSlowUploadIsCut sends an upload body from a real client on
// 127.0.0.1 at 1 byte every 100 ms, under a pace of 200 bytes a second
// after 300 ms: the server gives up at the deadline with a 422 saying why,
// instead of holding the connection (issue 47: 1 byte every 2 s held it
// 10 minutes). A client that keeps the pace is read whole.
func TestSlowUploadIsCut(t *testing.T) {
	pace := uploadPace{grace: 300 * time.Millisecond, max: 5 * time.Second, rate: 200}
	s := &Server{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := newPacedBody(w, r.Body, pace)
		n, err := io.Copy(io.Discard, body)
		if err != nil && body.slow {
			s.writeError(w, r, body.tooSlow())
			return
		}
		if err != nil {
			s.writeError(w, r, &job.Error{Code: job.CodeInternal, Message: err.Error()})
			return
		}
		fmt.Fprintf(w, "read %d", n)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	send := func(size int, every time.Duration, chunk int) (string, time.Duration) {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		fmt.Fprintf(conn, "PUT /uploads/x HTTP/1.1\r\nHost: %s\r\nContent-Type: application/pdf\r\nContent-Length: %d\r\n\r\n", addr, size)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for sent := 0; sent < size; sent += chunk {
				if _, err := conn.Write([]byte(strings.Repeat("x", min(chunk, size-sent)))); err != nil {
					return // the server gave up
				}
				time.Sleep(every)
			}
		}()
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer after %s: %v", time.Since(start), err)
		}
		b, _ := io.ReadAll(resp.Body)
		took := time.Since(start)
		conn.Close()
		<-done
		return fmt.Sprintf("%d %s", resp.StatusCode, b), took
	}

	// 1 byte every 100 ms of a 1 000-byte body would take 100 s.
	got, took := send(1000, 100*time.Millisecond, 1)
	if !strings.HasPrefix(got, "422 ") || !strings.Contains(got, "too slowly") || !strings.Contains(got, `"min_bytes_per_second":200`) {
		t.Errorf("slow body: %s", got)
	}
	if took > 2*time.Second {
		t.Errorf("slow body answered after %s; the pace allows about 0.35 s", took)
	}
	// 100 bytes every 100 ms keeps the pace of 200 a second.
	if got, _ := send(1500, 100*time.Millisecond, 100); got != "200 read 1500" {
		t.Errorf("body at the pace: %s", got)
	}
}
