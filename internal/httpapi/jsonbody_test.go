package httpapi

import "testing"

func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":{"b":1,"c":{"b":2}},"d":[{"b":1},{"b":2}]}`, ""},
		{`{"a":{"b":1,"b":2}}`, "a.b"},
		{`{"d":[{"x":1},{"y":[1,{"z":1}],"y":2}]}`, "d[1].y"},
		{`{"d":[[1,2],{"z":1,"z":1}]}`, "d[1].z"},
		{`[{"a":1},{"a":1,"a":1}]`, "[1].a"},
		{`{"a\u0062":1,"ab":2}`, "ab"},    // the same key, escaped
		{`{"a":1,"a":`, ""},               // not JSON: decoding says why
		{`{"a":"{\"a\":1,\"a\":1}"}`, ""}, // keys in a string are text
		{`{"detections":[],"detections":null}`, "detections"},
	} {
		if got := duplicateKey([]byte(c.in)); got != c.want {
			t.Errorf("duplicateKey(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}
