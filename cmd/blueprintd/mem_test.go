package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"blueprint/internal/document/documenttest"
)

// memTestEnv, set to 1, runs TestMemoryFourBigPNGs (make mem): it takes
// a minute or two and over a gigabyte, so it is not part of make test.
const memTestEnv = "BLUEPRINT_MEM_TEST"

// peakRSSLimit is issue 11's bound on the server's peak resident memory.
const peakRSSLimit = 1536 << 20

// procStatusKB reads a "Name:   N kB" line of /proc/<pid>/status.
func procStatusKB(pid int, name string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", name, pid)
}

// TestMemoryFourBigPNGs is issue 11's memory check with a real server
// process under its default configuration: four partners start jobs of
// the same 12 200 × 12 200 16-bit RGBA PNG (1.2 MB, 1.19 GB decoded at
// its depth, just under the pixel limit) at once. Every start must answer
// 202 and every job must end done, while the server's peak resident set
// (VmHWM) stays at or under 1.5 GiB.
func TestMemoryFourBigPNGs(t *testing.T) {
	if os.Getenv(memTestEnv) != "1" {
		t.Skipf("set %s=1 (make mem) to run", memTestEnv)
	}
	const side, jobs = 12200, 4
	genStart := time.Now()
	data := documenttest.PNG16(side, side)
	t.Logf("PNG: %d × %d 16-bit RGBA, %d bytes, made in %v", side, side, len(data), time.Since(genStart).Round(time.Millisecond))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := startChild(t, t.TempDir(), addr, 1, childLifetimeEnv+"=15m")
	pid := c.cmd.Process.Pid
	base := "http://" + addr
	call := func(method, url string, body []byte, hdr map[string]string) (int, map[string]any, error) {
		st, b, err := rawCall(http.DefaultClient, method, url, body, hdr)
		var m map[string]any
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		return st, m, err
	}

	// Create and upload four jobs, then start them all at once.
	var ids []string
	for range jobs {
		body, _ := json.Marshal(map[string]any{"file_name": "big16.png", "mime_type": "image/png", "size": len(data)})
		st, m, err := call("POST", base+"/v1/jobs/init", body, nil)
		if err != nil || st != 201 {
			t.Fatalf("init: %d %v %v", st, m, err)
		}
		u := m["upload"].(map[string]any)["url"].(string)
		if st, m, err := call("PUT", u, data, map[string]string{"Content-Type": "image/png"}); err != nil || st != 200 {
			t.Fatalf("PUT: %d %v %v", st, m, err)
		}
		ids = append(ids, m["job_id"].(string))
	}
	before, _ := procStatusKB(pid, "VmHWM")
	var wg sync.WaitGroup
	startTook := make([]time.Duration, jobs)
	t0 := time.Now()
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := time.Now()
			st, m, err := call("POST", base+"/v1/jobs/"+id+"/start", nil, nil)
			startTook[i] = time.Since(s)
			if err != nil || st != 202 {
				t.Errorf("start %d: %d %v %v", i, st, m, err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Poll until every job ends, sampling the resident set meanwhile.
	var maxRSS int64
	status := map[string]string{}
	deadline := time.Now().Add(10 * time.Minute)
	for len(status) < jobs {
		if time.Now().After(deadline) {
			t.Fatalf("jobs still running after 10 min: %v", status)
		}
		if rss, err := procStatusKB(pid, "VmRSS"); err == nil {
			maxRSS = max(maxRSS, rss)
		}
		for _, id := range ids {
			if _, ended := status[id]; ended {
				continue
			}
			st, m, err := call("GET", base+"/v1/jobs/"+id, nil, nil)
			if err != nil || st != 200 {
				t.Fatalf("poll: %d %v %v", st, m, err)
			}
			if s := m["status"].(string); s == "done" || s == "failed" {
				status[id] = s
				if s != "done" {
					t.Errorf("job %s: %v", id, m)
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	all := time.Since(t0)
	hwm, err := procStatusKB(pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS (VmHWM) %d MiB (%d MiB before the starts; highest sampled VmRSS %d MiB); starts answered in %v; all %d jobs done %v after the starts",
		hwm>>10, before>>10, maxRSS>>10, startTook, jobs, all.Round(time.Second))
	fmt.Printf("make mem: peak RSS %d MiB (limit %d MiB), starts %v, %d jobs done in %v\n", hwm>>10, peakRSSLimit>>20, startTook, jobs, all.Round(time.Second))
	if hwm<<10 > peakRSSLimit {
		t.Errorf("peak RSS %d MiB is over %d MiB", hwm>>10, peakRSSLimit>>20)
	}
}
