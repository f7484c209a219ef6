package job

import "testing"

// TestAgreement: each case names the witnesses that agree.
func TestAgreement(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, c := range []struct {
		detected, tagged int
		printed          *int
		schedule         bool
		want             string
	}{
		{5, 0, nil, false, AgreeUnchecked},
		{5, 0, n(5), false, AgreeAll},
		{4, 0, n(5), false, AgreeNone},
		{63, 63, n(63), true, AgreeAll},
		{29, 29, n(30), true, AgreeDetectedTagged},
		{0, 0, nil, true, AgreeAll},
		{8, 8, nil, true, AgreeAll},
		{10, 8, n(10), false, AgreeDetectedPrinted},
		{10, 8, n(8), false, AgreeTaggedPrinted},
		{10, 8, n(9), false, AgreeNone},
	} {
		if got := Agreement(c.detected, c.tagged, c.printed, c.schedule); got != c.want {
			t.Errorf("Agreement(%d, %d, %v, %v) = %q, want %q", c.detected, c.tagged, c.printed, c.schedule, got, c.want)
		}
	}
}
