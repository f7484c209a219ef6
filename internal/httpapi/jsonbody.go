package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"blueprint/internal/job"
)

// bodyDecoder reads a request's JSON body, at most limit bytes, and
// returns a decoder of it; a body that gives a key twice in one object is
// a 422 naming the field (issue 47: encoding/json keeps the last of them,
// so what was checked and what is used could differ).
func bodyDecoder(w http.ResponseWriter, r *http.Request, limit int64) (*json.Decoder, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, decodeError(err)
	}
	if field := duplicateKey(data); field != "" {
		return nil, &job.Error{Code: job.CodeUnprocessable, Message: fmt.Sprintf("%s is given more than once; give each field once", field),
			Details: map[string]any{"field": field}}
	}
	return json.NewDecoder(bytes.NewReader(data)), nil
}

// duplicateKey returns the path (detections[1].class) of the first key
// that occurs twice in one object of the JSON in data, "" when none does
// or data is not JSON (decoding then says why).
func duplicateKey(data []byte) string {
	if !json.Valid(data) {
		return ""
	}
	type frame struct {
		obj     bool
		keys    map[string]bool
		wantKey bool
		key     string
		index   int
	}
	var stack []*frame
	path := func(last string) string {
		var b []byte
		for _, f := range stack {
			k := f.key
			if f == stack[len(stack)-1] {
				k = last
			}
			switch {
			case !f.obj:
				b = append(append(append(b, '['), strconv.Itoa(f.index)...), ']')
			case len(b) == 0:
				b = append(b, k...)
			default:
				b = append(append(b, '.'), k...)
			}
		}
		return string(b)
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		if top := stack[len(stack)-1]; top.obj {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			top := stack[n-1]
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return path(k)
				}
				top.keys[k], top.key, top.wantKey = true, k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
