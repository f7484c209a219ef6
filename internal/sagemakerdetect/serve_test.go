package sagemakerdetect

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/job"
	"blueprint/internal/raster"
	"blueprint/internal/raster/rastertest"
	"blueprint/internal/rasterserve"
	"blueprint/internal/s3blob"
)

// moduleRoot is the directory of go.mod above the test.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// startServeMode builds the processing function's binary and starts it as
// SageMaker starts the image ("serve"), on a free 127.0.0.1 port. It
// returns the server's URL; the process is stopped (SIGTERM) when the test
// ends, and dies with the test process if that ends first.
func startServeMode(t *testing.T, lib string, env ...string) string {
	t.Helper()
	root := moduleRoot(t)
	bin := filepath.Join(t.TempDir(), "process")
	build := exec.Command("go", "build", "-o", bin, "./functions/process")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build functions/process: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, rasterserve.Arg)
	cmd.Env = append(os.Environ(), "BLUEPRINT_ONNXRUNTIME_LIB="+lib, rasterserve.EnvAddr+"=127.0.0.1:0")
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	addr := make(chan string, 1)
	var logs bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.Write(append(sc.Bytes(), '\n'))
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				addr <- line.Addr
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("serve mode ended with %v after SIGTERM", err)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("serve mode did not stop within 30 s of SIGTERM")
		}
	})
	select {
	case a := <-addr:
		// Not asserted (a loaded machine is slower); docs/deploy.md quotes it.
		t.Logf("serve mode answering on %s %.2f s after its start (binary started, model loaded, port open)", a, time.Since(started).Seconds())
		return "http://" + a
	case err := <-exited:
		t.Fatalf("serve mode exited: %v\n%s", err, logs.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve mode did not start within 2 minutes\n%s", logs.String())
	}
	return ""
}

// runtimeFront emulates the SageMaker Runtime API in front of a container:
// POST /endpoints/{name}/invocations is passed to the container's
// /invocations with its Content-Type and Accept; a container answer other
// than 200 becomes SageMaker's 424 ModelError. It counts invocations.
type runtimeFront struct {
	container string
	calls     atomic.Int64
}

func (f *runtimeFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != "POST" || r.URL.Path != "/endpoints/blueprint-raster/invocations" {
		w.Header().Set("X-Amzn-ErrorType", "ValidationError")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"message":"Endpoint not found: %s"}`, r.URL.Path)
		return
	}
	f.calls.Add(1)
	req, _ := http.NewRequestWithContext(r.Context(), "POST", f.container+"/invocations", r.Body)
	req.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	req.Header.Set("Accept", r.Header.Get("Accept"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.Header().Set("X-Amzn-ErrorType", "InternalFailure")
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		w.Header().Set("X-Amzn-ErrorType", "ModelError")
		w.WriteHeader(http.StatusFailedDependency)
		_ = json.NewEncoder(w).Encode(map[string]any{"Message": fmt.Sprintf("Received client error (%d) from primary", resp.StatusCode),
			"OriginalStatusCode": resp.StatusCode, "OriginalMessage": string(body)})
		return
	}
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	_, _ = w.Write(body)
}

// fakeS3 is a path-style S3 bucket in memory (PUT, GET, DELETE of
// objects) for the staged pages; it counts GETs.
type fakeS3 struct {
	mu   sync.Mutex
	objs map[string][]byte
	gets int
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case "PUT":
		b, _ := io.ReadAll(r.Body)
		f.objs[r.URL.Path] = b
	case "GET":
		b, ok := f.objs[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `<Error><Code>NoSuchKey</Code></Error>`)
			return
		}
		f.gets++
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		_, _ = w.Write(b)
	case "DELETE":
		delete(f.objs, r.URL.Path)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// counts returns the GETs so far and the objects left.
func (f *fakeS3) counts() (gets, left int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gets, len(f.objs)
}

// TestServeModeRasterJob starts the processing image's serve mode as a
// local process, puts an emulated SageMaker Runtime in front of it, and
// runs raster jobs (generated scans: a PNG, and a JPEG, whose luma the
// detector reads from its Y plane) through the engine with a Detector on
// that endpoint, each page inline and then staged in an S3 bucket (as a
// page over the payload limit is): every counted page goes to the
// endpoint, and the detections equal the in-process engine's.
func TestServeModeRasterJob(t *testing.T) {
	lib := rastertest.Library(t)
	ctx := context.Background()
	bucket := &fakeS3{objs: map[string][]byte{}}
	s3srv := httptest.NewServer(bucket)
	t.Cleanup(s3srv.Close)
	front := &runtimeFront{container: startServeMode(t, lib, rasterserve.EnvBucket+"=files", "AWS_ENDPOINT_URL_S3="+s3srv.URL,
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=testsecret")}
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)
	client := sagemakerruntime.NewFromConfig(aws.Config{Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "testsecret", "")},
		func(o *sagemakerruntime.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	local, err := raster.NewLazy(raster.Config{Library: lib})
	if err != nil {
		t.Fatal(err)
	}
	staging := s3blob.New(s3.NewFromConfig(aws.Config{Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "testsecret", "")}, func(o *s3.Options) {
		o.BaseEndpoint, o.UsePathStyle = aws.String(s3srv.URL), true
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	}), "files")
	remote := New(client, "blueprint-raster", local, staging, slog.New(slog.NewTextHandler(io.Discard, nil)))
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	remoteEng, err := engine.New(cat, engine.Options{RasterDetector: remote})
	if err != nil {
		t.Fatal(err)
	}
	localEng, err := engine.New(cat, engine.Options{Raster: raster.Config{Library: lib}})
	if err != nil {
		t.Fatal(err)
	}
	files := docfiles.New(0, 0)
	root := moduleRoot(t)
	for _, c := range []struct{ file, mime string }{
		{"testdata/synth/scan-00004.png", "image/png"},
		{"testdata/synth/scan-00003.jpg", "image/jpeg"},
	} {
		data, err := os.ReadFile(filepath.Join(root, c.file))
		if err != nil {
			t.Fatal(err)
		}
		run := func(eng detect.Engine) []job.PageResult {
			f, err := files.Open(ctx, data, c.mime)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out []job.PageResult
			if err := f.Run(ctx, job.RunOptions{Engine: eng}, func(r job.PageResult) error {
				out = append(out, r)
				return nil
			}); err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			return out
		}
		want := run(localEng)
		if len(want) == 0 || len(want[0].Detections) == 0 {
			t.Fatalf("%s: the in-process engine found nothing to compare", c.file)
		}
		for _, staged := range []bool{false, true} {
			remote.maxRequest = rasterserve.MaxRequestBytes
			if staged {
				remote.maxRequest = 0 // every page is over it
			}
			before := front.calls.Load()
			gets, _ := bucket.counts()
			got := run(remoteEng)
			if n := front.calls.Load() - before; n != int64(len(want)) {
				t.Fatalf("%s (staged %v): %d invocations of the endpoint for %d pages", c.file, staged, n, len(want))
			}
			if after, left := bucket.counts(); staged && (after-gets != len(want) || left != 0) {
				t.Fatalf("%s: %d staged pages read, %d left in the bucket", c.file, after-gets, left)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s (staged %v): detections through the endpoint differ from in-process:\n got %+v\nwant %+v", c.file, staged, got, want)
			}
		}
		t.Logf("%s: %d detections, equal through the endpoint, inline and staged", c.file, len(want[0].Detections))
	}
}
