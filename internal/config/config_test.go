package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.ListenAddr != DefaultListenAddr || c.DataDir != DefaultDataDir || c.BaseURL != "http://127.0.0.1:8080" ||
		c.AllowPrivateCallbacks || len(c.APIKeys) != 0 || c.Retention != 30*24*time.Hour || c.UploadTTL != time.Hour ||
		c.MaxPages != 0 || c.MaxPagePixels != 0 || c.BatchPages != 0 || c.SearchBudget != 0 {
		t.Fatalf("defaults: %+v", c)
	}
	c, err = Load(env(map[string]string{
		EnvListenAddr: ":9090", EnvAPIKeys: "key-a-0123456789:s:10,key-b-0123456789:t", EnvAllowPrivateCallbacks: "1",
		EnvRetention: "48h", EnvUploadTTL: "10m", EnvMaxPages: "7", EnvMaxPagePixels: "1000", EnvBatchPages: "12",
		EnvSearchBudget: "90s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://127.0.0.1:9090" || len(c.APIKeys) != 2 || c.APIKeys[0].RequestsPerMinute != 10 ||
		!c.AllowPrivateCallbacks || c.Retention != 48*time.Hour || c.UploadTTL != 10*time.Minute ||
		c.MaxPages != 7 || c.MaxPagePixels != 1000 || c.BatchPages != 12 || c.SearchBudget != 90*time.Second {
		t.Fatalf("overrides: %+v", c)
	}
}

// TestLoadErrors: every bad value refuses to start with one line that
// names the variable.
func TestLoadErrors(t *testing.T) {
	for _, m := range []map[string]string{
		{EnvBaseURL: "example.com"},
		{EnvAPIKeys: "onlykey"},
		{EnvAPIKeys: " , "},
		{EnvAPIKeys: "k:s"},
		{EnvAPIKeys: "key-a-0123456789:s:fast"},
		{EnvAPIKeys: "key-a-0123456789:s:-5"},
		{EnvAllowPrivateCallbacks: "maybe"},
		{EnvRetention: "30d"},
		{EnvRetention: "1h30"},
		{EnvUploadTTL: "-1h"},
		{EnvMaxPages: "0"},
		{EnvMaxPagePixels: "x"},
		{EnvBatchPages: "0"},
		{EnvBatchPages: "ten"},
		{EnvSearchBudget: "20"},
		{EnvSearchBudget: "-5s"},
		{EnvMaxDocuments: "0"},
		{EnvMaxDocuments: "two"},
		{EnvMemoryBudget: "lots"},
		{EnvMemoryBudget: "-1GiB"},
		{EnvMemoryBudget: "99999999999TiB"},
	} {
		_, err := Load(env(m))
		if err == nil {
			t.Errorf("Load(%v) accepted", m)
			continue
		}
		for name := range m {
			if msg := err.Error(); !strings.HasPrefix(msg, name+": ") || strings.Contains(msg, "\n") {
				t.Errorf("Load(%v): %q is not one line starting with %s", m, msg, name)
			}
		}
	}
}

// TestDocumentBudget: the defaults follow the machine (half its memory,
// one document per core while each gets 1 GiB), and the variables win.
func TestDocumentBudget(t *testing.T) {
	for _, c := range []struct {
		m      Machine
		env    map[string]string
		budget int64
		docs   int
	}{
		{Machine{24 << 30, 2}, nil, 12 << 30, 2},
		{Machine{24 << 30, 16}, nil, 12 << 30, 12},
		{Machine{3 << 30, 4}, nil, 3 << 29, 1},
		{Machine{24 << 30, 2}, map[string]string{EnvMemoryBudget: "1536MiB", EnvMaxDocuments: "3"}, 1536 << 20, 3},
		{Machine{24 << 30, 2}, map[string]string{EnvMemoryBudget: "2000000000"}, 2e9, 1},
	} {
		cfg, err := LoadFor(env(c.env), c.m)
		if err != nil || cfg.MemoryBudget != c.budget || cfg.MaxDocuments != c.docs {
			t.Errorf("%+v %v: budget %d, %d documents, %v; want %d, %d", c.m, c.env, cfg.MemoryBudget, cfg.MaxDocuments, err, c.budget, c.docs)
		}
	}
	if m := ThisMachine(); m.MemoryBytes < 64<<20 || m.Cores < 1 {
		t.Errorf("ThisMachine() = %+v", m)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "1536MiB": 1536 << 20, "2 GiB": 2 << 30, "3GB": 3e9, "10B": 10, "4KiB": 4096} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "1.5GiB", "GiB", "9223372036854775807KiB", "12 apples"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) accepted", in)
		}
	}
}
