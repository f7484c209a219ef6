package job

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/iotest"
)

func TestCanonicalMime(t *testing.T) {
	for in, want := range map[string]string{
		"image/jpg":                "image/jpeg",
		"IMAGE/JPEG":               "image/jpeg",
		"application/pdf; q=1":     "application/pdf",
		" image/png ":              "image/png",
		"":                         "",
		"application/octet-stream": "application/octet-stream",
	} {
		if got := CanonicalMime(in); got != want {
			t.Errorf("CanonicalMime(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSizedReader(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 1000)
	cases := []struct {
		name string
		r    io.Reader
		want int64
		err  error
	}{
		{"exact", bytes.NewReader(data), 1000, nil},
		{"exact one byte at a time", iotest.OneByteReader(bytes.NewReader(data)), 1000, nil},
		{"one too many", bytes.NewReader(append(data, 'y')), 1000, errTooLarge},
		{"far too many", io.MultiReader(bytes.NewReader(data), bytes.NewReader(data)), 1000, errTooLarge},
		{"short", bytes.NewReader(data[:999]), 1000, errShort},
		{"empty", bytes.NewReader(nil), 1000, errShort},
		{"broken body", iotest.ErrReader(errors.New("reset")), 1000, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := sha256.New()
			sr := &sizedReader{r: c.r, want: c.want, h: h}
			n, err := io.Copy(io.Discard, sr)
			switch {
			case c.name == "broken body":
				var be *bodyError
				if !errors.As(err, &be) {
					t.Fatalf("err = %v, want a bodyError", err)
				}
			case !errors.Is(err, c.err) || (c.err == nil && err != nil):
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if n > c.want {
				t.Fatalf("passed %d bytes, more than %d", n, c.want)
			}
			if c.err == nil && c.name != "broken body" {
				if sum := sha256.Sum256(data); !bytes.Equal(h.Sum(nil), sum[:]) {
					t.Fatal("hash differs")
				}
			}
		})
	}
}

func TestErrorCode(t *testing.T) {
	wrapped := errors.Join(errors.New("ctx"), Errorf(CodeConflict, "x"))
	if ErrorCode(wrapped) != CodeConflict || ErrorCode(errors.New("plain")) != CodeInternal {
		t.Fatal("ErrorCode does not see through wrapping or defaults wrongly")
	}
}

// TestPrinted: printed quantities are summed by class over mapped rows
// that print one, for the whole job or one page's rows.
func TestPrinted(t *testing.T) {
	q := func(n int) *int { return &n }
	rows := []LegendRow{
		{PageIndex: 0, Class: "speaker_visual", Quantity: q(26)},
		{PageIndex: 0, Class: "speaker_visual", Quantity: q(16)},
		{PageIndex: 1, Class: "speaker_visual", Quantity: q(5)},
		{PageIndex: 0, Class: "smoke_detector"},   // no quantity printed
		{PageIndex: 0, Class: "", Quantity: q(3)}, // mapped to no class
		{PageIndex: 1, Class: "manual_call_point", Quantity: q(11)},
	}
	if got := printed(rows, -1); len(got) != 2 || got["speaker_visual"] != 47 || got["manual_call_point"] != 11 {
		t.Errorf("whole job: %v", got)
	}
	if got := printed(rows, 0); len(got) != 1 || got["speaker_visual"] != 42 {
		t.Errorf("page 0: %v", got)
	}
	if got := printed(rows, 2); got != nil {
		t.Errorf("page without rows: %v, want nil", got)
	}
}

// TestRepeats: a legend drawn on several sheets is one set of rows
// repeated: each copy on a later page points at the first; rows that
// differ by tag, part number or class, and a like row on the same page,
// repeat nothing.
func TestRepeats(t *testing.T) {
	rows := []LegendRow{
		{PageIndex: 3, Description: "Distribution Board", Class: "distribution_board"},
		{PageIndex: 3, Description: "HORN/STROBE", Class: "sounder_visual", Tag: "15CD"},
		{PageIndex: 3, Description: "HORN/STROBE", Class: "sounder_visual", Tag: "30CD"},
		{PageIndex: 3, Description: "Distribution Board", Class: "distribution_board"}, // same page: a row of its own
		{PageIndex: 4, Description: "distribution  board", Class: "distribution_board"},
		{PageIndex: 4, Description: "HORN/STROBE", Class: "sounder_visual", Tag: "30CD"},
		{PageIndex: 4, Description: "HORN/STROBE", Class: "sounder_visual", Tag: "75CD"},
		{PageIndex: 4, Description: "Distribution Board", Class: "distribution_board", PartNumber: "DB-2"},
		{PageIndex: 5, Description: "Distribution Board", Class: "distribution_board"},
		{PageIndex: 5, Description: "Distribution Board", Class: ""},
	}
	want := []int{-1, -1, -1, -1, 0, 2, -1, -1, 0, -1}
	if got := Repeats(rows); !slices.Equal(got, want) {
		t.Errorf("Repeats: %v, want %v", got, want)
	}
}
