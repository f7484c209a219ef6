package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"blueprint/internal/apitest"
	"blueprint/internal/config"
)

// TestContract runs the partner-API contract tests (package apitest)
// against the local server: embedded store, blobs on disk behind signed
// URLs, the in-process runner.
func TestContract(t *testing.T) {
	apitest.RunContract(t, func(t *testing.T, o apitest.Options) (apitest.Service, *apitest.Client) {
		e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: o.Engine, clock: o.Clock}, func(c *config.Config) {
			c.AllowPrivateCallbacks = !o.StrictCallbacks
		})
		return e, e.api
	})
}

// TestRefusesBadConfiguration: a key list with no usable key, a short key,
// a malformed rate or duration stops the server before it listens or
// writes anything, with one line naming the variable; " , " does not fall
// back to a development key.
func TestRefusesBadConfiguration(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{config.EnvAPIKeys, " , "},
		{config.EnvAPIKeys, "short:whsec"},
		{config.EnvAPIKeys, keyA + ":" + secretA + ":often"},
		{config.EnvRetention, "30 days"},
		{config.EnvUploadTTL, "0s"},
	} {
		dir := t.TempDir()
		env := map[string]string{config.EnvDataDir: dir, config.EnvListenAddr: "127.0.0.1:0", c.name: c.value}
		var out bytes.Buffer
		err := run(context.Background(), func(k string) string { return env[k] }, &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err == nil || !strings.HasPrefix(err.Error(), c.name+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%q: %v; want one line starting with %s", c.name, c.value, err, c.name)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 || out.Len() != 0 {
			t.Errorf("%s=%q: wrote %v and printed %q before refusing", c.name, c.value, entries, out.String())
		}
	}
}
