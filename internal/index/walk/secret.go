package walk

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
)

// Credentials are kept out of the index by four rules, applied wherever a
// path or a text is judged (the walk, Matcher.Allowed and CheckFile, and
// the indexer on each file's whole text through SecretContent):
//
//   - secretDir: directories that hold credentials as a whole are never
//     entered;
//   - secretName: credential files are known by their names and never
//     opened;
//   - SecretContent: a text holding a private key or a token of a known
//     format is left out whole;
//   - CheckRoot: a root inside version-control metadata or a secret
//     directory is refused, so that opening such a directory as the folder
//     cannot bring in what the rules above keep out below a parent.

// secretDir reports whether the directory name, inside the directory whose
// slash path is parent ("" when unknown), holds credentials as a whole: the
// user's SSH keys (.ssh), GnuPG keyrings (.gnupg), the AWS, Azure and
// Kubernetes command lines' credentials and caches (.aws, .azure, .kube),
// pass's store (.password-store) and gcloud's (.config/gcloud). Names are
// compared case-insensitively.
//
// .docker is not among them: in a repository it usually holds build files
// (.docker/nginx/default.conf, .docker/php/Dockerfile); only the Docker
// command line's config.json there holds registry credentials, and
// secretName catches it by name.
func secretDir(parent, name string) bool {
	switch strings.ToLower(name) {
	case ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".password-store":
		return true
	case "gcloud":
		return strings.EqualFold(lastElem(parent), ".config")
	}
	return false
}

// secretName reports whether a file is a credential file by its name and,
// for names that hold credentials only in one tool's directory, by the
// name of its parent directory, whose slash path is parent ("" when
// unknown). Names are compared case-insensitively.
//
// Dotenv files (.env, .env.*, *.env), direnv's .envrc (a shell script, but
// one whose purpose is to export the directory's variables, API keys
// included) and Terraform variables (*.tfvars, *.tfvars.json) are secrets
// unless a dot-separated part of the name marks them as a committed
// template (example, sample, template, tmpl, tpl, dist): .env.example,
// example.env and prod.tfvars.example are kept. A code file that merely
// has "env" in its name (config.env.ts, env.go) is not a dotenv file.
func secretName(parent, name string) bool {
	lower := strings.ToLower(name)
	switch lower {
	case ".env", ".envrc", // dotenv, direnv
		".npmrc", ".pypirc", // package registries' tokens
		".netrc", "_netrc", ".git-credentials", ".gitcookies", // HTTP and git passwords
		".pgpass", ".my.cnf", ".mylogin.cnf", // database client passwords
		".s3cfg", ".boto", "credentials.json", "application_default_credentials.json", // cloud keys (s3cmd, boto, Google)
		".vault-token", "credentials.tfrc.json", // Vault and Terraform Cloud tokens
		".htpasswd", ".htdigest", // web server password files
		".dockercfg", "kubeconfig", "kubeconfig.yaml", "kubeconfig.yml", // container registries, clusters
		"secring.gpg", "terraform.tfstate", "terraform.tfstate.backup": // GnuPG secret keyring; Terraform state holds secrets in clear
		return true
	case "credentials", "credentials.toml": // AWS, RubyGems and Cargo tokens
		switch strings.ToLower(lastElem(parent)) {
		case ".aws", ".gem", ".cargo":
			return true
		}
		return false
	case "config.json": // the Docker command line's registry logins
		return strings.EqualFold(lastElem(parent), ".docker")
	case "auth.json": // Composer's tokens (.composer/auth.json, ~/.config/composer/auth.json)
		dir := strings.ToLower(lastElem(parent))
		return dir == ".composer" || dir == "composer"
	case "hosts.yml": // GitHub CLI's tokens: .config/gh/hosts.yml
		return strings.EqualFold(lastElem(parent), "gh") && strings.EqualFold(lastElem(parentOf(parent)), ".config")
	}
	for _, s := range [...]string{
		".pem", ".key", ".p12", ".pfx", ".pkcs12", ".jks", ".keystore", // private keys and key stores
		".ppk",                        // PuTTY private keys
		".kdbx",                       // KeePass databases
		".tfstate", ".tfstate.backup", // Terraform state
		".kubeconfig", ".git-credentials", // named variants of the files above
	} {
		if strings.HasSuffix(lower, s) {
			return true
		}
	}
	for _, p := range [...]string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_xmss"} { // ssh-keygen's key files, .pub included
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	dotenv := strings.HasPrefix(lower, ".env.") || strings.HasPrefix(lower, ".envrc.") ||
		strings.HasSuffix(lower, ".env")
	tfvars := strings.HasSuffix(lower, ".tfvars") || strings.HasSuffix(lower, ".tfvars.json")
	return (dotenv || tfvars) && !isTemplateName(lower)
}

// isTemplateName reports whether a dot-separated part of the lower-case
// name marks a committed template of a configuration file.
func isTemplateName(lower string) bool {
	for part := range strings.SplitSeq(lower, ".") {
		switch part {
		case "example", "sample", "template", "tmpl", "tpl", "dist":
			return true
		}
	}
	return false
}

// lastElem returns the last element of a slash path ("" for "").
func lastElem(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// parentOf returns a slash path without its last element ("" when it has
// a single one).
func parentOf(p string) string {
	return p[:max(0, strings.LastIndexByte(p, '/'))]
}

// RootError is the refusal of a root that is, or lies inside, a
// version-control metadata directory (.git, .hg, .svn, .jj, .bzr: a
// repository's configuration, which may hold credentials in remote URLs)
// or a secret directory (.ssh, .aws, …). The walk never enters such a
// directory below a root, so it is never opened as a root either: its
// files would otherwise be judged without the parent that makes them
// secret.
//
// A root that is the file system's root or the user's home directory is
// refused too (Broad says which): the walk indexes every file below its
// root, so such a root means hours of work, gigabytes of index and every
// dot-directory of the user one filter away from an answer. It happens by
// accident — an MCP client started from "/" or "~", an editor opened on
// "~" — far more often than on purpose.
type RootError struct {
	Root   string // the root as it was given, made absolute
	Dir    string // the VCS or secret directory it is or lies in
	Reason Reason // ReasonVCS or ReasonSecret; "" for a broad root
	Broad  string // "the root of the file system" or "your home directory"
}

func (e *RootError) Error() string {
	if e.Broad != "" {
		return fmt.Sprintf("%s is %s: ctxls indexes every file below its root; start it in a project's directory or name one (--root DIR, or the project folder as the client's root)", e.Root, e.Broad)
	}
	what := "version-control metadata"
	if e.Reason == ReasonSecret {
		what = "a directory of credentials"
	}
	if e.Dir == e.Root {
		return fmt.Sprintf("%s is %s: ctxls never indexes it (open the project directory instead)", e.Root, what)
	}
	return fmt.Sprintf("%s lies in %s, which is %s: ctxls never indexes it (open the project directory instead)", e.Root, e.Dir, what)
}

// CheckRoot returns a *RootError when root, made absolute, is or lies in a
// version-control metadata directory or a secret directory, read both as
// written (".." taken lexically) and with its symlinks resolved, or is the
// file system's root or the user's home directory; else nil.
// A root that cannot be resolved is judged as written.
func CheckRoot(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("root %q: %w", root, err)
	}
	if e := refusedDir(abs); e != nil {
		e.Root = abs
		return e
	}
	real := abs
	if r, err := filepath.EvalSymlinks(root); err == nil {
		if r, err = filepath.Abs(r); err == nil {
			real = r
			if e := refusedDir(real); e != nil {
				e.Root = abs
				return e
			}
		}
	}
	if broad := broadRoot(real); broad != "" {
		return &RootError{Root: abs, Dir: real, Broad: broad}
	}
	return nil
}

// broadRoot names what real (absolute, symlinks resolved) is when it is
// the root of the file system (a volume's root) or the user's home
// directory, else "".
func broadRoot(real string) string {
	real = filepath.Clean(real)
	if filepath.Dir(real) == real {
		return "the root of the file system"
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if h, err := filepath.EvalSymlinks(home); err == nil {
			home = h
		}
		if filepath.Clean(home) == real {
			return "your home directory"
		}
	}
	return ""
}

// refusedDir returns the refusal of the clean absolute path p when one of
// its elements is a VCS or a secret directory, with Dir set; else nil.
func refusedDir(p string) *RootError {
	slash := filepath.ToSlash(p)
	for i := 0; i < len(slash); {
		j := strings.IndexByte(slash[i:], '/')
		end := len(slash)
		if j >= 0 {
			end = i + j
		}
		name, parent := slash[i:end], strings.TrimSuffix(slash[:i], "/")
		switch {
		case name == "":
		case isVCSDir(name):
			return &RootError{Dir: filepath.FromSlash(slash[:end]), Reason: ReasonVCS}
		case secretDir(parent, name):
			return &RootError{Dir: filepath.FromSlash(slash[:end]), Reason: ReasonSecret}
		}
		i = end + 1
	}
	return nil
}

// SecretContent returns what credential text holds — "private key" (a PEM,
// OpenSSH, PGP or SSH2 private key armor line, wherever it is), "PuTTY
// private key", or a token of a known format named by its service — or ""
// when none is found. The indexer applies it to the whole text of every
// file and editor buffer it indexes (the walk sees only a file's first
// bytes), and leaves a file that holds one out whole.
//
// Tokens count only in formats that cannot be mistaken for anything else
// and are live credentials when real: a fixed prefix, a fixed length and
// alphabet, and characters that look random (Shannon entropy of at least 3
// bits per character, so that placeholders like "ghp_xxxx…" are not
// taken). That is GitHub's ghp_/gho_/ghu_/ghs_/ghr_ and github_pat_
// tokens, GitLab's glpat-, Slack's xox?- tokens and webhook URLs, an AWS
// access key id (AKIA…/ASIA…, not AWS's documented …EXAMPLE) together with
// a 40-character secret key within 1 KiB of it, Stripe's live secret keys,
// Anthropic's and OpenAI's API keys, npm's and PyPI's tokens, and age
// secret keys. Looser patterns (any "password = …", JWTs, high-entropy
// strings, Google's AIza browser keys, which are public by design) are left
// to secret scanners: they would drop ordinary code files, and a context
// engine that leaves out a whole file for a test fixture's token loses that
// file for every question. A file that holds a real token in one of the
// formats above is a leak in itself; leaving it out whole — test files
// with realistic fake tokens or key armor included — is the price of never
// returning one.
func SecretContent(text []byte) string {
	if privateKeyArmor(text) {
		return "private key"
	}
	if puttyKey(text) {
		return "PuTTY private key"
	}
	return knownToken(text)
}

// privateKeyArmor reports whether b holds a private key's armor line:
// "-----BEGIN <LABEL>-----" (PEM, OpenSSH, PGP's "… PRIVATE KEY BLOCK") or
// SSH2's "---- BEGIN <LABEL> ----", where LABEL is upper-case letters,
// digits and spaces and contains "PRIVATE KEY". The line may sit anywhere,
// inside a string literal or after an escaped "\n" (a JSON service-account
// key) included. The armor line alone counts, with or without a body
// after it (gitleaks wants one): a key cut short, or written with escapes
// or string concatenation, is still a key, while code that handles the
// format names the label without the armor ("RSA PRIVATE KEY") and a
// description of it does not spell a label in capitals ("-----BEGIN …").
func privateKeyArmor(b []byte) bool {
	return armorLine(b, "-----BEGIN ", "-----") || armorLine(b, "---- BEGIN ", " ----")
}

// armorLine reports whether b holds open, a private key's label, then
// closing.
func armorLine(b []byte, open, closing string) bool {
	const maxLabel = 100
	for {
		i := bytes.Index(b, []byte(open))
		if i < 0 {
			return false
		}
		b = b[i+len(open):]
		label := bytes.TrimRight(b[:span(b[:min(len(b), maxLabel)], isLabelByte)], " ")
		if bytes.Contains(label, []byte("PRIVATE KEY")) && bytes.HasPrefix(b[len(label):], []byte(closing)) {
			return true
		}
	}
}

func isLabelByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ' '
}

// puttyKey reports whether b holds a PuTTY private key file's header,
// "PuTTY-User-Key-File-<version>:".
func puttyKey(b []byte) bool {
	const header = "PuTTY-User-Key-File-"
	for {
		i := bytes.Index(b, []byte(header))
		if i < 0 {
			return false
		}
		b = b[i+len(header):]
		n := span(b, isDigit)
		if n > 0 && n < len(b) && b[n] == ':' {
			return true
		}
	}
}

// knownToken returns the service of a token of a known format in b (see
// SecretContent; of the first format in the order of the anchors below
// when there are several), or "".
//
// It reads b once, looking at the bytes that start an anchor, rather than
// once per anchor: every file of a workspace passes through here. Each
// anchor's occurrences are checked as a search from the end of the last
// one checked would find them (no overlapping occurrence is checked).
func knownToken(b []byte) string {
	// The anchors start (or, for OpenAI's, sit inside) the tokens.
	tokenAnchors := [...]string{
		"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
		"xox", "hooks.slack.com/services/", "AKIA", "ASIA",
		"sk_live_", "rk_live_", "sk-ant-", "T3BlbkFJ", "npm_", "pypi-AgEIcHlwaS5vcmc", "AGE-SECRET-KEY-1",
	}
	// The anchors whose first and second bytes are a byte, as bits: a
	// position is looked at only when both agree on an anchor.
	var byFirst, bySecond [256]uint32
	for k, a := range tokenAnchors {
		byFirst[a[0]] |= 1 << k
		bySecond[a[1]] |= 1 << k
	}
	var next [len(tokenAnchors)]int // where each anchor's next occurrence may start
	best, what := len(tokenAnchors), ""
	for i := 0; i+1 < len(b); i++ {
		m := byFirst[b[i]] & bySecond[b[i+1]]
		if m == 0 {
			continue
		}
		for ; m != 0; m &= m - 1 {
			k := bits.TrailingZeros32(m)
			if k >= best {
				break
			}
			a := tokenAnchors[k]
			if i < next[k] || !bytes.HasPrefix(b[i:], []byte(a)) {
				continue
			}
			next[k] = i + len(a)
			if w := tokenAt(b, i, a); w != "" {
				best, what = k, w
				if k == 0 {
					return what
				}
				break
			}
		}
	}
	return what
}

// tokenAt checks the candidate token found at b[at:], which starts with
// anchor, and returns its service when it has the format, else "".
func tokenAt(b []byte, at int, anchor string) string {
	rest := b[at+len(anchor):]
	word := at == 0 || !isIdentByte(b[at-1]) // the token starts a word
	switch anchor {
	case "ghp_", "gho_", "ghu_", "ghs_", "ghr_":
		// 36 base-62 characters, the last 6 a checksum.
		if word && exactRun(rest, isAlnum, 36) && randomLooking(rest[:36]) {
			return "GitHub token"
		}
	case "github_pat_":
		if word && exactRun(rest, isIdentByte, 82) && randomLooking(rest[:82]) {
			return "GitHub token"
		}
	case "glpat-":
		if n := span(rest, isTokenByte); word && n >= 20 && randomLooking(rest[:n]) {
			return "GitLab token"
		}
	case "xox":
		// xoxb- (bot), xoxp- (user), xoxa-, xoxr-, xoxs-, xoxo-, xoxe-:
		// then digit groups and a random tail, dash-separated.
		if !word || len(rest) < 2 || !strings.ContainsRune("bpaerso", rune(rest[0])) || rest[1] != '-' {
			return ""
		}
		body := rest[2:]
		n := span(body, func(c byte) bool { return isAlnum(c) || c == '-' })
		if n >= 24 && span(body, isDigit) > 0 && randomLooking(body[:n]) {
			return "Slack token"
		}
	case "hooks.slack.com/services/":
		// T<team>/B<channel>/<secret>
		parts := bytes.SplitN(rest[:span(rest, func(c byte) bool { return isAlnum(c) || c == '/' })], []byte("/"), 4)
		if len(parts) >= 3 && len(parts[0]) > 1 && parts[0][0] == 'T' && len(parts[1]) > 1 && parts[1][0] == 'B' &&
			len(parts[2]) >= 20 && randomLooking(parts[2]) {
			return "Slack webhook"
		}
	case "AKIA", "ASIA":
		// An access key id is an identifier; with its secret key nearby
		// it is a credential.
		if word && exactRun(rest, isBase32Upper, 16) && !bytes.HasSuffix(rest[:16], []byte("EXAMPLE")) &&
			awsSecretNear(b, at) {
			return "AWS access key"
		}
	case "sk_live_", "rk_live_":
		if n := span(rest, isAlnum); word && n >= 24 && randomLooking(rest[:n]) {
			return "Stripe live key"
		}
	case "sk-ant-":
		if n := span(rest, isTokenByte); word && n >= 80 && randomLooking(rest[:n]) {
			return "Anthropic API key"
		}
	case "T3BlbkFJ": // "OpenAI" in base64, inside every OpenAI key
		start := at
		for start > 0 && isTokenByte(b[start-1]) {
			start--
		}
		n := at - start + len(anchor) + span(rest, isTokenByte)
		if bytes.HasPrefix(b[start:], []byte("sk-")) && n >= 40 && (start == 0 || !isIdentByte(b[start-1])) &&
			randomLooking(b[start:start+n]) {
			return "OpenAI API key"
		}
	case "npm_":
		if word && exactRun(rest, isAlnum, 36) && randomLooking(rest[:36]) {
			return "npm token"
		}
	case "pypi-AgEIcHlwaS5vcmc":
		if n := span(rest, isTokenByte); n >= 50 {
			return "PyPI token"
		}
	case "AGE-SECRET-KEY-1":
		if exactRun(rest, func(c byte) bool { return 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }, 58) {
			return "age secret key"
		}
	}
	return ""
}

// awsSecretNear reports whether a 40-character AWS secret access key (base
// 64 letters, with upper and lower case letters and digits, looking
// random, not AWS's documented example) lies within 1 KiB of b[at].
func awsSecretNear(b []byte, at int) bool {
	const window = 1 << 10
	lo, hi := max(0, at-window), min(len(b), at+window)
	isKey := func(c byte) bool { return isAlnum(c) || c == '/' || c == '+' }
	for i := lo; i < hi; {
		if !isKey(b[i]) {
			i++
			continue
		}
		n := span(b[i:], isKey)
		end := i + n
		if n == 40 && (end == len(b) || b[end] != '=') {
			s := b[i:end]
			if bytes.ContainsFunc(s, isUpperRune) && bytes.ContainsFunc(s, isLowerRune) && bytes.ContainsFunc(s, isDigitRune) &&
				!bytes.Contains(s, []byte("EXAMPLE")) && entropy(s) >= 4 {
				return true
			}
		}
		i = end
	}
	return false
}

// randomLooking reports whether s has at least 3 bits of Shannon entropy
// per character: real tokens do (about 5 for 36 random base-62
// characters); placeholders ("xxxx…", "1234…") do not.
func randomLooking(s []byte) bool { return entropy(s) >= 3 }

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s []byte) float64 {
	if len(s) == 0 {
		return 0
	}
	var counts [256]int
	for _, c := range s {
		counts[c]++
	}
	h := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// span returns the length of the prefix of b whose bytes satisfy ok.
func span(b []byte, ok func(byte) bool) int {
	n := 0
	for n < len(b) && ok(b[n]) {
		n++
	}
	return n
}

// exactRun reports whether b starts with exactly n bytes satisfying ok,
// followed by the end of b or a byte that ends a word.
func exactRun(b []byte, ok func(byte) bool, n int) bool {
	return span(b, ok) == n && (n == len(b) || !isIdentByte(b[n]))
}

func isDigit(c byte) bool       { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool       { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isTokenByte(c byte) bool   { return isIdentByte(c) || c == '-' }
func isBase32Upper(c byte) bool { return 'A' <= c && c <= 'Z' || '2' <= c && c <= '7' }
func isUpperRune(r rune) bool   { return 'A' <= r && r <= 'Z' }
func isLowerRune(r rune) bool   { return 'a' <= r && r <= 'z' }
func isDigitRune(r rune) bool   { return '0' <= r && r <= '9' }
