// Package access is the admission policy of ctxls' network faces
// (`ctxls serve --listen`, `ctxls mcp --http`): who may connect and which
// directories a connected client may have read. The stdio faces and the
// command line never use it: the process that started them is the user.
//
// The policy has four parts, each usable on its own:
//
//   - Where to listen. ParseListen accepts a loopback TCP address
//     (127.0.0.0/8, ::1, "localhost", which means 127.0.0.1), a bare ":PORT"
//     (127.0.0.1:PORT) or a Unix socket ("unix:PATH", or any address
//     containing a slash, such as ./ctxls.sock or /run/user/1000/ctxls.sock;
//     a host:port never contains one). Any other address is refused with an
//     error that names --allow-remote, unless the caller allows remote
//     addresses. Listen opens the listener; a Unix socket is made 0600 and a
//     stale socket file left by a dead server is replaced.
//
//   - A token. A client proves it may connect with a secret: LSP clients
//     send it as initialize's initializationOptions.token, HTTP clients as
//     "Authorization: Bearer TOKEN". LoadOrCreateToken reads it from the
//     file a flag names (--token-file), else from $CTXLS_TOKEN_FILE, else
//     generates one (32 bytes from crypto/rand, base64url) into a new 0600
//     file in the user's runtime directory ($XDG_RUNTIME_DIR/ctxls) or, when
//     there is none, the user cache directory (os.UserCacheDir()/ctxls); the
//     caller prints that path and removes the file when it stops. A token
//     file is refused when other users may read or write it (any of the
//     permission bits 0077; `chmod 600 FILE` fixes it — the check is skipped
//     on Windows; package secretfile makes these checks), when it is empty,
//     when the token is shorter than MinTokenLen or holds characters other
//     than visible ASCII (it must fit a JSON string and an HTTP header
//     unchanged). Surrounding white space, a final newline included, is
//     trimmed. TokenEqual compares in constant time; an empty expected token
//     matches nothing.
//
//   - Allowed roots. Roots holds the directories a server was started with
//     (--root, repeatable; the working directory by default), absolute and
//     with symlinks resolved. Roots.Check admits a path only when it is one
//     of them or inside one, after resolving its symlinks; a path with ".."
//     elements must be inside both read lexically (as filepath.Clean and
//     filepath.Join read it) and as the kernel reads it (".." after a
//     symlink leaves the link's target), so that no reading of it escapes.
//     A path that does not exist is judged by its longest existing prefix; a
//     component that exists but cannot be resolved (a dangling symlink, a
//     loop) is refused. The refusal, an *OutsideError, names the allowed
//     roots. A root, and a path Check admits, must also lie outside
//     version-control metadata and secret directories (.git, .aws, .ssh,
//     …; walk.CheckRoot), which the index never opens as a folder.
//
//   - HTTP hygiene. Guard wraps an http.Handler and checks every request
//     before it: the Host header must be a loopback name (localhost,
//     127.0.0.0/8, [::1], any port) or one of GuardOptions.Hosts, else 403
//     (against DNS rebinding); Origin must be absent or a loopback origin
//     (http or https, any port) or one of GuardOptions.Origins, else 403 (a
//     web page on another origin never gets through, not even to a
//     preflight); and "Authorization: Bearer TOKEN" must carry the token,
//     else 403 with a line saying what to send — not 401, which MCP
//     clients answer by starting OAuth, which this server does not do
//     (NotFound answers its discovery paths 404). Only then is the body
//     read: at most GuardOptions.MaxBody bytes (else 413) within
//     GuardOptions.BodyTimeout (else 408). A refusal closes the
//     connection without waiting for an unread body. Guard never sets a
//     CORS header, so a browser never lets a page read an answer.
//     RefusalLog writes the refusals' log lines at most once a second
//     (counting the others), for faces whose refusals cost a client
//     nothing to provoke.
//
// What this package is not: it does not decide what a connected client may
// ask (the faces do: lsp refuses folders outside the roots, and the index
// never follows a symlink out of a folder); it holds no state of its own
// beyond the values it returns, and reads no configuration but
// $CTXLS_TOKEN_FILE and the directories named above. docs/security.md
// states the model and the tests that check each part of it.
package access
