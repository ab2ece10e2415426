package semantic

import (
	"cmp"
	"flag"
	"fmt"
)

// The values of --embeddings and of the editors' "embeddings" setting.
const (
	// ModeWorkspace: vectors learned from the workspace itself.
	ModeWorkspace = "workspace"
	// ModeEndpoint: vectors from an OpenAI-compatible embeddings service
	// (Endpoint), opt-in.
	ModeEndpoint = "endpoint"
	// ModeOff: no semantic channel.
	ModeOff = "off"
	// DefaultMode is the mode when none is given (docs/quality.md,
	// "Semantic channel", says why).
	DefaultMode = ModeWorkspace
)

// CheckMode checks a mode's name.
func CheckMode(mode string) error {
	switch mode {
	case ModeWorkspace, ModeEndpoint, ModeOff:
		return nil
	}
	return fmt.Errorf("unknown mode %q (want %s, %s or %s)", mode, ModeWorkspace, ModeEndpoint, ModeOff)
}

// EndpointConfig is an embeddings service as flags and editor settings
// give it (--embeddings-endpoint, --embeddings-model,
// --embeddings-dimensions, --embeddings-key-env; the setting
// embeddingsEndpoint {url, model, dimensions, keyEnv}).
type EndpointConfig struct {
	URL        string `json:"url"`
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions,omitempty"`
	KeyEnv     string `json:"keyEnv,omitempty"`
}

// Endpoint returns a new Endpoint of c, checked (Endpoint.Check).
func (c EndpointConfig) Endpoint() (*Endpoint, error) {
	e := &Endpoint{EndpointConfig: c}
	if err := e.Check(); err != nil {
		return nil, err
	}
	return e, nil
}

// CheckFlags checks --embeddings and the service's flags, as the CLI and
// the servers take them: mode endpoint needs a valid service.
func CheckFlags(mode string, cfg EndpointConfig) error {
	if err := CheckMode(mode); err != nil {
		return fmt.Errorf("--embeddings: %w", err)
	}
	if mode != ModeEndpoint {
		return nil
	}
	if _, err := cfg.Endpoint(); err != nil {
		return fmt.Errorf("--embeddings endpoint: %w (give --embeddings-endpoint URL and --embeddings-model M)", err)
	}
	return nil
}

// Resolve says whether the semantic channel is on in mode ("" is
// DefaultMode), and with which service (nil: the workspace embedder). Mode
// endpoint without a valid service is off: the settings or flags check
// said so already.
func Resolve(mode string, cfg *EndpointConfig) (*Endpoint, bool) {
	switch cmp.Or(mode, DefaultMode) {
	case ModeWorkspace:
		return nil, true
	case ModeEndpoint:
		if cfg == nil {
			return nil, false
		}
		ep, err := cfg.Endpoint()
		return ep, err == nil
	}
	return nil, false
}

// EndpointFlags registers the embeddings service's flags on fs.
func EndpointFlags(fs *flag.FlagSet) *EndpointConfig {
	c := &EndpointConfig{}
	fs.StringVar(&c.URL, "embeddings-endpoint", "", "with --embeddings endpoint: the OpenAI-compatible API base `URL` (e.g. http://localhost:11434/v1)")
	fs.StringVar(&c.Model, "embeddings-model", "", "with --embeddings endpoint: the embedding model's name")
	fs.IntVar(&c.Dimensions, "embeddings-dimensions", 0, "with --embeddings endpoint: ask for vectors of N dimensions (0: the model's)")
	fs.StringVar(&c.KeyEnv, "embeddings-key-env", "", "with --embeddings endpoint: the environment variable holding the API key (sent as a bearer token)")
	return c
}
