package semantic

import "fmt"

// The values of --embeddings and of the editors' "embeddings" setting.
const (
	// ModeWorkspace: vectors learned from the workspace itself.
	ModeWorkspace = "workspace"
	// ModeOff: no semantic channel.
	ModeOff = "off"
	// DefaultMode is the mode when none is given (docs/quality.md,
	// "Semantic channel", says why).
	DefaultMode = ModeWorkspace
)

// CheckMode checks a mode's name.
func CheckMode(mode string) error {
	switch mode {
	case ModeWorkspace, ModeOff:
		return nil
	}
	return fmt.Errorf("unknown mode %q (want %s or %s)", mode, ModeWorkspace, ModeOff)
}
