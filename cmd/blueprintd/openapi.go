package main

// openAPIDocument is the document served at GET /v1/openapi.json.
// TODO(openapi): return openapi.Document() once internal/openapi lands.
func openAPIDocument() []byte { return nil }
