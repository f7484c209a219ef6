package buildid

import (
	"runtime/debug"
	"testing"
)

func TestOf(t *testing.T) {
	bi := func(settings ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "blueprint"}}
		for i := 0; i+1 < len(settings); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return b
	}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"clean commit", bi("vcs.revision", "abc123", "vcs.modified", "false"), "go1.26.0 blueprint abc123"},
		{"uncommitted changes", bi("vcs.revision", "abc123", "vcs.modified", "true"), ""},
		{"no revision", bi(), ""},
		{"revision without modified flag", bi("vcs.revision", "abc123"), ""},
	} {
		if got := of(c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
