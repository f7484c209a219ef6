package main

import "blueprint/internal/openapi"

// openAPIDocument is the document served at GET /v1/openapi.json.
func openAPIDocument() []byte { return openapi.Document() }
