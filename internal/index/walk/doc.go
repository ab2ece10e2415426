// Package walk decides which files of a workspace root may be indexed: it
// lists them (Walk) and judges single paths the same way (Matcher.Allowed
// for editor buffers, Matcher.CheckFile for files on disk), so that a file
// opened or edited in the editor is filtered exactly like the walk filtered
// it; Matcher.ReadFile reads one file of a tree the caller does not trust
// (a pull request's checkout laid over an index) by the same rules, from
// the file it judged and never beyond the size limit. Every skipped path
// comes with a Reason for reporting and debugging.
//
// It is not for chunking or watching files: the walk reads only the first
// 8 KiB of each candidate file to sniff its content, and leaves loading to
// the indexer (ReadFile's single files aside). It does not consult git's index either: tracked
// and untracked files are treated alike, by the ignore rules below.
//
// # Ignore rules
//
// Patterns use gitignore syntax (negation "!", anchoring "/", directory-only
// trailing "/", "*", "?", "[…]", "**", backslash escapes), translated to
// github.com/bmatcuk/doublestar/v4 globs, and are read from:
//
//   - .gitignore, .ignore and .ctxlsignore in every directory, patterns
//     relative to that directory;
//   - .git/info/exclude of the repository (and of nested repositories);
//   - the .gitignore/.ignore/.ctxlsignore files of the directories between
//     the enclosing git work tree and the root, when the root is inside one
//     (the root itself is never ignored);
//   - a built-in default: node_modules/.
//
// Precedence is by layer, highest first: .ctxlsignore, .ignore, .gitignore,
// info/exclude, built-in default. Inside a layer the deepest directory's file
// wins, and inside a file the last matching line (git's rule). So a
// .ctxlsignore can re-include what .gitignore ignores ("!*.log"), and any
// ignore file can re-include node_modules ("!node_modules/"). For files git
// reads, the result is git's (checked against git in the tests), including
// that a file cannot be re-included when a parent directory is excluded: an
// excluded directory is not entered. The user's global excludes file
// (core.excludesFile) is not read: the index should not depend on who runs it.
// POSIX character classes ("[[:alpha:]]") are not supported.
//
// Options.Include and Options.Exclude are doublestar globs on the slash path
// relative to the root; a glob matching a directory applies to everything
// below it.
//
// # Other rules
//
//   - VCS metadata directories (.git, .hg, .svn, .jj, .bzr) are never walked.
//   - Secrets are never opened, listed or returned, whatever the ignore files
//     say (secret.go has each rule and why). Directories that hold
//     credentials as a whole are not entered: .ssh, .gnupg, .aws, .azure,
//     .kube, .password-store and .config/gcloud. Credential files are known
//     by name (compared without regard to case): dotenv files (.env, .env.*,
//     *.env, .envrc; committed templates such as .env.example or
//     example.env are kept), private keys and key stores (*.pem, *.key,
//     *.p12, *.pfx, *.pkcs12, *.jks, *.keystore, *.ppk, id_rsa*, id_dsa*,
//     id_ecdsa*, id_ed25519*, id_xmss*, secring.gpg), *.kdbx, Terraform
//     variables and state (*.tfvars, *.tfvars.json, *.tfstate,
//     *.tfstate.backup), kubeconfig, *.kubeconfig, the credential files of
//     common tools (.npmrc, .pypirc, .netrc, _netrc, .git-credentials,
//     .gitcookies, .pgpass, .my.cnf, .mylogin.cnf, .s3cfg, .boto,
//     .vault-token, .htpasswd, .htdigest, .dockercfg, credentials.json,
//     application_default_credentials.json, credentials.tfrc.json) and the
//     files that are credentials in their tool's directory
//     (.aws/credentials, .gem/credentials, .cargo/credentials[.toml],
//     .docker/config.json, .composer/auth.json, .config/gh/hosts.yml) —
//     the parent is the real one, the root's own included. By content: a
//     file whose first 8 KiB hold a private key's armor line ("-----BEGIN
//     … PRIVATE KEY-----", SSH2's "---- BEGIN … PRIVATE KEY ----"), a
//     PuTTY key header or a token of a known format (SecretContent); the
//     indexer applies the same check to each file's whole text. A root
//     that is or lies in a VCS or secret directory is refused (CheckRoot,
//     a *RootError), so that opening one as the folder cannot bypass
//     these rules.
//   - Size: files larger than Options.MaxFileSize (1 MiB by default) are
//     skipped by their stat size, without being opened.
//   - Binary: a NUL byte in the first 8 KiB. Invalid UTF-8 is kept.
//   - Generated: dependency lockfiles (package-lock.json, yarn.lock,
//     pnpm-lock.yaml, Cargo.lock, go.sum, poetry.lock, Gemfile.lock,
//     composer.lock and similar), *.min.js, *.min.css, *.js.map, *.css.map;
//     a file whose header (leading blank and comment lines, at most 50) has
//     a comment with "DO NOT EDIT" and "generated" (Go's "// Code generated
//     … DO NOT EDIT.") or the "@generated" tag — a generator holding such a
//     line in a string below its package clause is not taken for generated;
//     and .js/.mjs/.cjs/.css/.json files averaging more than 500 bytes per
//     line over their first 8 KiB (minified).
//   - Symlinks are followed unless Options.NoFollowSymlinks is set, but never
//     to a target outside the root, never into a directory that contains
//     the link (a loop), and never into VCS metadata or a secret directory.
//     A file reached through a symlink must pass the secret and generated
//     name rules under its real path as well, so a link cannot bring .env
//     in as "config.txt". A symlink is judged by the ignore rules as what it
//     points to (a link to a directory matches "dir/" patterns). A directory
//     or file reachable through several paths is listed once, preferably
//     under its own path; see Matcher.Walk for the exact rule.
//   - Sockets, FIFOs and devices are skipped.
//
// A Matcher holds no global state and is safe for concurrent use; it caches
// the ignore files it reads, so build a new one when they change.
package walk
