// Command benchreal measures whole jobs through the local server, the way a
// partner sees them: for each PDF it starts a fresh blueprintd (own data
// directory, 127.0.0.1 on a free port), creates a job, uploads the file,
// starts it and polls until done, and reports the seconds from start to
// done, the server's peak RSS during the job (VmHWM; the server is fresh, so
// it is that job's), and the ratio to a bare render of the same file by
// `mutool draw -r 200` (Debian's mupdf-tools) in the same run, when mutool
// is installed; beside them the CPU seconds both spent (the server's from
// start to done), whose ratio moves less with other work on the machine:
//
//	go run ./cmd/benchreal -server bin/blueprintd [-repeat 2] [-dense DIR] [-heavy DIR] FILE.pdf...
//
// -dense DIR writes the generated dense A0/A1 set into DIR (if missing) and
// measures it too. -heavy DIR writes the generated clip-heavy A1 legend
// sheet (synth KIND=heavy: 1.5 million hatching strokes in 40 000 clips)
// into DIR (if missing), measures it, and fails when its ratio to mutool
// passes -heavy-max-ratio or its peak RSS -heavy-max-rss. Each measurement
// is repeated -repeat times and the fastest run is reported (the machine
// is shared; the spread is printed).
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/document/documenttest"
	"blueprint/internal/synth"
)

// benchKey is the API key the measured servers are started with.
const benchKey = "bench-key-0123456789"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchreal:", err)
		os.Exit(1)
	}
}

func run() error {
	server := flag.String("server", "bin/blueprintd", "blueprintd binary to measure")
	repeat := flag.Int("repeat", 2, "runs per document; the fastest is reported")
	dense := flag.String("dense", "", "directory of the generated dense A0/A1 set (written when missing)")
	mutool := flag.String("mutool", "mutool", "mutool binary for the bare render (skipped when not found)")
	heavyDir := flag.String("heavy", "", "directory of the generated clip-heavy A1 sheet (written when missing)")
	heavyRatio := flag.Float64("heavy-max-ratio", 2, "fail when the clip-heavy sheet takes longer than this many times mutool draw")
	heavyRSS := flag.Int64("heavy-max-rss", 1024, "fail when the clip-heavy sheet's job peaks above this many MiB")
	flag.Parse()
	files := flag.Args()
	heavy := ""
	if *heavyDir != "" {
		var err error
		if heavy, err = heavySheet(*heavyDir); err != nil {
			return err
		}
		files = append(files, heavy)
	}
	if *dense != "" {
		gen, err := denseSet(*dense)
		if err != nil {
			return err
		}
		files = append(files, gen...)
	}
	if len(files) == 0 {
		return errors.New("no PDFs given")
	}
	mt, err := exec.LookPath(*mutool)
	if err != nil {
		mt = ""
		fmt.Println("mutool not found: the ratio to the bare render is skipped")
	}
	fmt.Printf("%-34s %5s %10s %10s %7s %10s %9s %8s %8s %7s\n", "document", "pages", "service s", "mutool s", "ratio", "peak RSS", "idle RSS", "svc CPU", "mut CPU", "CPU x")
	var failed []string
	for _, f := range files {
		var svc []result
		var bare, bareCPU []float64
		for range *repeat {
			r, err := measureJob(*server, f)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			svc = append(svc, r)
			if mt != "" {
				s, cpu, err := measureMutool(mt, f)
				if err != nil {
					return fmt.Errorf("%s: mutool: %w", f, err)
				}
				bare = append(bare, s)
				bareCPU = append(bareCPU, cpu)
			}
		}
		best := slices.MinFunc(svc, func(a, b result) int { return cmp.Compare(a.seconds, b.seconds) })
		peak := slices.MaxFunc(svc, func(a, b result) int { return int(a.peakKB - b.peakKB) })
		line := fmt.Sprintf("%-34s %5d %10s %10s %7s %7d MiB %6d MiB", trim(filepath.Base(f), 34), best.pages,
			spread(svcSeconds(svc)), "-", "-", peak.peakKB/1024, best.idleKB/1024)
		if len(bare) > 0 {
			b := slices.Min(bare)
			line = fmt.Sprintf("%-34s %5d %10s %10s %6.2fx %7d MiB %6d MiB", trim(filepath.Base(f), 34), best.pages,
				spread(svcSeconds(svc)), spread(bare), best.seconds/b, peak.peakKB/1024, best.idleKB/1024)
			cpu := slices.MinFunc(svc, func(a, b result) int { return cmp.Compare(a.cpu, b.cpu) }).cpu
			line += fmt.Sprintf(" %8.2f %8.2f %6.2fx", cpu, slices.Min(bareCPU), cpu/slices.Min(bareCPU))
		}
		fmt.Println(line)
		if f == heavy {
			if len(bare) > 0 && best.seconds/slices.Min(bare) > *heavyRatio {
				failed = append(failed, fmt.Sprintf("%s took %.2f× mutool draw (limit %.2f×)", filepath.Base(f), best.seconds/slices.Min(bare), *heavyRatio))
			}
			if peak.peakKB/1024 > *heavyRSS {
				failed = append(failed, fmt.Sprintf("%s peaked at %d MiB (limit %d MiB)", filepath.Base(f), peak.peakKB/1024, *heavyRSS))
			}
		}
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// result is one job measured through the server.
type result struct {
	pages   int
	seconds float64 // POST start to status done
	cpu     float64 // the server's CPU seconds (user and system) over the same span
	peakKB  int64   // the server's VmHWM after the job
	idleKB  int64   // the server's VmRSS before the upload
}

func svcSeconds(rs []result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.seconds
	}
	return out
}

// spread prints the fastest of a set of timings, with the slowest after a
// slash when there are several.
func spread(v []float64) string {
	if len(v) == 1 {
		return fmt.Sprintf("%.2f", v[0])
	}
	return fmt.Sprintf("%.2f/%.2f", slices.Min(v), slices.Max(v))
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// measureMutool times `mutool draw -r 200 -o DIR/p-%d.png FILE`: wall
// and CPU seconds.
func measureMutool(mt, file string) (float64, float64, error) {
	dir, err := os.MkdirTemp("", "benchreal-mutool-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(mt, "draw", "-q", "-r", "200", "-o", filepath.Join(dir, "p-%d.png"), file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%w: %s", err, stderr.String())
	}
	wall := time.Since(start).Seconds()
	return wall, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), nil
}

// procCPU returns the CPU seconds (user and system) process pid has spent,
// from /proc/PID/stat in clock ticks of 1/100 s (Linux's USER_HZ); 0 when
// unreadable.
func procCPU(pid int) float64 {
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
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return float64(u+s) / 100
}

// measureJob runs one job of file through a fresh server.
func measureJob(server, file string) (result, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return result{}, err
	}
	dir, err := os.MkdirTemp("", "benchreal-data-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return result{}, err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, server)
	cmd.Env = append(os.Environ(),
		"BLUEPRINT_LISTEN_ADDR=127.0.0.1:"+strconv.Itoa(port),
		"BLUEPRINT_DATA_DIR="+dir,
		"BLUEPRINT_API_KEYS="+benchKey+":whsec_bench:100000",
	)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	c := &client{base: base, http: &http.Client{Timeout: time.Minute}}
	if err := c.waitReady(ctx); err != nil {
		return result{}, fmt.Errorf("server did not start: %w\n%s", err, logs.String())
	}
	time.Sleep(300 * time.Millisecond) // let start-up settle before reading idle RSS
	idle := procStatusKB(cmd.Process.Pid, "VmRSS")
	var init struct {
		JobID  string `json:"job_id"`
		Upload struct {
			URL string `json:"url"`
		} `json:"upload"`
	}
	body := fmt.Sprintf(`{"file_name":%q,"mime_type":"application/pdf","size":%d}`, filepath.Base(file), len(data))
	if err := c.do(ctx, "POST", "/v1/jobs/init", "application/json", []byte(body), &init); err != nil {
		return result{}, err
	}
	if err := c.doURL(ctx, "PUT", init.Upload.URL, "application/pdf", data, nil); err != nil {
		return result{}, err
	}
	start, cpu0 := time.Now(), procCPU(cmd.Process.Pid)
	if err := c.do(ctx, "POST", "/v1/jobs/"+init.JobID+"/start", "", nil, nil); err != nil {
		return result{}, err
	}
	for {
		var st struct {
			Status    string          `json:"status"`
			PageCount int             `json:"page_count"`
			Error     json.RawMessage `json:"error"`
		}
		if err := c.do(ctx, "GET", "/v1/jobs/"+init.JobID, "", nil, &st); err != nil {
			return result{}, err
		}
		switch st.Status {
		case "done":
			return result{pages: st.PageCount, seconds: time.Since(start).Seconds(), cpu: procCPU(cmd.Process.Pid) - cpu0,
				peakKB: procStatusKB(cmd.Process.Pid, "VmHWM"), idleKB: idle}, nil
		case "failed", "expired":
			return result{}, fmt.Errorf("job %s: %s", st.Status, st.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procStatusKB reads a "kB" field of /proc/PID/status (0 when unreadable).
func procStatusKB(pid int, field string) int64 {
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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// client calls the partner API with the bench key.
type client struct {
	base string
	http *http.Client
}

func (c *client) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if err := c.do(ctx, "GET", "/v1/openapi.json", "", nil, nil); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("no answer within 30 s")
}

func (c *client) do(ctx context.Context, method, path, ctype string, body []byte, out any) error {
	return c.doURL(ctx, method, c.base+path, ctype, body, out)
}

func (c *client) doURL(ctx context.Context, method, url, ctype string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", benchKey)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.http.Do(req)
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

// heavySheet writes the generated clip-heavy A1 sheet (synth KIND=heavy,
// seed 1) into dir unless it is there, and returns its path.
func heavySheet(dir string) (string, error) {
	p := filepath.Join(dir, "heavy-clips-A1.pdf")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cat, err := catalog.Load("")
	if err != nil {
		return "", err
	}
	g, err := synth.New(synth.FromCatalog(cat))
	if err != nil {
		return "", err
	}
	s, err := g.Heavy(1, 0, synth.Options{})
	if err != nil {
		return "", err
	}
	return p, os.WriteFile(p, s.Data, 0o644)
}

// denseSet writes the generated dense set into dir unless it is there, and
// returns its files: an A1 sheet of thousands of clip paths around small
// content (the clip-heavy ArchiCAD export), and dense A1 and A0 plans
// (walls, hatching, fills, arcs, text on every room).
func denseSet(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sets := []struct {
		name string
		pdf  func() []byte
	}{
		{"dense-clips-A1.pdf", func() []byte { return documenttest.ClipHeavyPDF(documenttest.A1, 4700, 1) }},
		{"dense-plan-A1.pdf", func() []byte { return documenttest.DensePlanPDF(documenttest.A1, 1, 2) }},
		{"dense-plan-A0.pdf", func() []byte { return documenttest.DensePlanPDF(documenttest.A0, 1, 3) }},
	}
	var out []string
	for _, s := range sets {
		p := filepath.Join(dir, s.name)
		if _, err := os.Stat(p); err != nil {
			if err := os.WriteFile(p, s.pdf(), 0o644); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}
