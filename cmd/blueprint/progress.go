package main

import (
	"fmt"
	"io"
	"strings"
)

// barWidth is the width of the bar itself, in cells.
const barWidth = 30

// progressBar draws one file's progress on a terminal, on one line that
// it redraws: pages done of the total. A nil *progressBar draws nothing.
type progressBar struct {
	w    io.Writer
	name string
}

func newProgressBar(w io.Writer, name string) *progressBar {
	b := &progressBar{w: w, name: name}
	fmt.Fprintf(w, "\r%s: reading\x1b[K", name)
	return b
}

// show draws done of total pages.
func (b *progressBar) show(done, total int) {
	if b == nil || total <= 0 {
		return
	}
	full := min(barWidth, barWidth*done/total)
	fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d pages\x1b[K", b.name, strings.Repeat("#", full), strings.Repeat("-", barWidth-full), done, total)
}

// clear erases the bar's line.
func (b *progressBar) clear() {
	if b != nil {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}
