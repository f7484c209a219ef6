package config

import (
	"strings"
	"testing"

	"blueprint/internal/apikey"
)

// FuzzLoad: any BLUEPRINT_API_KEYS, budget and duration values are
// accepted or refused with one line naming their variable, never a
// panic; accepted keys are long enough and have a secret and a rate.
func FuzzLoad(f *testing.F) {
	f.Add("key-a-0123456789:whsec:10, key-b-0123456789:s", "1536MiB", "2", "720h")
	f.Add(" , ", "", "", "")
	f.Add("k:s:0", "9223372036854775807TiB", "-1", "1h30")
	f.Fuzz(func(t *testing.T, keys, budget, docs, retention string) {
		env := map[string]string{EnvAPIKeys: keys, EnvMemoryBudget: budget, EnvMaxDocuments: docs, EnvRetention: retention}
		c, err := LoadFor(func(k string) string { return env[k] }, Machine{MemoryBytes: 8 << 30, Cores: 4})
		if err != nil {
			msg := err.Error()
			named := false
			for name, v := range env {
				named = named || (v != "" && strings.HasPrefix(msg, name+": "))
			}
			if !named || strings.Contains(msg, "\n") {
				t.Fatalf("error %q names no variable on one line", msg)
			}
			return
		}
		for _, e := range c.APIKeys {
			if len(e.Key) < apikey.MinKeyLength || e.WebhookSecret == "" || e.RequestsPerMinute < 1 {
				t.Fatalf("accepted entry %+v", e)
			}
		}
		if c.MemoryBudget < 1 || c.MaxDocuments < 1 || c.Retention <= 0 {
			t.Fatalf("accepted %+v", c)
		}
	})
}
