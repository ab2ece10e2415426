package main

import (
	"fmt"
	"os"
	"time"
)

// Environment variables that set the deadlines of the network faces
// (serve --listen, mcp --http). Their values are Go durations ("10s",
// "1m30s"); the tests shorten them, and a user on a slow link may
// lengthen them.
const (
	// envAuthDeadline: serve --listen, how long a connection has to send
	// initialize with the token (default 10 s); mcp --http, how long a
	// request has to send its headers, the token among them (default
	// 10 s).
	envAuthDeadline = "CTXLS_AUTH_DEADLINE"
	// envReadDeadline: serve --listen, how long a frame has to arrive
	// once its first byte has, plus a second per MiB of body (default
	// 30 s); mcp --http, how long a request with the token has to send
	// its body (default 30 s).
	envReadDeadline = "CTXLS_READ_DEADLINE"
)

// faceDeadlines are the deadlines of a network face; zero means the
// default.
type faceDeadlines struct {
	auth time.Duration // envAuthDeadline
	read time.Duration // envReadDeadline
}

// deadlinesFromEnv reads envAuthDeadline and envReadDeadline. A value
// that is not a positive duration is an error naming the variable.
func deadlinesFromEnv() (faceDeadlines, error) {
	var d faceDeadlines
	for _, v := range []struct {
		name string
		dst  *time.Duration
	}{{envAuthDeadline, &d.auth}, {envReadDeadline, &d.read}} {
		s := os.Getenv(v.name)
		if s == "" {
			continue
		}
		t, err := time.ParseDuration(s)
		if err != nil || t <= 0 {
			return faceDeadlines{}, fmt.Errorf("$%s=%q: want a positive duration such as 10s or 2m", v.name, s)
		}
		*v.dst = t
	}
	return d, nil
}
