package retrieve

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/gitdiff"
)

// DiffOfRev runs `git diff REV` in dir (package gitdiff) for a request that
// names a revision or a range instead of giving a diff, capped at
// MaxDiffBytes. A bad or unknown revision and an output over the cap are
// *assemble.ParamError naming field (the face's name of the argument:
// "diff" for the CLI's --diff, "diff_rev" for the MCP tool); git failing
// otherwise (not a checkout, not installed) is an error of its own.
func DiffOfRev(ctx context.Context, dir, rev, field string) (string, error) {
	out, err := gitdiff.Diff(ctx, dir, rev, MaxDiffBytes)
	var re *gitdiff.RevError
	var tl *gitdiff.TooLargeError
	switch {
	case errors.As(err, &tl):
		return "", &assemble.ParamError{Field: field, Msg: fmt.Sprintf("git diff %s is longer than the %s a request may hold", rev, SizeText(tl.Limit))}
	case errors.As(err, &re):
		return "", &assemble.ParamError{Field: field, Msg: re.Error() + " (want a revision or range such as HEAD~1 or main...HEAD)"}
	case err != nil:
		return "", fmt.Errorf("git diff %s: %w", rev, err)
	}
	return out, nil
}
