package drawing

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// svgAttr is one attribute of an element, its name without namespace
// prefix ("xlink:href" is "href") and its value with entities decoded.
type svgAttr struct {
	name, value string
}

// svgElement is a start tag (End false; SelfClosing when it ends in "/>")
// or an end tag (End true).
type svgElement struct {
	name        string
	attrs       []svgAttr
	end         bool
	selfClosing bool
}

func (e *svgElement) attr(name string) string {
	v, _ := e.attrOK(name)
	return v
}

func (e *svgElement) attrOK(name string) (string, bool) {
	for _, a := range e.attrs {
		if a.name == name {
			return a.value, true
		}
	}
	return "", false
}

// svgScanner reads the tags of an SVG document, skipping text, comments,
// processing instructions and declarations. It is written for MuPDF's SVG
// output, several times faster than encoding/xml on the multi-megabyte
// pages of real drawings, and lenient in the same way as a non-strict
// decoder: a raw "&" that starts no entity is kept as is.
type svgScanner struct {
	b   []byte
	i   int
	el  svgElement
	buf []svgAttr
}

// next reads the next tag into s.el; it returns false at the end of input.
func (s *svgScanner) next() (bool, error) {
	for {
		j := bytes.IndexByte(s.b[s.i:], '<')
		if j < 0 {
			s.i = len(s.b)
			return false, nil
		}
		s.i += j + 1
		if s.i >= len(s.b) {
			return false, fmt.Errorf("drawing: page SVG ends inside a tag")
		}
		switch c := s.b[s.i]; {
		case bytes.HasPrefix(s.b[s.i:], []byte("!--")):
			k := bytes.Index(s.b[s.i:], []byte("-->"))
			if k < 0 {
				return false, fmt.Errorf("drawing: page SVG: unterminated comment")
			}
			s.i += k + 3
			continue
		case c == '?' || c == '!':
			k := bytes.IndexByte(s.b[s.i:], '>')
			if k < 0 {
				return false, fmt.Errorf("drawing: page SVG: unterminated declaration")
			}
			s.i += k + 1
			continue
		case c == '/':
			s.i++
			name := s.name()
			k := bytes.IndexByte(s.b[s.i:], '>')
			if k < 0 {
				return false, fmt.Errorf("drawing: page SVG: unterminated end tag")
			}
			s.i += k + 1
			s.el = svgElement{name: name, end: true}
			return true, nil
		}
		return true, s.startTag()
	}
}

func isNameByte(c byte) bool {
	return c == ':' || c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// name reads a name at s.i and returns it without namespace prefix.
func (s *svgScanner) name() string {
	j := s.i
	for j < len(s.b) && isNameByte(s.b[j]) {
		j++
	}
	n := string(s.b[s.i:j])
	s.i = j
	if k := strings.LastIndexByte(n, ':'); k >= 0 {
		n = n[k+1:]
	}
	return n
}

func (s *svgScanner) skipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *svgScanner) startTag() error {
	s.buf = s.buf[:0]
	name := s.name()
	if name == "" {
		return fmt.Errorf("drawing: page SVG: bad tag at offset %d", s.i)
	}
	for {
		s.skipSpace()
		if s.i >= len(s.b) {
			return fmt.Errorf("drawing: page SVG ends inside <%s>", name)
		}
		switch s.b[s.i] {
		case '>':
			s.i++
			s.el = svgElement{name: name, attrs: s.buf}
			return nil
		case '/':
			if s.i+1 < len(s.b) && s.b[s.i+1] == '>' {
				s.i += 2
				s.el = svgElement{name: name, attrs: s.buf, selfClosing: true}
				return nil
			}
			return fmt.Errorf("drawing: page SVG: stray / in <%s>", name)
		}
		an := s.name()
		if an == "" {
			return fmt.Errorf("drawing: page SVG: bad attribute in <%s> at offset %d", name, s.i)
		}
		s.skipSpace()
		if s.i >= len(s.b) || s.b[s.i] != '=' {
			return fmt.Errorf("drawing: page SVG: attribute %s of <%s> has no value", an, name)
		}
		s.i++
		s.skipSpace()
		if s.i >= len(s.b) || (s.b[s.i] != '"' && s.b[s.i] != '\'') {
			return fmt.Errorf("drawing: page SVG: attribute %s of <%s> is not quoted", an, name)
		}
		q := s.b[s.i]
		k := bytes.IndexByte(s.b[s.i+1:], q)
		if k < 0 {
			return fmt.Errorf("drawing: page SVG: unterminated attribute %s of <%s>", an, name)
		}
		raw := s.b[s.i+1 : s.i+1+k]
		s.i += k + 2
		s.buf = append(s.buf, svgAttr{name: an, value: unescape(raw)})
	}
}

// unescape decodes XML character and entity references; anything else
// after "&" is kept literally.
func unescape(raw []byte) string {
	if bytes.IndexByte(raw, '&') < 0 {
		return string(raw)
	}
	var sb strings.Builder
	for len(raw) > 0 {
		k := bytes.IndexByte(raw, '&')
		if k < 0 {
			sb.Write(raw)
			break
		}
		sb.Write(raw[:k])
		raw = raw[k:]
		end := bytes.IndexByte(raw, ';')
		if end < 0 || end > 10 {
			sb.WriteByte('&')
			raw = raw[1:]
			continue
		}
		ent := string(raw[1:end])
		var r rune = -1
		switch {
		case ent == "amp":
			r = '&'
		case ent == "lt":
			r = '<'
		case ent == "gt":
			r = '>'
		case ent == "quot":
			r = '"'
		case ent == "apos":
			r = '\''
		case strings.HasPrefix(ent, "#x") || strings.HasPrefix(ent, "#X"):
			if v, err := strconv.ParseUint(ent[2:], 16, 32); err == nil && utf8.ValidRune(rune(v)) {
				r = rune(v)
			}
		case strings.HasPrefix(ent, "#"):
			if v, err := strconv.ParseUint(ent[1:], 10, 32); err == nil && utf8.ValidRune(rune(v)) {
				r = rune(v)
			}
		}
		if r < 0 {
			sb.WriteByte('&')
			raw = raw[1:]
			continue
		}
		sb.WriteRune(r)
		raw = raw[end+1:]
	}
	return sb.String()
}
