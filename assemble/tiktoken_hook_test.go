package assemble

import (
	"testing"

	"github.com/ctxls/ctxls/tokens"
)

func tiktokenCounters(t testing.TB) []tokens.Counter { return nil }
