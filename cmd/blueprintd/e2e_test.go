package main

import (
	"blueprint/internal/apitest"
	"blueprint/internal/config"
	"testing"
)

// TestContract runs the partner-API contract tests (package apitest)
// against the local server: embedded store, blobs on disk behind signed
// URLs, the in-process runner.
func TestContract(t *testing.T) {
	apitest.RunContract(t, func(t *testing.T, o apitest.Options) (apitest.Service, *apitest.Client) {
		e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: o.Engine}, func(c *config.Config) {
			c.AllowPrivateCallbacks = !o.StrictCallbacks
		})
		return e, e.api
	})
}
