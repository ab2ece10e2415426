package walk

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// armor returns a PEM armor line for label, built so that the test files
// themselves hold no armor line (they stay indexable).
func armor(label string) string { return "-----BEGIN " + label + "-----" }

// secretFakeToken returns n characters from alphabet that look random
// (deterministic for a seed): a credential-shaped string that is no one's
// credential and appears in no source file.
func secretFakeToken(alphabet string, n int, seed uint32) string {
	b := make([]byte, n)
	x := seed*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = alphabet[x%uint32(len(alphabet))]
	}
	return string(b)
}

const (
	secretAlnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	secretBase64 = secretAlnum + "+/"
	secretBase32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	secretHex    = "0123456789abcdef"
)

func TestSecretName(t *testing.T) {
	for p, want := range map[string]bool{
		// dotenv and direnv, but not their templates or code files
		"/p/.env":                  true,
		"/p/app/.env":              true,
		"/p/.env.local":            true,
		"/p/.env.production.local": true,
		"/p/.Env.Staging":          true,
		"/p/.envrc":                true,
		"/p/.envrc.local":          true,
		"/p/prod.env":              true,
		"/p/deploy/Staging.ENV":    true,
		"/p/.env.example":          false,
		"/p/.env.sample":           false,
		"/p/.env.template":         false,
		"/p/.env.dist":             false,
		"/p/.env.local.example":    false,
		"/p/example.env":           false,
		"/p/prod.env.example":      false,
		"/p/config.env.ts":         false,
		"/p/env.go":                false,
		"/p/environment.go":        false,
		"/p/src/dotenv.js":         false,
		// private keys and key stores
		"/p/id_rsa":               true,
		"/home/u/.ssh/id_ed25519": true,
		"/p/id_ecdsa_sk.pub":      true,
		"/p/id_xmss":              true,
		"/p/id_generator.go":      false,
		"/p/tls.pem":              true,
		"/p/TLS.PEM":              true,
		"/p/server.key":           true,
		"/p/keys.go":              false,
		"/p/store.p12":            true,
		"/p/store.pfx":            true,
		"/p/deploy.ppk":           true,
		"/p/release.keystore":     true,
		"/p/trust.jks":            true,
		"/p/passwords.kdbx":       true,
		"/p/secring.gpg":          true,
		// tool credential files
		"/p/.npmrc":           true,
		"/p/.netrc":           true,
		"/p/_netrc":           true,
		"/p/.pgpass":          true,
		"/p/.my.cnf":          true,
		"/p/my.cnf":           false, // a server configuration
		"/p/.s3cfg":           true,
		"/p/.boto":            true,
		"/p/.git-credentials": true,
		"/p/.gitcookies":      true,
		"/p/.pypirc":          true,
		"/p/.vault-token":     true,
		"/p/.htpasswd":        true,
		"/p/.dockercfg":       true,
		"/p/kubeconfig":       true,
		"/p/admin.kubeconfig": true,
		"/p/kubeconfig.go":    false,
		"/p/credentials.json": true,
		"/p/application_default_credentials.json": true,
		"/p/credentials.tfrc.json":                true,
		"/p/prod.tfvars":                          true,
		"/p/terraform.tfvars.json":                true,
		"/p/x.auto.tfvars":                        true,
		"/p/terraform.tfvars.example":             false,
		"/p/example.tfvars":                       false,
		"/p/terraform.tfstate":                    true,
		"/p/env/prod.tfstate.backup":              true,
		"/p/main.tf":                              false,
		// names that are credentials only in their tool's directory
		"/p/.aws/credentials":             true,
		"/p/x/.aws/credentials":           true,
		"/home/u/.gem/credentials":        true,
		"/home/u/.cargo/credentials.toml": true,
		"/p/credentials":                  false,
		"/p/docs/credentials":             false,
		"/p/.docker/config.json":          true,
		"/p/config.json":                  false,
		"/p/.docker/daemon.json":          false,
		"/home/u/.config/gh/hosts.yml":    true,
		"/p/gh/hosts.yml":                 false,
		"/p/.composer/auth.json":          true,
		"/p/src/auth.json":                false,
		"/p/monkey.go":                    false,
	} {
		parent, name := parentOf(p), lastElem(p)
		if got := secretName(parent, name); got != want {
			t.Errorf("secretName(%q, %q) = %v, want %v", parent, name, got, want)
		}
	}
}

func TestSecretDir(t *testing.T) {
	for p, want := range map[string]bool{
		"/home/u/.ssh":           true,
		"/home/u/.SSH":           true,
		"/p/.gnupg":              true,
		"/p/.aws":                true,
		"/p/.azure":              true,
		"/p/.kube":               true,
		"/p/.password-store":     true,
		"/home/u/.config/gcloud": true,
		"/p/gcloud":              false, // a project's gcloud scripts
		"/p/.docker":             false, // build files; its config.json goes by name
		"/p/.config":             false,
		"/p/ssh":                 false,
		"/p/.github":             false,
	} {
		parent, name := parentOf(p), lastElem(p)
		if got := secretDir(parent, name); got != want {
			t.Errorf("secretDir(%q, %q) = %v, want %v", parent, name, got, want)
		}
	}
}

func TestSecretContent(t *testing.T) {
	code := strings.Repeat("func f() int { return 1 }\n", 5000) // 130 KiB
	awsID := "AKIA" + secretFakeToken(secretBase32, 16, 1)
	awsKey := secretFakeToken(secretBase64, 40, 2)
	for _, c := range []struct {
		name, text, want string
	}{
		{"RSA key after 128 KiB", code + armor("RSA PRIVATE KEY") + "\nMIIE\n", "private key"},
		{"OpenSSH key in a Go string", code + "var k = `" + armor("OPENSSH PRIVATE KEY") + "\nb3Bl\n`\n", "private key"},
		{"PKCS#8 key in JSON", `{"type": "service_account", "private_key": "` + armor("PRIVATE KEY") + `\nMIIE\n"}`, "private key"},
		{"PGP key block", armor("PGP PRIVATE KEY BLOCK") + "\n", "private key"},
		{"SSH2 key", "---- BEGIN " + "SSH2 ENCRYPTED PRIVATE KEY ----\nComment: x\n", "private key"},
		{"PuTTY key", "PuTTY-User-Key-File-" + "3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n", "PuTTY private key"},
		{"PuTTY key late", code + "PuTTY-User-Key-File-" + "2: ssh-rsa\n", "PuTTY private key"},
		{"GitHub classic", code + `token := "ghp_` + secretFakeToken(secretAlnum, 36, 3) + `"`, "GitHub token"},
		{"GitHub OAuth", "gho_" + secretFakeToken(secretAlnum, 36, 4), "GitHub token"},
		{"GitHub fine-grained", "github_pat_" + secretFakeToken(secretAlnum, 22, 5) + "_" + secretFakeToken(secretAlnum, 59, 6), "GitHub token"},
		{"GitLab", "GITLAB_TOKEN=glpat-" + secretFakeToken(secretAlnum, 20, 7), "GitLab token"},
		{"Slack bot", "SLACK=xoxb-123456789012-1234567890123-" + secretFakeToken(secretAlnum, 24, 8), "Slack token"},
		{"Slack user", "xoxp-1234567890-1234567890-1234567890-" + secretFakeToken(secretHex, 32, 9), "Slack token"},
		{"Slack webhook", "url: https://hooks.slack.com/services/T0123ABCD/B0123ABCD/" + secretFakeToken(secretAlnum, 24, 10), "Slack webhook"},
		{"AWS key pair", "aws_access_key_id = " + awsID + "\naws_secret_access_key = " + awsKey + "\n", "AWS access key"},
		{"Stripe live", `stripe.key = "sk_live_` + secretFakeToken(secretAlnum, 24, 11) + `"`, "Stripe live key"},
		{"Anthropic", "ANTHROPIC_API_KEY=sk-ant-api03-" + secretFakeToken(secretAlnum+"_-", 93, 12) + "AA", "Anthropic API key"},
		{"OpenAI", "OPENAI_API_KEY=sk-proj-" + secretFakeToken(secretAlnum, 74, 13) + "T3BlbkFJ" + secretFakeToken(secretAlnum, 74, 14), "OpenAI API key"},
		{"npm", "//registry.npmjs.org/:_authToken=npm_" + secretFakeToken(secretAlnum, 36, 15), "npm token"},
		{"PyPI", "password = pypi-AgEIcHlwaS5vcmc" + secretFakeToken(secretAlnum, 60, 16), "PyPI token"},
		{"age", "AGE-SECRET-KEY-1" + secretFakeToken("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 17), "age secret key"},

		// Mentions, public material and placeholders are not credentials.
		{"certificate", armor("CERTIFICATE") + "\nMIIB\n", ""},
		{"public key", armor("PUBLIC KEY") + "\n" + armor("RSA PUBLIC KEY"), ""},
		{"armor described", `// "-----BEGIN <anything>PRIVATE KEY<anything>-----" (RSA, EC, …)`, ""},
		{"armor elided", "a private key (-----BEGIN … PRIVATE KEY-----) is skipped", ""},
		{"label over two lines", "-----BEGIN X\nPRIVATE KEY-----\n", ""},
		{"PuTTY mentioned", `if strings.HasPrefix(line, "PuTTY-User-Key-File-") {`, ""},
		{"placeholder GitHub token", "ghp_" + strings.Repeat("x", 36), ""},
		{"GitHub token too short", "ghp_" + secretFakeToken(secretAlnum, 35, 3), ""},
		{"GitHub token too long", "ghp_" + secretFakeToken(secretAlnum, 37, 3), ""},
		{"GitHub prefix inside a word", "myghp_" + secretFakeToken(secretAlnum, 36, 3), ""},
		{"Slack placeholder", `token: "xoxb-not-a-real-token"`, ""},
		{"Slack documented webhook", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", ""},
		{"AWS documented example", "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""},
		{"AWS key id alone", "role: " + awsID + "\n", ""},
		{"AWS key id, secret far away", awsID + code + awsKey, ""},
		{"40 random characters alone", awsKey, ""},
		{"git object id", awsID + " 3f786850e387550fdab836ed7e6dc881de23001b", ""},
		{"Stripe test key", "sk_test_" + secretFakeToken(secretAlnum, 24, 11), ""},
		{"npm variable", "npm_config_cache=/tmp/npm npm_package_name=x", ""},
		{"age public key", "age1" + secretFakeToken("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58, 18), ""},
		{"code", code, ""},
	} {
		if got := SecretContent([]byte(c.text)); got != c.want {
			t.Errorf("%s: SecretContent = %q, want %q", c.name, got, c.want)
		}
	}
}

// secretTree writes files (slash paths relative to dir, contents).
func secretTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWalkSecrets walks a workspace holding each kind of credential file
// and directory: none is listed, each is skipped as a secret, and the
// look-alikes that are ordinary files are kept.
func TestWalkSecrets(t *testing.T) {
	root := t.TempDir()
	secretTree(t, root, map[string]string{
		"main.go":                              "package main\n",
		"deploy.ppk":                           "PuTTY-User-Key-File-" + "3: ssh-ed25519\n",
		".envrc":                               "export AWS_SECRET_ACCESS_KEY=x\n",
		"prod.env":                             "DB_PASSWORD=x\n",
		".docker/config.json":                  `{"auths": {"r.example": {"auth": "eDp5"}}}`,
		".docker/nginx/default.conf":           "server {}\n",
		".vault-token":                         "hvs.x\n",
		"kubeconfig":                           "apiVersion: v1\n",
		"infra/prod.tfvars":                    "db_password = \"x\"\n",
		"infra/terraform.tfstate":              "{}\n",
		"infra/terraform.tfvars.example":       "db_password = \"\"\n",
		".htpasswd":                            "u:$apr1$x\n",
		".pgpass":                              "h:5432:*:u:p\n",
		".my.cnf":                              "[client]\npassword=x\n",
		".s3cfg":                               "secret_key = x\n",
		".boto":                                "[Credentials]\n",
		".git-credentials":                     "https://u:p@example.com\n",
		"vault.kdbx":                           "x",
		"app/release.keystore":                 "x",
		"app/trust.jks":                        "x",
		"id_ed25519":                           "x",
		"application_default_credentials.json": "{}\n",
		".ssh/config":                          "Host x\n",
		".ssh/notes.txt":                       "x\n",
		".gnupg/pubring.kbx":                   "x",
		".aws/config":                          "[default]\n",
		".kube/config":                         "apiVersion: v1\n",
		".azure/msal_token_cache.json":         "{}\n",
		".password-store/site.gpg":             "x",
		".config/gcloud/credentials.db":        "x",
		".config/app.toml":                     "x = 1\n",
		"keys/signing.asc":                     armor("PGP PRIVATE KEY BLOCK") + "\n",
		"config.env.ts":                        "export const env = process.env\n",
		".env.example":                         "DB_PASSWORD=\n",
	})
	files, skipped, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".config/app.toml", ".docker/nginx/default.conf", ".env.example", "config.env.ts",
		"infra/terraform.tfvars.example", "main.go"}
	if got := paths(files); !slices.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	secrets := []string{"deploy.ppk", ".envrc", "prod.env", ".docker/config.json", ".vault-token", "kubeconfig",
		"infra/prod.tfvars", "infra/terraform.tfstate", ".htpasswd", ".pgpass", ".my.cnf", ".s3cfg", ".boto",
		".git-credentials", "vault.kdbx", "app/release.keystore", "app/trust.jks", "id_ed25519",
		"application_default_credentials.json", ".ssh", ".gnupg", ".aws", ".kube", ".azure", ".password-store",
		".config/gcloud", "keys/signing.asc"}
	got := reasons(skipped)
	for _, p := range secrets {
		if got[p] != ReasonSecret {
			t.Errorf("%s: skipped as %q, want %q", p, got[p], ReasonSecret)
		}
	}
}

// TestCheckRoot: a root that is or lies in VCS metadata or a secret
// directory is refused, also through a symlink, by CheckRoot and
// NewMatcher; its parent is walked without them.
func TestCheckRoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secretTree(t, base, map[string]string{
		"ok/a.go":                        "package a\n",
		".aws/credentials":               "[default]\naws_secret_access_key = x\n",
		".git/config":                    "[remote \"origin\"]\n\turl = https://u:p@example.com/r\n",
		".git/refs/heads/main":           "x\n",
		".ssh/keys/id":                   "x\n",
		".config/gcloud/legacy/adc.json": "{}\n",
		".docker/config.json":            "{}\n",
		".gem/credentials":               "---\n:rubygems_api_key: x\n",
	})
	symlink(t, filepath.Join(base, ".aws"), filepath.Join(base, "awslink"))
	for _, c := range []struct {
		root, dir string
		reason    Reason
	}{
		{".aws", ".aws", ReasonSecret},
		{".git", ".git", ReasonVCS},
		{".git/refs/heads", ".git", ReasonVCS},
		{".ssh/keys", ".ssh", ReasonSecret},
		{".config/gcloud/legacy", ".config/gcloud", ReasonSecret},
		{"awslink", ".aws", ReasonSecret},
		{"ok/../.aws", ".aws", ReasonSecret},
	} {
		root := filepath.Join(base, filepath.FromSlash(c.root))
		if c.root == "ok/../.aws" {
			root = base + "/ok/../.aws"
		}
		var re *RootError
		err := CheckRoot(root)
		if !errors.As(err, &re) || re.Reason != c.reason || re.Dir != filepath.Join(base, filepath.FromSlash(c.dir)) {
			t.Errorf("CheckRoot(%s) = %v, want a %s refusal naming %s", c.root, err, c.reason, c.dir)
			continue
		}
		if !strings.Contains(err.Error(), re.Dir) || strings.Contains(err.Error(), "\n") {
			t.Errorf("CheckRoot(%s): message %q", c.root, err)
		}
		if _, err := NewMatcher(root, Options{}); !errors.As(err, &re) {
			t.Errorf("NewMatcher(%s) = %v, want a *RootError", c.root, err)
		}
	}
	for _, ok := range []string{"", "ok", ".config", ".docker", ".gem"} {
		if err := CheckRoot(filepath.Join(base, ok)); err != nil {
			t.Errorf("CheckRoot(%q) = %v, want nil", ok, err)
		}
	}

	// The rules that look at a file's directory see the real parent of
	// the root's own entries.
	for _, c := range []struct{ root, file string }{{".docker", "config.json"}, {".gem", "credentials"}} {
		files, skipped, err := Walk(context.Background(), filepath.Join(base, c.root), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 0 || reasons(skipped)[c.file] != ReasonSecret {
			t.Errorf("walk of %s: files %q, skipped %v; want %s skipped as a secret", c.root, paths(files), skipped, c.file)
		}
		m, err := NewMatcher(filepath.Join(base, c.root), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ok, r := m.Allowed(c.file, []byte("{}\n")); ok || r != ReasonSecret {
			t.Errorf("Allowed(%s in %s) = %v, %q; want a secret", c.file, c.root, ok, r)
		}
	}
}

// TestAllowedWholeBuffer: an editor buffer is judged on its whole text,
// not on the head the walk reads.
func TestAllowedWholeBuffer(t *testing.T) {
	m, err := NewMatcher(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := strings.Repeat("// padding\n", 2*sniffSize/11)
	if ok, r := m.Allowed("a.go", []byte(code)); !ok {
		t.Fatalf("Allowed(plain code) = false, %q", r)
	}
	for _, tail := range []string{
		armor("EC PRIVATE KEY") + "\nMHcC\n",
		"PuTTY-User-Key-File-" + "3: ssh-ed25519\n",
		"const tok = \"ghp_" + secretFakeToken(secretAlnum, 36, 3) + "\"\n",
	} {
		if ok, r := m.Allowed("a.go", []byte(code+tail)); ok || r != ReasonSecret {
			t.Errorf("Allowed(code + %.20q…) = %v, %q; want a secret", tail, ok, r)
		}
	}
}

// BenchmarkSecretContent measures the scan the indexer runs on every
// file's whole text.
func BenchmarkSecretContent(b *testing.B) {
	text := []byte(strings.Repeat("func f(x int) int { return x * 2 } // some code, ghp and xox words\n", 16000)) // ≈ 1 MiB
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if SecretContent(text) != "" {
			b.Fatal("found a secret in plain code")
		}
	}
}

// TestCheckRootBroad: the file system's root and the home directory are
// refused as roots; directories below or above the home directory are not.
func TestCheckRootBroad(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for dir, refused := range map[string]bool{
		"/": true, home: true, home + "/": true, home + "/.": true,
		filepath.Join(home, "src", "proj"): false, filepath.Dir(home): false, "/usr/lib": false,
	} {
		err := CheckRoot(dir)
		var re *RootError
		if (err != nil) != refused || refused && (!errors.As(err, &re) || re.Broad == "") {
			t.Errorf("CheckRoot(%s) = %v, want refused %v", dir, err, refused)
		}
	}
}

// knownTokenByAnchor is knownToken as one search per anchor, in order:
// the reference its single pass must agree with.
func knownTokenByAnchor(b []byte) string {
	for _, anchor := range [...]string{
		"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
		"xox", "hooks.slack.com/services/", "AKIA", "ASIA",
		"sk_live_", "rk_live_", "sk-ant-", "T3BlbkFJ", "npm_", "pypi-AgEIcHlwaS5vcmc", "AGE-SECRET-KEY-1",
	} {
		for from := 0; ; {
			i := bytes.Index(b[from:], []byte(anchor))
			if i < 0 {
				break
			}
			at := from + i
			if what := tokenAt(b, at, anchor); what != "" {
				return what
			}
			from = at + len(anchor)
		}
	}
	return ""
}

// FuzzKnownToken: the single pass finds what a search per anchor finds,
// on texts made of tokens of several formats, near-misses and code.
func FuzzKnownToken(f *testing.F) {
	awsID := "AKIA" + secretFakeToken(secretBase32, 16, 1)
	parts := []string{
		"ghp_" + secretFakeToken(secretAlnum, 36, 3), "ghp_" + strings.Repeat("x", 36), "myghp_" + secretFakeToken(secretAlnum, 36, 3),
		"xoxb-123456789012-1234567890123-" + secretFakeToken(secretAlnum, 24, 8), "xoxox", "xoxb-not-a-real-token",
		"https://hooks.slack.com/services/T0123ABCD/B0123ABCD/" + secretFakeToken(secretAlnum, 24, 10),
		awsID, secretFakeToken(secretBase64, 40, 2), "AKIAIOSFODNN7EXAMPLE", "AKIAKIA",
		"sk_live_" + secretFakeToken(secretAlnum, 24, 11), "sk-ant-api03-" + secretFakeToken(secretAlnum+"_-", 93, 12),
		"sk-proj-" + secretFakeToken(secretAlnum, 74, 13) + "T3BlbkFJ" + secretFakeToken(secretAlnum, 74, 14), "T3BlbkFJ",
		"npm_" + secretFakeToken(secretAlnum, 36, 15), "pypi-AgEIcHlwaS5vcmc" + secretFakeToken(secretAlnum, 60, 16),
		"AGE-SECRET-KEY-1" + secretFakeToken("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 17), "glpat-" + secretFakeToken(secretAlnum, 20, 7),
		"github_pat_" + secretFakeToken(secretAlnum, 22, 5) + "_" + secretFakeToken(secretAlnum, 59, 6),
		"func f() int { return 1 }\n", " ", "\n", "_", "x", "A", "s",
	}
	f.Add([]byte{0, 3, 9, 14}, uint8(0))
	f.Add([]byte{8, 9, 4, 5}, uint8(3))
	f.Add([]byte{12, 10, 11, 22}, uint8(1))
	f.Add([]byte{17, 18, 19, 16, 15}, uint8(7))
	f.Fuzz(func(t *testing.T, picks []byte, cut uint8) {
		var sb strings.Builder
		for _, p := range picks {
			s := parts[int(p)%len(parts)]
			if p >= 128 && len(s) > 0 { // cut a part short: near-misses
				s = s[:len(s)-min(len(s), int(cut)%8)]
			}
			sb.WriteString(s)
		}
		text := []byte(sb.String())
		if got, want := knownToken(text), knownTokenByAnchor(text); got != want {
			t.Fatalf("knownToken(%q) = %q, one search per anchor finds %q", text, got, want)
		}
	})
}
