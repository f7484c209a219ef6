package legend

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// documentState is a Document with every field exported, for encoding.
type documentState struct {
	Rows      []Row
	Classes   []string
	Kinds     []string
	Tables    map[int][]Rect
	Titles    map[int]Rect
	Leader    []int
	Same      []int
	Siblings  map[int][]int
	Textless  []int
	Schedules []Schedule
	OCR       map[int]PageText
}

// MarshalBinary encodes the whole document (rows, glyphs, tables, the
// grouping of rows), so that another process can match a document's pages
// against its legends without reading the document again: a Document
// decoded with UnmarshalBinary answers InTable, Leaders and Assign as the
// original does. Floats are kept bit for bit (encoding/gob).
func (d *Document) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	st := documentState{Rows: d.Rows, Classes: d.Classes, Kinds: d.Kinds, Tables: d.tables, Titles: d.titles, Leader: d.leader, Same: d.same, Siblings: d.siblings, Textless: d.Textless, Schedules: d.Schedules, OCR: d.ocr}
	if err := gob.NewEncoder(&b).Encode(st); err != nil {
		return nil, fmt.Errorf("legend: encode document: %w", err)
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded, replacing d. It
// refuses a state whose parts disagree in length (rows, classes and the
// grouping).
func (d *Document) UnmarshalBinary(data []byte) error {
	var st documentState
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&st); err != nil {
		return fmt.Errorf("legend: decode document: %w", err)
	}
	n := len(st.Rows)
	if len(st.Classes) != n || len(st.Leader) != n || len(st.Same) != n {
		return fmt.Errorf("legend: decode document: %d rows, %d classes, %d leaders, %d repeats", n, len(st.Classes), len(st.Leader), len(st.Same))
	}
	for i := range n {
		if st.Leader[i] < 0 || st.Leader[i] >= n || st.Same[i] < 0 || st.Same[i] >= n {
			return fmt.Errorf("legend: decode document: row %d groups with a row out of range", i)
		}
	}
	for _, s := range st.Schedules {
		for _, r := range s.Rows {
			if r < 0 || r >= n {
				return fmt.Errorf("legend: decode document: a schedule holds row %d of %d", r, n)
			}
		}
	}
	if st.Tables == nil {
		st.Tables = map[int][]Rect{}
	}
	if st.Titles == nil {
		st.Titles = map[int]Rect{}
	}
	if st.Siblings == nil {
		st.Siblings = map[int][]int{}
	}
	*d = Document{Rows: st.Rows, Classes: st.Classes, Kinds: st.Kinds, tables: st.Tables, titles: st.Titles, leader: st.Leader, same: st.Same, siblings: st.Siblings, Textless: st.Textless, Schedules: st.Schedules, ocr: st.OCR}
	return nil
}
