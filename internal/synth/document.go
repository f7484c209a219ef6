package synth

import "fmt"

// LegendDocument draws legend set i of the run with seed (Legend) grown
// to n pages: after the set's own plans come further floors on the same
// paper and scale, drawing the devices of the set's legend, and then the
// riser diagram where the set has one. One legend, defined once, is what
// every plan's symbols are read by, so a document of many pages tests
// what crosses pages: legend templates, page kinds and the counts of the
// whole document. It fails when legend set i alone has more than n pages.
func (g *Generator) LegendDocument(seed uint64, i, n int, opt Options) (Sheet, error) {
	syms := g.novelSymbols(rngFor(seed, i, 20))
	ng := &Generator{symbols: syms, met: g.met, novel: true, layout: newSetLayout(rngFor(seed, i, 30)), colourKeyed: colourTwins(syms)}
	pages, err := ng.legendSheet(seed, i, opt)
	if err != nil {
		return Sheet{}, err
	}
	if len(pages) > n {
		return Sheet{}, fmt.Errorf("synth: legend set %d has %d pages, more than %d", i, len(pages), n)
	}
	var first *design
	plans := 0
	for _, p := range pages {
		if p.role == rolePlan {
			if first == nil {
				first = p
			}
			plans++
		}
	}
	var riser []*design
	if last := pages[len(pages)-1]; last.role == roleRiser {
		pages, riser = pages[:len(pages)-1], []*design{last}
	}
	for k := plans; len(pages)+len(riser) < n; k++ {
		pages = append(pages, ng.designPage(seed, i, k, first))
	}
	pages = append(pages, riser...)
	stem := fmt.Sprintf("legend-document-%05d", i+1)
	data, err := pagesPDF(pages)
	if err != nil {
		return Sheet{}, fmt.Errorf("synth: %s: %w", stem, err)
	}
	t := vectorTruth(pages, stem+".pdf", seed)
	t.Kind = KindLegend
	return Sheet{Name: stem + ".pdf", Data: data, Truth: t}, nil
}
