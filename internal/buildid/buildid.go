// Package buildid names the running program's build, for results a build
// derives and stores for later (a reference job's cut glyphs): a result
// stored under one build's id is not read by another build, whose code may
// derive it otherwise.
package buildid

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
)

// noteSection is the ELF section where the Go linker writes the build ID
// (`go tool buildid`): a hash of everything the program was built from,
// its dependencies, compiler and flags included, so any change to the
// code gives another.
const noteSection = ".note.go.buildid"

// Current is the running program's Go build ID, read from its executable.
// It is "" where it cannot be read (not an ELF executable, or one built
// without it): nothing derived should then be kept, since such a build
// cannot be told from the next.
func Current() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(noteSection)
	if s == nil {
		return ""
	}
	data, err := s.Data()
	if err != nil {
		return ""
	}
	return fromNote(data, f.ByteOrder)
}

// fromNote is the build ID an ELF note section holds: name size, desc
// size and type (4 bytes each), the name "Go" padded to 4 bytes, then the
// ID; "" where data is no Go build ID note.
func fromNote(data []byte, order binary.ByteOrder) string {
	if len(data) < 16 {
		return ""
	}
	nameSize, descSize := order.Uint32(data[0:4]), order.Uint32(data[4:8])
	name := 12 + int((nameSize+3)&^3)
	if nameSize != 4 || !bytes.Equal(data[12:15], []byte("Go\x00")) || descSize == 0 || uint64(name)+uint64(descSize) > uint64(len(data)) {
		return ""
	}
	return string(data[name : name+int(descSize)])
}
