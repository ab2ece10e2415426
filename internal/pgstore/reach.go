package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrUnreachable is wrapped by the errors of reads and writes that failed
// because the store's server could not be reached or dropped the
// connection: it is down, restarting or starting up, ended the session
// (pg_terminate_backend), or the network between failed. It says nothing
// of any repository (neither that it exists nor that it does not): the
// same request may succeed once the server answers again.
var ErrUnreachable = errors.New("the index store cannot be read now (try again shortly)")

// unreachableError is a failure to reach the store, named by s.id (host,
// port and database: no user, no password). Its text gives the reason
// in a few words (connection refused, the server is starting up), not the
// driver's message, which names the user.
type unreachableError struct {
	store string
	err   error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("the index store %s cannot be read now (try again shortly): %s", e.store, reason(e.err))
}
func (e *unreachableError) Unwrap() error        { return e.err }
func (e *unreachableError) Is(target error) bool { return target == ErrUnreachable }

// unreachable returns err as an error wrapping ErrUnreachable when it is
// a failure to reach the server (transient) and ctx has not ended (a
// caller's cancellation is its own); any other error as it is.
func (s *Store) unreachable(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, ErrUnreachable) || !transient(err) {
		return err
	}
	return &unreachableError{store: s.id, err: err}
}

// transient reports whether err is the connection's failure rather than
// the server's answer: no connection could be made (refused, timed out,
// the server starting up or out of connection slots), or the one in use
// was closed under the request (the server shut down or restarted, the
// session was terminated, the network dropped). An answer such as a
// refused password, a missing database or a failed statement is not.
func transient(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P01", // admin_shutdown: pg_terminate_backend, a fast shutdown
			"57P02", // crash_shutdown
			"57P03", // cannot_connect_now: starting up, shutting down
			"53300": // too_many_connections
			return true
		}
		return strings.HasPrefix(pe.Code, "08") // connection_exception
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}

// reason says in a few words why the server could not be reached.
func reason(err error) string {
	var pe *pgconn.PgError
	var op *net.OpError
	switch {
	case errors.As(err, &pe):
		return pe.Message
	case pgconn.Timeout(err):
		return "no answer in time"
	case errors.As(err, &op) && op.Err != nil:
		return op.Err.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return "the server closed the connection"
	}
	return "the connection failed"
}

// Retry bounds: a write (Publish) that fails because the server could not
// be reached is tried again after RetryFirst, then after twice as long
// each time (at most RetryMax between two tries), for as long as
// RetryFor since its first failure: a restart of the server or a
// standby's promotion takes seconds.
const (
	RetryFirst = 250 * time.Millisecond
	RetryMax   = 8 * time.Second
	RetryFor   = time.Minute
)

// retry runs fn until it succeeds, fails otherwise than by an unreachable
// server (transient), ctx ends, or RetryFor has passed since its first
// failure; each retry is logged (SetLogf) with what is retried, the
// attempt and the reason. It returns fn's last error.
func (s *Store) retry(ctx context.Context, what string, fn func() error) error {
	wait := RetryFirst
	var first time.Time
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
		if first.IsZero() {
			first = time.Now()
		}
		if time.Since(first)+wait > RetryFor {
			return s.unreachable(ctx, err)
		}
		s.log("store %s: %s: %s; trying again in %v (attempt %d)", s.id, what, reason(err), wait, attempt+1)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		wait = min(2*wait, RetryMax)
	}
}
