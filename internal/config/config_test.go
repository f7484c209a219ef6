package config

import (
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
		c.MaxPages != 0 || c.MaxPagePixels != 0 {
		t.Fatalf("defaults: %+v", c)
	}
	c, err = Load(env(map[string]string{
		EnvListenAddr: ":9090", EnvAPIKeys: "a:s:10,b:t", EnvAllowPrivateCallbacks: "1",
		EnvRetention: "48h", EnvUploadTTL: "10m", EnvMaxPages: "7", EnvMaxPagePixels: "1000",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://127.0.0.1:9090" || len(c.APIKeys) != 2 || c.APIKeys[0].RequestsPerMinute != 10 ||
		!c.AllowPrivateCallbacks || c.Retention != 48*time.Hour || c.UploadTTL != 10*time.Minute ||
		c.MaxPages != 7 || c.MaxPagePixels != 1000 {
		t.Fatalf("overrides: %+v", c)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, m := range []map[string]string{
		{EnvBaseURL: "example.com"},
		{EnvAPIKeys: "onlykey"},
		{EnvAllowPrivateCallbacks: "maybe"},
		{EnvRetention: "30d"},
		{EnvUploadTTL: "-1h"},
		{EnvMaxPages: "0"},
		{EnvMaxPagePixels: "x"},
	} {
		if _, err := Load(env(m)); err == nil {
			t.Errorf("Load(%v) accepted", m)
		}
	}
}
