package awsapp

import (
	"strings"
	"testing"
)

func TestLoadConfig(t *testing.T) {
	env := map[string]string{EnvTable: "jobs", EnvBucket: "files", "BLUEPRINT_BASE_URL": "https://api.example.com",
		EnvStateMachineARN: "arn:aws:states:eu-north-1:1:stateMachine:f", EnvAPIKeysSecretARN: "arn:aws:secretsmanager:eu-north-1:1:secret:k"}
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := LoadConfig(get(env))
	if err != nil {
		t.Fatal(err)
	}
	if c.Table != "jobs" || c.Bucket != "files" || c.BaseURL != "https://api.example.com" || c.StateMachineARN == "" || c.APIKeysSecretARN == "" {
		t.Fatalf("%+v", c)
	}
	for _, drop := range []string{EnvTable, EnvBucket, "BLUEPRINT_BASE_URL"} {
		m := map[string]string{}
		for k, v := range env {
			if k != drop {
				m[k] = v
			}
		}
		if _, err := LoadConfig(get(m)); err == nil || !strings.Contains(err.Error(), drop) {
			t.Errorf("without %s: %v", drop, err)
		}
	}
	env["BLUEPRINT_UPLOAD_TTL"] = "200h"
	if _, err := LoadConfig(get(env)); err == nil {
		t.Error("an upload TTL over S3's 7-day presign limit was accepted")
	}
}
