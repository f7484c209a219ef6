// Package webapp is the review page served at /app/: plain HTML, CSS and
// ES modules embedded in the binary, no build step. The page uses only the
// public API, with the key in the X-API-Key header, so it is also a worked
// example of a partner's client.
package webapp

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var static embed.FS

// Prefix is the path the page is served under.
const Prefix = "/app/"

// contentSecurityPolicy allows the page's own files only; images (page
// images, icons fetched as blobs) and API calls may also go to https
// origins, where a deployment's signed URLs point (S3).
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' blob: data: https:; connect-src 'self' https:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page's files for requests under Prefix, with a
// restrictive Content-Security-Policy and no caching beyond revalidation.
// A path that names no file is passed to notFound, so that the service
// answers it as any other unknown path.
func Handler(notFound http.Handler) http.Handler {
	files, err := fs.Sub(static, "static")
	if err != nil { // the embedded tree always has static/
		panic(err)
	}
	fileServer := http.StripPrefix(Prefix, http.FileServerFS(files))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, Prefix)
		if name == "" {
			name = "index.html"
		}
		if fi, err := fs.Stat(files, name); err != nil || fi.IsDir() {
			notFound.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		fileServer.ServeHTTP(w, r)
	})
}
