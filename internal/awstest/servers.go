// Package awstest starts the AWS-compatible servers that the AWS adapters
// and Lambda handlers are tested against, without Docker: DynamoDB Local
// (Maven Central), versitygw (an S3 gateway that checks SigV4 signatures,
// presigned URLs included) and moto's server (Step Functions, which runs
// the real state machine definition). `make aws-tools` fetches each at the
// version pinned in the Makefile into .tools/ and names it in the
// environment (EnvDynamoDBLocal, ...); the tests that use them are built
// with the "aws" tag (`make test-aws`).
//
// Each server listens on a random 127.0.0.1 port, is a child of the test
// process, dies with it (PR_SET_PDEATHSIG) and is stopped by Stop.
package awstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Credentials and region every server accepts; none of them is an AWS
// account's.
const (
	Region    = "us-east-1"
	AccessKey = "blueprinttest"
	SecretKey = "blueprinttestsecret0123456789"
	// Account is the account id moto puts in ARNs.
	Account = "123456789012"
)

// startTimeout bounds a server's start on the shared 2-core machine
// (DynamoDB Local's JVM takes about 7 s there).
const startTimeout = 90 * time.Second

// Server is one started server process.
type Server struct {
	Name string
	// URL is the server's endpoint, http://127.0.0.1:<port>.
	URL  string
	Port int

	cmd     *exec.Cmd
	out     *TailBuffer
	cleanup []func()
	done    chan struct{}
	once    sync.Once
}

// Logs returns the end of the server's output, for failure messages.
func (s *Server) Logs() string { return s.out.String() }

// Stop ends the server (SIGTERM to its process group, SIGKILL after 5 s)
// and removes its files.
func (s *Server) Stop() {
	s.once.Do(func() {
		if s.cmd.Process != nil {
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(5 * time.Second):
				_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
				<-s.done
			}
		}
		for _, f := range s.cleanup {
			f()
		}
	})
}

// Environment variables naming the fetched servers; `make test-aws` sets
// them to the versions pinned in the Makefile (under .tools/).
const (
	EnvDynamoDBLocal = "BLUEPRINT_DYNAMODB_LOCAL" // folder of DynamoDB Local's jars and native libraries
	EnvVersityGW     = "BLUEPRINT_VERSITYGW"      // the versitygw binary
	EnvMotoServer    = "BLUEPRINT_MOTO_SERVER"    // moto's moto_server script
)

// tool returns the path named by the environment variable env, or an
// error telling how to get it.
func tool(env string) (string, error) {
	p := os.Getenv(env)
	if p == "" {
		return "", fmt.Errorf("awstest: %s is not set; run the AWS tests with `make test-aws`, which fetches the servers and sets it", env)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("awstest: %s=%s: %w", env, p, err)
	}
	return p, nil
}

// ModuleRoot is the directory of go.mod above the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("awstest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Main starts one server for a test package's TestMain, runs the tests and
// stops it, returning the exit code; *srv is the server while they run.
func Main(m *testing.M, srv **Server, start func() (*Server, error)) int {
	s, err := start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Stop()
	*srv = s
	return m.Run()
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start runs cmd as a server on port and waits until ready answers true.
func start(name string, port int, cmd *exec.Cmd, ready func(url string) bool, cleanup ...func()) (*Server, error) {
	s := &Server{Name: name, URL: "http://127.0.0.1:" + strconv.Itoa(port), Port: port, cmd: cmd,
		out: NewTailBuffer(64 << 10), cleanup: cleanup, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	// Its own process group, so Stop reaches the children it spawns; and
	// it dies with the test process even if that is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		for _, f := range cleanup {
			f()
		}
		return nil, fmt.Errorf("awstest: start %s: %w", name, err)
	}
	exited := make(chan error, 1)
	go func() {
		exited <- cmd.Wait()
		close(s.done)
	}()
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case err := <-exited:
			s.Stop()
			return nil, fmt.Errorf("awstest: %s exited before it was ready (%v):\n%s", name, err, s.Logs())
		default:
		}
		if ready(s.URL) {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("awstest: %s not ready after %s:\n%s", name, startTimeout, s.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// answers reports whether an HTTP request to url gets any response.
func answers(method, url string, body []byte) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// StartDynamoDB starts DynamoDB Local in memory (its sqlite4java native
// library from the same folder).
func StartDynamoDB() (*Server, error) {
	dir, err := tool(EnvDynamoDBLocal)
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("java", "-Xmx512m", "-Djava.library.path="+dir, "-cp", filepath.Join(dir, "*"),
		"software.amazon.dynamodb.services.local.main.ServerRunner", "-inMemory", "-port", strconv.Itoa(port))
	return start("DynamoDB Local", port, cmd, func(url string) bool { return answers(http.MethodPost, url, nil) })
}

// StartS3 starts versitygw with its posix backend in a new temporary
// directory (removed by Stop), AccessKey and SecretKey as its root user.
func StartS3() (*Server, error) {
	bin, err := tool(EnvVersityGW)
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "blueprint-s3-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--region", Region,
		"--port", "127.0.0.1:"+strconv.Itoa(port), "--quiet", "posix", dir)
	return start("versitygw", port, cmd, func(url string) bool { return answers(http.MethodGet, url, nil) },
		func() { _ = os.RemoveAll(dir) })
}

// StartMoto starts moto's server with state machine execution on. Its
// Step Functions interpreter invokes Lambda functions over the Lambda
// Invoke API at http://localhost:<lambdaPort> (moto sends its own
// service calls to MOTO_PORT), where the test serves the real handlers.
func StartMoto(lambdaPort int) (*Server, error) {
	bin, err := tool(EnvMotoServer)
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "MOTO_PORT="+strconv.Itoa(lambdaPort))
	s, err := start("moto", port, cmd, func(url string) bool { return answers(http.MethodGet, url+"/moto-api/", nil) })
	if err != nil {
		return nil, err
	}
	resp, err := http.Post(s.URL+"/moto-api/config", "application/json",
		strings.NewReader(`{"stepfunctions": {"execute_state_machine": true}}`))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			err = fmt.Errorf("status %s", resp.Status)
		}
	}
	if err != nil {
		s.Stop()
		return nil, fmt.Errorf("awstest: turn on moto's state machine execution: %w", err)
	}
	return s, nil
}

// NewTailBuffer returns a writer, safe for concurrent use, that keeps the
// last max bytes written to it (String returns them).
func NewTailBuffer(max int) *TailBuffer { return &TailBuffer{max: max} }

// TailBuffer keeps the last bytes written to it.
type TailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// Write keeps p, dropping the oldest bytes over the limit.
func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

// String returns the bytes kept.
func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
