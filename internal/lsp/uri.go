package lsp

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// uriToPath turns a file: URI into a clean absolute OS path. Other schemes,
// URIs with a host (UNC shares) and relative paths are errors.
func uriToPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("malformed URI %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("URI %q: only file: URIs are supported", uri)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("URI %q: file URIs with a host are not supported", uri)
	}
	p := u.Path
	if p == "" {
		p = u.Opaque
	}
	// Windows drive letters: file:///C:/x → /C:/x → C:/x.
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isLetter(p[1]) {
		p = p[1:]
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("URI %q: path %q is not absolute", uri, p)
	}
	return filepath.Clean(p), nil
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// pathToURI turns an absolute OS path into a file: URI.
func pathToURI(p string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: C:/x → /C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// rootPathOf reads initialize's rootPath, which is a plain path (eglot sends
// it with a trailing slash) and tolerates a file: URI in its place.
func rootPathOf(s string) (string, error) {
	if strings.HasPrefix(s, "file:") {
		return uriToPath(s)
	}
	if !filepath.IsAbs(s) {
		return "", fmt.Errorf("rootPath %q is not absolute", s)
	}
	return filepath.Clean(s), nil
}

// relativeTo returns p as a slash path relative to root, and whether p is
// root itself or below it.
func relativeTo(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// joinURI appends the slash path rel to the folder URI base (as the client
// spelled it), escaping each segment.
func joinURI(base, rel string) string {
	segs := strings.Split(path.Clean(rel), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.TrimSuffix(base, "/") + "/" + strings.Join(segs, "/")
}

// joinPath joins the folder root and a slash path relative to it.
func joinPath(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
