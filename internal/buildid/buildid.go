// Package buildid names the program's build, for results a build derives
// and stores for later (a reference job's cut glyphs): a result stored
// under one build's id is not read by another build, whose code may
// derive it differently.
package buildid

import (
	"runtime/debug"
	"strings"
)

// Current is the running program's build: the Go version and the commit
// it was built from (Go's vcs.revision). It is "" where the build does
// not say which commit, or says the tree had uncommitted changes: such a
// build cannot be told from the next one, so nothing derived should be
// kept for it.
func Current() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return of(bi)
}

func of(bi *debug.BuildInfo) string {
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" || modified != "false" {
		return ""
	}
	return strings.Join([]string{bi.GoVersion, bi.Main.Path, rev}, " ")
}
