package eval

import "strings"

// reserved are the repositories DEVELOPERS.md keeps for an independent
// check of the engine: neither the eval's cases nor the held-out ones may
// come from them, and the miner refuses them.
var reserved = [...]string{"spf13/cobra", "gin-gonic/gin", "go-chi/chi", "urfave/cli", "etcd-io/bbolt", "hashicorp/raft",
	"psf/requests", "BurntSushi/ripgrep"}

// Reserved reports whether the repository owner/name is one of those kept
// for the independent check (GitHub names compare case-insensitively).
func Reserved(name string) bool {
	for _, r := range reserved {
		if strings.EqualFold(r, strings.TrimSuffix(name, ".git")) {
			return true
		}
	}
	return false
}
