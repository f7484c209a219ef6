package legend

import (
	"slices"
	"testing"

	"blueprint/internal/drawing"
)

// TestLabels: a plan that labels its equipment in words. Each tag of a
// standard abbreviation and an identifier is one device, OCR's reading
// without the first letter a leader joined to the line included; a
// quoted designation after a word naming a panel or a switchboard is one
// device however often written; an identifier written apart after its
// separator is the tag's; the words of notes and titles, circuit
// references, a rating after the abbreviation, and a type named in quotes
// are none.
func TestLabels(t *testing.T) {
	pg := &drawing.Page{Width: 4000, Height: 3000}
	for i, s := range []string{
		"EVSE#P1-17", "EVSE-3", "VSEHP1I3", "VSEHPI", "evse 4", "EVSE-A", // tags (the last two: an identifier after a space is another word, one needs a digit)
		"EVSE INSTALLED ON WALL (TYP)", "EVSE PLAN PARKING LEVEL P1", "EV1 9/11", "EV1-17/19", "FACP", "FACP:SLC1-M:001", `FACP:SPK3 "006`,
		`NEW PANEL "EV1" 400A MCB`, `TO PANEL "EV1"`, `NEW 400A NEMA 3R SWITCHBOARD "EVD" (26"X38")`,
		`FIXTURE "A"`, `SEE NOTE "3"`, "MSB-1", "EVSE #P1-9", "EVSE 40A",
	} {
		write(pg, s, 100, 100+float64(i)*60, 20)
	}
	v, err := DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range v.Labels(pg) {
		got = append(got, l.Class+" "+l.Text+" "+l.Name)
		if l.Box.w() <= 0 || l.Box.h() <= 0 || l.Em != 20 {
			t.Errorf("label %+v: want its characters' box and size", l)
		}
	}
	want := []string{
		"ev_charger EVSE#P1-17 ", "ev_charger EVSE-3 ", "ev_charger VSEHP1I3 ", "ev_charger VSEHPI ",
		`distribution_board "EV1" EV1`, `main_switchboard "EVD" EVD`, "ev_charger EVSE #P1-9 ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("labels\n%q\nwant\n%q", got, want)
	}
}
