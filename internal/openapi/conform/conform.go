// Package conform checks real HTTP responses and webhook requests against
// the service's OpenAPI document (package openapi): the documented status,
// the required headers and the JSON body against the response schema (JSON
// Schema 2020-12). Tests and the API client use it; the service does not,
// so the schema compiler stays out of its binary.
package conform

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"blueprint/internal/openapi"
)

// Errors of ValidateResponse; test with errors.Is.
var (
	// ErrUndocumented: the path, method or status is not in the document.
	ErrUndocumented = errors.New("openapi: not documented")
	// ErrInvalid: a header or the body does not match the document.
	ErrInvalid = errors.New("openapi: does not match the document")
)

// resourceURL names the document as a JSON Schema resource, so that a
// response schema compiled at resourceURL#/paths/... resolves its $refs
// into #/components.
const resourceURL = "https://blueprint.invalid/openapi.json"

// Validator checks responses against the embedded document. It is safe for
// concurrent use.
type Validator struct {
	routes   []*route
	webhooks map[string]*webhookOp
}

// webhookOp is one entry of the document's webhooks: the request the service
// sends to a partner's callback_url.
type webhookOp struct {
	headers []header
	body    *jsonschema.Schema
}

type route struct {
	template string
	re       *regexp.Regexp
	literal  int // literal characters, to prefer /a/init over /a/{id}
	methods  map[string]map[string]*response
}

type response struct {
	where   string
	headers []header
	content map[string]*jsonschema.Schema // media type -> schema (nil for non-JSON)
}

type header struct {
	name     string
	required bool
	typ      string
	schema   *jsonschema.Schema
}

// Minimal OpenAPI shapes the validator reads.
type (
	oaDoc struct {
		Paths    map[string]map[string]json.RawMessage `json:"paths"`
		Webhooks map[string]struct {
			Post struct {
				Parameters []struct {
					Name     string `json:"name"`
					In       string `json:"in"`
					Required bool   `json:"required"`
					Schema   struct {
						Type any `json:"type"`
					} `json:"schema"`
				} `json:"parameters"`
			} `json:"post"`
		} `json:"webhooks"`
		Components struct {
			Responses map[string]oaResponse `json:"responses"`
			Headers   map[string]oaHeader   `json:"headers"`
		} `json:"components"`
	}
	oaOperation struct {
		Responses map[string]oaResponse `json:"responses"`
	}
	oaResponse struct {
		Ref     string                     `json:"$ref"`
		Headers map[string]oaHeader        `json:"headers"`
		Content map[string]json.RawMessage `json:"content"`
	}
	oaHeader struct {
		Ref      string `json:"$ref"`
		Required bool   `json:"required"`
		Schema   struct {
			Type any `json:"type"`
		} `json:"schema"`
	}
)

var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "patch": true, "head": true, "options": true, "trace": true}

// NewValidator compiles every response schema and header schema of the
// document.
func NewValidator() (*Validator, error) {
	doc := openapi.Document()
	var d oaDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("openapi: parse document: %w", err)
	}
	whole, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("openapi: parse document: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(resourceURL, whole); err != nil {
		return nil, fmt.Errorf("openapi: add document as schema resource: %w", err)
	}
	compile := func(ptr string) (*jsonschema.Schema, error) {
		s, err := c.Compile(resourceURL + "#" + ptr)
		if err != nil {
			return nil, fmt.Errorf("openapi: compile %s: %w", ptr, err)
		}
		return s, nil
	}

	v := &Validator{}
	for tmpl, item := range d.Paths {
		r, err := newRoute(tmpl)
		if err != nil {
			return nil, err
		}
		for method, raw := range item {
			if !httpMethods[method] {
				continue
			}
			var op oaOperation
			if err := json.Unmarshal(raw, &op); err != nil {
				return nil, fmt.Errorf("openapi: %s %s: %w", method, tmpl, err)
			}
			statuses := map[string]*response{}
			for status, resp := range op.Responses {
				ptr := "/paths/" + escape(tmpl) + "/" + method + "/responses/" + escape(status)
				if resp.Ref != "" {
					if ptr, resp, err = deref(ptr, resp.Ref, "responses", d.Components.Responses); err != nil {
						return nil, err
					}
				}
				out := &response{where: strings.ToUpper(method) + " " + tmpl + " " + status, content: map[string]*jsonschema.Schema{}}
				for mt := range resp.Content {
					var s *jsonschema.Schema
					if isJSON(mt) {
						if s, err = compile(ptr + "/content/" + escape(mt) + "/schema"); err != nil {
							return nil, err
						}
					}
					out.content[mt] = s
				}
				for name, h := range resp.Headers {
					hptr := ptr + "/headers/" + escape(name)
					if h.Ref != "" {
						if hptr, h, err = deref(hptr, h.Ref, "headers", d.Components.Headers); err != nil {
							return nil, err
						}
					}
					s, err := compile(hptr + "/schema")
					if err != nil {
						return nil, err
					}
					typ, _ := h.Schema.Type.(string)
					out.headers = append(out.headers, header{name: name, required: h.Required, typ: typ, schema: s})
				}
				sort.Slice(out.headers, func(i, j int) bool { return out.headers[i].name < out.headers[j].name })
				statuses[status] = out
			}
			r.methods[strings.ToUpper(method)] = statuses
		}
		v.routes = append(v.routes, r)
	}
	v.webhooks = map[string]*webhookOp{}
	for name, item := range d.Webhooks {
		ptr := "/webhooks/" + escape(name) + "/post"
		body, err := compile(ptr + "/requestBody/content/application~1json/schema")
		if err != nil {
			return nil, err
		}
		w := &webhookOp{body: body}
		for i, p := range item.Post.Parameters {
			if p.In != "header" {
				continue
			}
			s, err := compile(ptr + "/parameters/" + strconv.Itoa(i) + "/schema")
			if err != nil {
				return nil, err
			}
			typ, _ := p.Schema.Type.(string)
			w.headers = append(w.headers, header{name: p.Name, required: p.Required, typ: typ, schema: s})
		}
		v.webhooks[name] = w
	}
	// Most literal first: a concrete path wins over a templated one.
	sort.Slice(v.routes, func(i, j int) bool {
		if v.routes[i].literal != v.routes[j].literal {
			return v.routes[i].literal > v.routes[j].literal
		}
		return v.routes[i].template < v.routes[j].template
	})
	return v, nil
}

// deref resolves ref, found at the JSON Pointer where, to the entry of
// #/components/<kind> it names: the entry's pointer and its value.
func deref[T any](where, ref, kind string, defs map[string]T) (string, T, error) {
	var zero T
	name, ok := strings.CutPrefix(ref, "#/components/"+kind+"/")
	if !ok {
		return "", zero, fmt.Errorf("openapi: %s: unsupported $ref %q", where, ref)
	}
	target, ok := defs[name]
	if !ok {
		return "", zero, fmt.Errorf("openapi: %s: dangling $ref %q", where, ref)
	}
	return "/components/" + kind + "/" + escape(name), target, nil
}

// escape encodes a JSON Pointer token (RFC 6901) for use in a URI fragment.
func escape(tok string) string {
	tok = strings.ReplaceAll(tok, "~", "~0")
	tok = strings.ReplaceAll(tok, "/", "~1")
	return url.PathEscape(tok)
}

var paramRE = regexp.MustCompile(`\{[^{}/]+\}`)

// newRoute turns a path template such as /files/pages/{job_id}/{page_index}.png
// into a regular expression; a parameter matches one non-empty segment part.
func newRoute(tmpl string) (*route, error) {
	var sb strings.Builder
	sb.WriteString("^")
	last, literal := 0, 0
	for _, loc := range paramRE.FindAllStringIndex(tmpl, -1) {
		sb.WriteString(regexp.QuoteMeta(tmpl[last:loc[0]]))
		literal += loc[0] - last
		sb.WriteString(`([^/]+)`)
		last = loc[1]
	}
	sb.WriteString(regexp.QuoteMeta(tmpl[last:]))
	literal += len(tmpl) - last
	sb.WriteString("$")
	re, err := regexp.Compile(sb.String())
	if err != nil {
		return nil, fmt.Errorf("openapi: path template %q: %w", tmpl, err)
	}
	return &route{template: tmpl, re: re, literal: literal, methods: map[string]map[string]*response{}}, nil
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

// ValidateResponse checks one response to method and the real request path
// (a query string is ignored): the path, method and status must be
// documented (an error wrapping ErrUndocumented otherwise), every required
// header must be present and match its schema, and a JSON body must match
// the response schema (errors wrap ErrInvalid and the schema error). A
// response documented without content may carry any body (a redirect's).
func (v *Validator) ValidateResponse(method, path string, status int, header http.Header, body []byte) error {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	method = strings.ToUpper(method)
	var (
		ops      map[string]*response
		template string
		pathSeen bool
	)
	for _, r := range v.routes {
		if !r.re.MatchString(path) {
			continue
		}
		pathSeen = true
		if m, ok := r.methods[method]; ok {
			ops, template = m, r.template
			break
		}
	}
	switch {
	case !pathSeen:
		return fmt.Errorf("%w: path %s", ErrUndocumented, path)
	case ops == nil:
		return fmt.Errorf("%w: method %s on %s", ErrUndocumented, method, path)
	}
	resp := ops[strconv.Itoa(status)]
	if resp == nil {
		resp = ops[strconv.Itoa(status/100)+"XX"]
	}
	if resp == nil {
		resp = ops["default"]
	}
	if resp == nil {
		return fmt.Errorf("%w: status %d for %s %s", ErrUndocumented, status, method, template)
	}
	for _, h := range resp.headers {
		if err := h.check(header); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, resp.where, err)
		}
	}
	if len(resp.content) == 0 {
		return nil
	}
	ct := header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("%w: %s: Content-Type %q: %w", ErrInvalid, resp.where, ct, err)
	}
	schema, ok := resp.content[mt]
	if !ok {
		return fmt.Errorf("%w: %s: Content-Type %q is not documented", ErrInvalid, resp.where, mt)
	}
	if schema == nil {
		if len(body) == 0 {
			return fmt.Errorf("%w: %s: empty %s body", ErrInvalid, resp.where, mt)
		}
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %s: body is not JSON: %w", ErrInvalid, resp.where, err)
	}
	if err := schema.Validate(inst); err != nil {
		return fmt.Errorf("%w: %s: body: %w", ErrInvalid, resp.where, err)
	}
	return nil
}

// ValidateWebhook checks a webhook request the service sent for event
// ("job.done" or "job.failed"): its documented headers and its JSON body.
// Errors wrap ErrUndocumented for an unknown event and ErrInvalid for a
// mismatch.
func (v *Validator) ValidateWebhook(event string, header http.Header, body []byte) error {
	w := v.webhooks[event]
	if w == nil {
		return fmt.Errorf("%w: webhook %q", ErrUndocumented, event)
	}
	for _, h := range w.headers {
		if err := h.check(header); err != nil {
			return fmt.Errorf("%w: webhook %s: %w", ErrInvalid, event, err)
		}
	}
	if mt, _, err := mime.ParseMediaType(header.Get("Content-Type")); err != nil || mt != "application/json" {
		return fmt.Errorf("%w: webhook %s: Content-Type %q is not application/json", ErrInvalid, event, header.Get("Content-Type"))
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: webhook %s: body is not JSON: %w", ErrInvalid, event, err)
	}
	if err := w.body.Validate(inst); err != nil {
		return fmt.Errorf("%w: webhook %s: body: %w", ErrInvalid, event, err)
	}
	return nil
}

func (h header) check(hd http.Header) error {
	vals := hd.Values(h.name)
	if len(vals) == 0 || vals[0] == "" {
		if h.required {
			return fmt.Errorf("required header %s is missing", h.name)
		}
		return nil
	}
	raw := vals[0]
	var inst any = raw
	switch h.typ {
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil {
			return fmt.Errorf("header %s = %q is not an integer", h.name, raw)
		}
		inst = json.Number(strconv.FormatInt(n, 10))
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return fmt.Errorf("header %s = %q is not a number", h.name, raw)
		}
		inst = json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case "boolean":
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return fmt.Errorf("header %s = %q is not a boolean", h.name, raw)
		}
		inst = b
	}
	if err := h.schema.Validate(inst); err != nil {
		return fmt.Errorf("header %s = %q: %w", h.name, raw, err)
	}
	return nil
}
