package awstest

import (
	"fmt"
	"regexp"
	"strings"
)

// TemplateFilterPattern returns the FilterPattern of the template's
// AWS::Logs::MetricFilter logicalID.
func TemplateFilterPattern(logicalID string) (string, error) {
	tmpl, err := parseTemplate()
	if err != nil {
		return "", err
	}
	res := lookup(lookup(tmpl, "Resources"), logicalID)
	if res == nil || lookup(res, "Type").Value != "AWS::Logs::MetricFilter" {
		return "", fmt.Errorf("awstest: no metric filter %s in template.yaml", logicalID)
	}
	p := lookup(lookup(res, "Properties"), "FilterPattern")
	if p == nil {
		return "", fmt.Errorf("awstest: %s has no FilterPattern", logicalID)
	}
	return p.Value, nil
}

var (
	jsonFilter = regexp.MustCompile(`^\{\s*(.*?)\s*\}$`)
	jsonTerm   = regexp.MustCompile(`^\$\.([A-Za-z0-9_]+)\s*(=|!=)\s*"([^"]*)"$`)
)

// MatchJSONFilter tells whether a JSON log event (decoded) matches a
// CloudWatch Logs JSON filter pattern of string comparisons joined by &&,
// such as { $.msg = "webhook gave up" && $.level = "WARN" }: the part of the
// syntax the template's metric filters use. Other patterns are an error.
func MatchJSONFilter(pattern string, event map[string]any) (bool, error) {
	m := jsonFilter.FindStringSubmatch(strings.TrimSpace(pattern))
	if m == nil {
		return false, fmt.Errorf("awstest: %q is not a JSON filter pattern", pattern)
	}
	for _, term := range strings.Split(m[1], "&&") {
		t := jsonTerm.FindStringSubmatch(strings.TrimSpace(term))
		if t == nil {
			return false, fmt.Errorf("awstest: term %q of %q is not $.field = \"string\"", term, pattern)
		}
		v, ok := event[t[1]].(string)
		if (t[2] == "=") != (ok && v == t[3]) {
			return false, nil
		}
	}
	return true, nil
}
