package catalog

import (
	"strconv"
	"strings"
)

// PreferredLanguage picks the display language for an Accept-Language
// header value: LangFinnish when a "fi" range (e.g. "fi", "fi-FI") has a
// higher quality than every English or wildcard range, LangEnglish
// otherwise (including an empty or malformed header). Ties go to English,
// the default.
func PreferredLanguage(acceptLanguage string) string {
	bestFI, bestEN := -1.0, -1.0
	for _, part := range strings.Split(acceptLanguage, ",") {
		fields := strings.Split(part, ";")
		tag := primaryTag(fields[0])
		if tag == "" {
			continue
		}
		q := 1.0
		for _, p := range fields[1:] {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || strings.TrimSpace(k) != "q" {
				continue
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 || f > 1 {
				q = 0
			} else {
				q = f
			}
		}
		switch tag {
		case LangFinnish:
			bestFI = max(bestFI, q)
		case LangEnglish, "*":
			bestEN = max(bestEN, q)
		}
	}
	if bestFI > 0 && bestFI > bestEN {
		return LangFinnish
	}
	return LangEnglish
}
