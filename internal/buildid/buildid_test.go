package buildid

import (
	"encoding/binary"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func note(name string, desc string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(name)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.LittleEndian.AppendUint32(b, 4) // the Go build ID note's type
	b = append(b, name...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return append(b, desc...)
}

func TestFromNote(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"a Go build ID", note("Go\x00\x00", "abc/def"), "abc/def"},
		{"another owner", note("GNU\x00", "abc/def"), ""},
		{"no ID", note("Go\x00\x00", ""), ""},
		{"cut short", note("Go\x00\x00", "abc/def")[:18], ""},
		{"empty", nil, ""},
	} {
		if got := fromNote(c.data, binary.LittleEndian); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCurrent: the test binary's own build ID is read, as `go tool
// buildid` prints it.
func TestCurrent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("build IDs are read from ELF executables")
	}
	got := Current()
	if got == "" {
		t.Fatal("no build ID read from the test binary")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compare with")
	}
	out, err := exec.Command(gocmd, "tool", "buildid", self).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("Current() = %q, want %q", got, want)
	}
}
