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
		c.Limits.MaxPages != 500 {
		t.Fatalf("defaults: %+v", c)
	}
	c, err = Load(env(map[string]string{
		EnvListenAddr: ":9090", EnvAPIKeys: "key-a-0123456789:s:10,key-b-0123456789:t", EnvAllowPrivateCallbacks: "1",
		EnvRetention: "48h", EnvUploadTTL: "10m", EnvMaxPages: "7", EnvMaxPagePixels: "1000",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://127.0.0.1:9090" || len(c.APIKeys) != 2 || c.APIKeys[0].RequestsPerMinute != 10 ||
		!c.AllowPrivateCallbacks || c.Retention != 48*time.Hour || c.UploadTTL != 10*time.Minute ||
		c.Limits.MaxPages != 7 || c.Limits.MaxPagePixels != 1000 {
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
