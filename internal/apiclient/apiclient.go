// Package apiclient drives the partner API the way a partner does, for the
// measurement commands (cmd/benchreal, cmd/benchscans): it starts a fresh
// blueprintd on 127.0.0.1 with its own data directory, runs jobs through
// init, upload, start and poll, and reads their detections.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Key is the API key the measured servers are started with.
const Key = "bench-key-0123456789"

// Server is a blueprintd process started for a measurement, and a client
// of its API. Close stops it and removes its data directory.
type Server struct {
	Client
	cmd  *exec.Cmd
	dir  string
	logs bytes.Buffer
}

// Start runs the blueprintd binary at path on a free port of 127.0.0.1
// with a fresh data directory and the bench key (100 000 requests a
// minute), with env added to its environment, and waits until it answers.
// The server stops when ctx ends or Close is called.
func Start(ctx context.Context, path string, env ...string) (*Server, error) {
	dir, err := os.MkdirTemp("", "blueprint-bench-")
	if err != nil {
		return nil, fmt.Errorf("apiclient: data directory: %w", err)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("apiclient: free port: %w", err)
	}
	s := &Server{dir: dir}
	s.cmd = exec.CommandContext(ctx, path)
	s.cmd.Env = append(append(os.Environ(),
		"BLUEPRINT_LISTEN_ADDR=127.0.0.1:"+strconv.Itoa(port),
		"BLUEPRINT_DATA_DIR="+dir,
		"BLUEPRINT_API_KEYS="+Key+":whsec_bench:100000",
	), env...)
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("apiclient: start %s: %w", path, err)
	}
	s.Client = Client{Base: "http://127.0.0.1:" + strconv.Itoa(port), HTTP: &http.Client{Timeout: time.Minute}}
	if err := s.waitReady(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("apiclient: server did not start: %w\n%s", err, s.logs.String())
	}
	return s, nil
}

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Logs returns what the server has written so far.
func (s *Server) Logs() string { return s.logs.String() }

// Close stops the server (SIGTERM) and removes its data directory.
func (s *Server) Close() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	os.RemoveAll(s.dir)
}

// ProcStatusKB reads a "kB" field of /proc/PID/status, such as VmRSS or
// VmHWM (0 when unreadable).
func ProcStatusKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// ProcCPU returns the CPU seconds (user and system) process pid has
// spent, from /proc/PID/stat in clock ticks of 1/100 s (Linux's USER_HZ);
// 0 when unreadable.
func ProcCPU(pid int) float64 {
	return statSeconds(pid, 11) // utime, stime: fields 14 and 15
}

// ProcChildrenCPU returns the CPU seconds (user and system) of process
// pid's children that it has waited for (an OCR program run per call),
// from /proc/PID/stat; 0 when unreadable.
func ProcChildrenCPU(pid int) float64 {
	return statSeconds(pid, 13) // cutime, cstime: fields 16 and 17
}

// statSeconds sums two adjacent clock-tick fields of /proc/PID/stat, the
// first at index k of the fields after the command name, as seconds; 0
// when unreadable.
func statSeconds(pid, k int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < k+2 {
		return 0
	}
	u, _ := strconv.ParseInt(f[k], 10, 64)
	s, _ := strconv.ParseInt(f[k+1], 10, 64)
	return float64(u+s) / 100
}

// ResetPeakRSS resets process pid's VmHWM to its present RSS (Linux's
// clear_refs 5), so that VmHWM read after some work is that work's peak.
func ResetPeakRSS(pid int) error {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return fmt.Errorf("apiclient: reset peak RSS: %w", err)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Client calls the partner API at Base with the bench key.
type Client struct {
	Base string
	HTTP *http.Client
}

func (c *Client) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if err := c.Do(ctx, "GET", "/v1/openapi.json", "", nil, nil); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("no answer within 30 s")
}

// Do sends a request to path on the server and decodes a JSON answer into
// out (when not nil); a status of 300 or more is an error carrying the body.
func (c *Client) Do(ctx context.Context, method, path, ctype string, body []byte, out any) error {
	return c.DoURL(ctx, method, c.Base+path, ctype, body, out)
}

// DoURL is Do with an absolute URL.
func (c *Client) DoURL(ctx context.Context, method, url, ctype string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", Key)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// Job is what Run reports of one job.
type Job struct {
	ID        string
	PageCount int
	// Seconds runs from the start call to the poll that saw "done".
	Seconds float64
	// Pages holds each page's kind and detections by class.
	Pages []Page
}

// Page is one page of a done job.
type Page struct {
	Index int
	Kind  string
	// Counts maps each class to its detections on the page.
	Counts map[string]int
}

// MIMEType returns the API's mime_type for a file name by its extension.
func MIMEType(name string) (string, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".pdf":
		return "application/pdf", nil
	case ".png":
		return "image/png", nil
	case ".jpg", ".jpeg":
		return "image/jpeg", nil
	case ".webp":
		return "image/webp", nil
	}
	return "", fmt.Errorf("apiclient: no mime type for %s", name)
}

// RunOptions shape Run.
type RunOptions struct {
	// Counts reads every page's detections by class when the job is done.
	Counts bool
	// BeforeStart, when set, is called just before the start call (to
	// read a server's counters there).
	BeforeStart func()
	// References are the ids of done jobs of the same key whose legends
	// the job counts with (reference_jobs on init).
	References []string
}

// Run creates a job for data named name, uploads it, starts it and polls
// until it is done. A failed or expired job is an error carrying the
// job's error.
func (c *Client) Run(ctx context.Context, name string, data []byte, opt RunOptions) (Job, error) {
	mime, err := MIMEType(name)
	if err != nil {
		return Job{}, err
	}
	var init struct {
		JobID  string `json:"job_id"`
		Upload struct {
			URL string `json:"url"`
		} `json:"upload"`
	}
	req := map[string]any{"file_name": filepath.Base(name), "mime_type": mime, "size": len(data)}
	if len(opt.References) > 0 {
		req["reference_jobs"] = opt.References
	}
	body, err := json.Marshal(req)
	if err != nil {
		return Job{}, err
	}
	if err := c.Do(ctx, "POST", "/v1/jobs/init", "application/json", body, &init); err != nil {
		return Job{}, err
	}
	if err := c.DoURL(ctx, "PUT", init.Upload.URL, mime, data, nil); err != nil {
		return Job{}, err
	}
	if opt.BeforeStart != nil {
		opt.BeforeStart()
	}
	start := time.Now()
	if err := c.Do(ctx, "POST", "/v1/jobs/"+init.JobID+"/start", "", nil, nil); err != nil {
		return Job{}, err
	}
	for {
		var st struct {
			Status    string          `json:"status"`
			PageCount int             `json:"page_count"`
			Error     json.RawMessage `json:"error"`
			Pages     []struct {
				PageIndex int    `json:"page_index"`
				Kind      string `json:"kind"`
			} `json:"pages"`
		}
		if err := c.Do(ctx, "GET", "/v1/jobs/"+init.JobID, "", nil, &st); err != nil {
			return Job{}, err
		}
		switch st.Status {
		case "done":
			j := Job{ID: init.JobID, PageCount: st.PageCount, Seconds: time.Since(start).Seconds()}
			for _, p := range st.Pages {
				pg := Page{Index: p.PageIndex, Kind: p.Kind}
				if opt.Counts {
					if pg.Counts, err = c.pageCounts(ctx, init.JobID, p.PageIndex); err != nil {
						return Job{}, err
					}
				}
				j.Pages = append(j.Pages, pg)
			}
			return j, nil
		case "failed", "expired":
			return Job{}, fmt.Errorf("job %s: %s", st.Status, st.Error)
		}
		select {
		case <-ctx.Done():
			return Job{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// pageCounts counts a page's detections by class, reading every page of
// the per-page endpoint.
func (c *Client) pageCounts(ctx context.Context, id string, page int) (map[string]int, error) {
	counts := map[string]int{}
	for offset := 0; ; {
		var pd struct {
			Next       *int `json:"next"`
			Detections []struct {
				Class string `json:"class"`
			} `json:"detections"`
		}
		path := fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?limit=2000&offset=%d", id, page, offset)
		if err := c.Do(ctx, "GET", path, "", nil, &pd); err != nil {
			return nil, err
		}
		for _, d := range pd.Detections {
			counts[d.Class]++
		}
		if pd.Next == nil {
			return counts, nil
		}
		offset = *pd.Next
	}
}
