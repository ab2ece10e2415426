package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Secret files, secret directories and folders inside them, against the
// real binary through each face: nothing of them ever comes back.

// secretFacesArmor returns a private key's armor line, built so that this
// test file holds none.
func secretFacesArmor(label string) string { return "-----BEGIN " + label + "-----" }

// secretFacesPad is more ordinary Go text than the 8 KiB the walk reads.
var secretFacesPad = strings.Repeat("// an ordinary comment line of a long source file, for padding\n", 160)

// secretFacesFiles maps each secret file of the workspace to the unique
// word it holds; each must never be returned.
func secretFacesFiles() map[string]string {
	return map[string]string{
		"deploy.ppk":                 "wombatppk",
		"notes/late1k.txt":           "wombatpemkib",
		"src/latekey.go":             "wombatlatekey",
		"src/token.go":               "wombattoken",
		".envrc":                     "wombatenvrc",
		"prod.env":                   "wombatprodenv",
		".docker/config.json":        "wombatdocker",
		".vault-token":               "wombatvault",
		"kubeconfig":                 "wombatkubeconfig",
		".kube/config":               "wombatkubedir",
		"infra/prod.tfvars":          "wombattfvars",
		"infra/terraform.tfstate":    "wombattfstate",
		".htpasswd":                  "wombathtpasswd",
		".pgpass":                    "wombatpgpass",
		".git-credentials":           "wombatgitcred",
		".ssh/config":                "wombatsshdir",
		".aws/credentials":           "wombatawscred",
		".aws/config":                "wombatawsconfig",
		".config/gcloud/config.json": "wombatgcloud",
	}
}

// secretFacesWorkspace writes the workspace: the secret files above, an
// ordinary file with its own word (the control that shows a query finds
// what is indexed), and a .git directory whose config has a credential.
func secretFacesWorkspace(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	content := map[string]string{
		"deploy.ppk":                 "PuTTY-User-Key-File-" + "3: ssh-ed25519\nEncryption: none\nComment: wombatppk\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5\n",
		"notes/late1k.txt":           strings.Repeat("notes about the deployment\n", 60) + "wombatpemkib\n" + secretFacesArmor("RSA PRIVATE KEY") + "\nMIIEowIBAAKCAQEA\n",
		"src/latekey.go":             "package src\n\n" + secretFacesPad + "// wombatlatekey deploy key\nconst deployKey = `" + secretFacesArmor("OPENSSH PRIVATE KEY") + "\nb3BlbnNzaC1rZXktdjE\n`\n",
		"src/token.go":               "package src\n\n" + secretFacesPad + "// wombattoken\nconst token = \"ghp_" + "R8x2Kq0ZtW5mN7bV3cL9pA1sD4fG6hJ0kQ2e" + "\"\n",
		".envrc":                     "export API_KEY=wombatenvrc\n",
		"prod.env":                   "DB_PASSWORD=wombatprodenv\n",
		".docker/config.json":        `{"auths": {"registry.example.com": {"auth": "wombatdocker"}}}` + "\n",
		".vault-token":               "hvs.wombatvault\n",
		"kubeconfig":                 "apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: wombatkubeconfig\n",
		".kube/config":               "apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: wombatkubedir\n",
		"infra/prod.tfvars":          "db_password = \"wombattfvars\"\n",
		"infra/terraform.tfstate":    `{"resources": [{"instances": [{"attributes": {"password": "wombattfstate"}}]}]}` + "\n",
		".htpasswd":                  "admin:$apr1$wombathtpasswd$x\n",
		".pgpass":                    "db.example.com:5432:*:app:wombatpgpass\n",
		".git-credentials":           "https://app:wombatgitcred@example.com\n",
		".ssh/config":                "Host prod\n  IdentityFile ~/.ssh/wombatsshdir\n",
		".aws/credentials":           "[default]\naws_secret_access_key = wombatawscred\n",
		".aws/config":                "[default]\nregion = wombatawsconfig\n",
		".config/gcloud/config.json": `{"token": "wombatgcloud"}` + "\n",
		"ledger/ledger.go":           "package ledger\n\n// Record writes the wombatcontrol entry to the ledger.\nfunc Record() {}\n",
		".git/config":                "[remote \"origin\"]\n\turl = https://app:wombatgitremote@example.com/repo.git\n",
		".git/HEAD":                  "ref: refs/heads/main\n",
		".git/refs/heads/main":       "0123456789abcdef0123456789abcdef01234567\n",
	}
	for p, c := range content {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// secretFacesRun runs the real binary; it returns the exit status, stdout
// and stderr.
func secretFacesRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// TestSecretFilesCLI: `ctxls assemble` never returns a secret file, also
// when the query names the word only that file holds, and `ctxls index
// --json` counts them as secrets; a folder inside .aws or .git is refused
// with one line and status 2, naming no secret.
func TestSecretFilesCLI(t *testing.T) {
	root := secretFacesWorkspace(t)
	cache := t.TempDir()
	code, out, errOut := secretFacesRun(t, "index", "--root", root, "--cache-dir", cache, "--json")
	if code != 0 {
		t.Fatalf("ctxls index: status %d\n%s", code, errOut)
	}
	var st struct {
		Files   int            `json:"files"`
		Skipped map[string]int `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("ctxls index --json: %v\n%s", err, out)
	}
	// Every file is a secret but ledger.go: 14 files, and .ssh, .aws,
	// .kube and .config/gcloud once each, as directories.
	if st.Files != 1 || st.Skipped["secret"] != 18 {
		t.Errorf("ctxls index --json: %d files, skipped %v; want 1 file and 18 secrets", st.Files, st.Skipped)
	}
	for _, word := range append(secretFacesWords(), "wombatcontrol") {
		code, out, errOut := secretFacesRun(t, "assemble", "--root", root, "--cache-dir", cache, "--query", word+" secret password token key",
			"--budget", "8000", "--format", "json", "--embeddings", "off", "--git-history=false")
		if code != 0 {
			t.Fatalf("ctxls assemble %s: status %d\n%s", word, code, errOut)
		}
		if word == "wombatcontrol" {
			if !strings.Contains(out, word) {
				t.Errorf("the control file was not returned for its own word:\n%s", out)
			}
			continue
		}
		if strings.Contains(out, word) || strings.Contains(errOut, word) {
			t.Errorf("ctxls assemble returned %s's secret:\n%s\n%s", word, out, errOut)
		}
	}

	for _, dir := range []string{".aws", ".git", ".ssh", ".git/refs"} {
		code, out, errOut := secretFacesRun(t, "assemble", "--root", filepath.Join(root, dir), "--cache-dir", cache,
			"--query", "aws_secret_access_key wombatawscred wombatgitremote remote origin url", "--embeddings", "off")
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 2 || out != "" || len(lines) != 1 || !strings.Contains(lines[0], "never indexes") {
			t.Errorf("assemble --root %s: status %d, stdout %q, stderr %q; want status 2 and one line of refusal", dir, code, out, errOut)
		}
		if strings.Contains(out+errOut, "wombat") {
			t.Errorf("assemble --root %s shows a secret: %s%s", dir, out, errOut)
		}
	}
}

// secretFacesWords are the words of the secret files.
func secretFacesWords() []string {
	var words []string
	for _, w := range secretFacesFiles() {
		words = append(words, w)
	}
	return append(words, "wombatgitremote")
}

// TestSecretFilesMCP: `ctxls mcp` (stdio) never returns a secret file;
// served a folder inside .aws or .git, it answers with an error naming no
// secret.
func TestSecretFilesMCP(t *testing.T) {
	root := secretFacesWorkspace(t)
	call := func(cs *sdk.ClientSession, query string) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "assemble_context",
			Arguments: map[string]any{"query": query, "budget": map[string]any{"maxTokens": 8000}}})
		if err != nil {
			t.Fatal(err)
		}
		return toolText(res), res.IsError
	}
	cs := gitsafeMCP(t, root)
	if text, isErr := call(cs, "wombatcontrol ledger record"); isErr || !strings.Contains(text, "wombatcontrol") {
		t.Fatalf("the control file was not returned (error %v):\n%s", isErr, text)
	}
	for _, word := range secretFacesWords() {
		if text, _ := call(cs, word+" secret password token key"); strings.Contains(text, word) {
			t.Errorf("assemble_context returned %s's secret:\n%s", word, text)
		}
	}
	// Such a root on the command line is refused at start: status 2, one
	// line, no secret.
	for _, dir := range []string{".aws", ".git"} {
		code, stderr, hung := inputcapsRun(t, nil, "mcp", "--root", filepath.Join(root, dir), "--cache-dir", t.TempDir())
		if hung || code != 2 || !strings.Contains(stderr, "never indexes") || strings.Contains(stderr, "wombat") ||
			strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("mcp --root %s: status %d, stderr %q; want status 2 and one line naming the refusal, no secret", dir, code, stderr)
		}
	}
}

// TestSecretFilesServeListen: `ctxls serve --listen` refuses a folder
// inside .aws or .git (InvalidParams, data.field rootUri), never returns a
// secret file of an allowed folder, and never indexes an unsaved buffer
// holding a private key.
func TestSecretFilesServeListen(t *testing.T) {
	f := newFace(t)
	root := secretFacesWorkspace(t)
	addr, stderr, _ := startServe(t, []string{"--token-file", f.tokenFile, "--root", root, "--cache-dir", f.cacheDir, "--listen", ":0"})
	for _, dir := range []string{".aws", ".git", ".git/refs"} {
		c := dial(t, addr)
		m := c.call("initialize", initParams(fileURI(filepath.Join(root, dir)), map[string]any{"token": f.token}))
		if m.Error == nil || m.Error.Code != -32602 || m.field() != "rootUri" || !strings.Contains(m.Error.Message, "never indexes") {
			t.Errorf("initialize rootUri %s: %+v, want InvalidParams for rootUri", dir, m.Error)
		} else if strings.Contains(m.Error.Message, "wombat") {
			t.Errorf("initialize rootUri %s: the refusal shows a secret: %s", dir, m.Error.Message)
		}
	}

	c := dial(t, addr)
	if m := c.call("initialize", initParams(fileURI(root), map[string]any{"token": f.token, "maxTokens": 8000})); m.Error != nil {
		t.Fatalf("initialize: %s", m.Error.Message)
	}
	c.notify("initialized", map[string]any{})
	// Unsaved buffers: a key past the bytes the walk reads, and a control.
	open := func(rel, text string) {
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": fileURI(filepath.Join(root, rel)), "languageId": "go", "version": 1, "text": text}})
	}
	open("ledger/buffer.go", "package ledger\n\n"+secretFacesPad+"// wombatbuffer\nconst k = `"+secretFacesArmor("EC PRIVATE KEY")+"\nMHcCAQEE\n`\n")
	open("ledger/notes.go", "package ledger\n\n// Notes keep the wombatnotes of the ledger.\nfunc Notes() {}\n")
	deadline := time.Now().Add(15 * time.Second)
	for {
		text := c.assemble(map[string]any{"query": "wombatbuffer wombatnotes ledger notes"})
		if strings.Contains(text, "wombatbuffer") {
			t.Fatalf("an unsaved buffer holding a private key was returned:\n%s", text)
		}
		if strings.Contains(text, "wombatnotes") {
			break // the buffers were applied in order: the control is in
		}
		if time.Now().After(deadline) {
			t.Fatalf("the control buffer never showed:\n%s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, word := range secretFacesWords() {
		if text := c.assemble(map[string]any{"query": word + " secret password token key"}); strings.Contains(text, word) {
			t.Errorf("context/assemble returned %s's secret:\n%s", word, text)
		}
	}
	if strings.Contains(stderr.String(), "wombat") {
		t.Errorf("the server's log shows a secret:\n%s", stderr.String())
	}
}
