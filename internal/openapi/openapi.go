// Package openapi holds the service's OpenAPI 3.1 document, served at
// GET /v1/openapi.json. Package conform checks responses against it.
package openapi

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var document []byte

// Document returns the OpenAPI 3.1 JSON document (info.version 1.0.0). The
// caller owns the returned slice.
func Document() []byte { return bytes.Clone(document) }
