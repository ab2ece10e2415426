package gitexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// ConfigPair is one configuration setting given to a git command (as
// `-c key=value` would, but passed through the environment so that any
// key — a filter driver's name may hold '=' or spaces — is taken whole).
type ConfigPair struct{ Key, Value string }

// safeConfig is the configuration every command runs with: no fsmonitor
// hook, no signature verification (gpg), paths printed as they are.
func safeConfig() []ConfigPair {
	return []ConfigPair{
		{"core.fsmonitor", "false"},
		{"core.quotePath", "false"},
		{"log.showSignature", "false"},
		{"core.pager", "cat"},
	}
}

// Command returns git with args, run in dir, with the configuration and
// environment that keep it from running anything else:
//   - core.fsmonitor off (a hook program the repository may name);
//   - no pager (--no-pager), no terminal prompt, no gpg;
//   - no optional lock taken and no index refresh written
//     (GIT_OPTIONAL_LOCKS=0);
//   - no network: a partial clone's lazy fetch is off (GIT_NO_LAZY_FETCH)
//     and, for git versions before that variable, no transport protocol is
//     allowed (GIT_ALLOW_PROTOCOL names none), so any fetch fails instead
//     of connecting;
//   - an external diff program named by GIT_EXTERNAL_DIFF in the
//     environment is dropped (commands that diff also pass --no-ext-diff
//     and --no-textconv against the configuration's drivers);
//   - LC_ALL=C, so that messages parse the same everywhere.
//
// extra settings (FilterOverrides) are applied after the fixed ones.
func Command(ctx context.Context, dir string, extra []ConfigPair, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager"}, args...)...)
	cmd.Dir = dir
	cmd.Env = environ(os.Environ(), append(safeConfig(), extra...))
	return cmd
}

// environ returns base without the variables Command sets or must drop,
// then those variables.
func environ(base []string, config []ConfigPair) []string {
	env := make([]string, 0, len(base)+8+2*len(config))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "GIT_EXTERNAL_DIFF", name == "GIT_PAGER", name == "PAGER",
			name == "GIT_CONFIG_COUNT", name == "GIT_CONFIG_PARAMETERS",
			strings.HasPrefix(name, "GIT_CONFIG_KEY_"), strings.HasPrefix(name, "GIT_CONFIG_VALUE_"),
			name == "GIT_OPTIONAL_LOCKS", name == "GIT_TERMINAL_PROMPT", name == "GIT_NO_LAZY_FETCH",
			name == "GIT_ALLOW_PROTOCOL", name == "GIT_PROTOCOL_FROM_USER", name == "GIT_ASKPASS",
			name == "SSH_ASKPASS", name == "LC_ALL":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_LAZY_FETCH=1",
		"GIT_ALLOW_PROTOCOL=ctxls-no-protocol",
		"GIT_PROTOCOL_FROM_USER=0",
		"GIT_PAGER=cat",
		"LC_ALL=C",
		"GIT_CONFIG_COUNT="+strconv.Itoa(len(config)))
	for i, c := range config {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+c.Key, "GIT_CONFIG_VALUE_"+n+"="+c.Value)
	}
	return env
}

// FilterOverrides returns the settings that turn off every filter driver
// the configuration seen in dir defines (filter.<driver>.clean, .smudge and
// .process set to empty, which git reads as "no filter", and .required to
// false), in the order the configuration lists them. git runs a
// driver's clean command on each working-tree file whose attributes name
// the driver when it compares the working tree, so a diff against the
// working tree needs them off. Reading the configuration runs no program.
// Outside a repository (or without git) it returns nil: the command that
// follows reports the real problem.
func FilterOverrides(ctx context.Context, dir string) ([]ConfigPair, error) {
	cmd := Command(ctx, dir, nil, "config", "-z", "--get-regexp", `^filter\..*\.(clean|smudge|process)$`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 && stderr.Len() == 0 {
			return nil, nil // no filter configured
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, exec.ErrNotFound) || errors.As(err, &ee) {
			return nil, nil
		}
		return nil, fmt.Errorf("git config in %s: %w", dir, err)
	}
	var pairs []ConfigPair
	seen := map[string]bool{}
	// -z: each entry is "key\nvalue\x00" (or "key\x00" for a key without a value).
	for _, entry := range bytes.Split(out, []byte{0}) {
		key, _, _ := bytes.Cut(entry, []byte{'\n'})
		k := string(key)
		dot := strings.LastIndexByte(k, '.')
		if !strings.HasPrefix(k, "filter.") || dot <= len("filter.") {
			continue
		}
		driver := k[len("filter."):dot]
		if seen[driver] {
			continue
		}
		seen[driver] = true
		for _, field := range [...]string{"clean", "smudge", "process"} {
			pairs = append(pairs, ConfigPair{Key: "filter." + driver + "." + field, Value: ""})
		}
		// A required driver without a command is an error; off, the file
		// is read as it is.
		pairs = append(pairs, ConfigPair{Key: "filter." + driver + ".required", Value: "false"})
	}
	return pairs, nil
}
