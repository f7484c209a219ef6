package doccheck

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestShellSteps: output comments right after a command belong to it,
// "#  " continues a line, prose comments and inline comments do not.
func TestShellSteps(t *testing.T) {
	page := "# Page\n\n```sh\nB=x   # where\n\n# 1. Create.\ncurl -s $B |\n  jq -c .\n# {\"a\":1,\n#  \"b\":2}\n# second line\nID=1\n\n# 2. Next.\ncurl $B/2\n```\n\n```sh\nmake run\n```\n"
	path := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	steps, err := ShellSteps(path, "$B")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 {
		t.Fatalf("%d steps, want 2: %+v", len(steps), steps)
	}
	if want := []string{`{"a":1,"b":2}`, "second line"}; !reflect.DeepEqual(steps[0].Want, want) {
		t.Errorf("shown %q, want %q", steps[0].Want, want)
	}
	if steps[1].Want != nil || steps[1].Code[len(steps[1].Code)-1] != "curl $B/2" {
		t.Errorf("second step %+v", steps[1])
	}
}

// TestCompare: "…" stands for any text, with the id characters before
// it; anything else must match exactly.
func TestCompare(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{`{"job_id":"aa916824-…","size":58047}`, `{"job_id":"d4f2c986-acaa-4611","size":58047}`, true},
		{`{"job_id":"aa916824-…","size":58047}`, `{"job_id":"d4f2c986-acaa-4611","size":58004}`, false},
		{`url?expires=…&sig=…`, `url?expires=17&sig=ab`, true},
		{`total 182`, `total 1823`, false},
	} {
		if got := Compare([]string{c.want}, []string{c.got, ""}) == ""; got != c.ok {
			t.Errorf("%q against %q: agree %v, want %v", c.want, c.got, got, c.ok)
		}
	}
	if Compare([]string{"a", "b"}, []string{"a"}) == "" {
		t.Error("a missing line agrees")
	}
}
