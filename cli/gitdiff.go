package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxls/ctxls/assemble"
	"github.com/ctxls/ctxls/gitdiff"
	"github.com/ctxls/ctxls/retrieve"
)

// gitDiff returns the diff --diff REV names in dir (package gitdiff): a
// revision that is not one is bad usage, an unknown one a bad --diff
// (both exit status 2).
func gitDiff(ctx context.Context, dir, rev string) (string, error) {
	out, err := gitdiff.Diff(ctx, dir, rev, retrieve.MaxDiffBytes)
	var re *gitdiff.RevError
	var tl *gitdiff.TooLargeError
	switch {
	case errors.As(err, &tl):
		return "", &assemble.ParamError{Field: "--diff", Msg: fmt.Sprintf("git diff %s is longer than the %s a request may hold", rev, retrieve.SizeText(tl.Limit))}
	case errors.As(err, &re) && re.Msg == "not a revision":
		return "", &usageError{assembleUsage, fmt.Sprintf("--diff %q: not a revision", rev)}
	case errors.As(err, &re):
		return "", &assemble.ParamError{Field: "diff", Msg: re.Error()}
	case err != nil:
		return "", fmt.Errorf("--diff %w", err)
	}
	return out, nil
}
