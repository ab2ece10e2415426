package access

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Networks ParseListen returns.
const (
	NetworkTCP  = "tcp"
	NetworkUnix = "unix"
)

// unixPrefix marks a Unix socket address.
const unixPrefix = "unix:"

// ParseListen reads a listen address: a loopback host:port, ":PORT"
// (127.0.0.1:PORT), "localhost:PORT" (127.0.0.1:PORT) or a Unix socket
// ("unix:PATH", or a path containing a slash). It returns the network
// ("tcp" or "unix") and the address to pass to Listen. Any other host is
// refused unless allowRemote; host names other than localhost are never
// resolved, so they count as remote.
func ParseListen(addr string, allowRemote bool) (network, address string, err error) {
	if addr == "" {
		return "", "", errors.New("empty listen address")
	}
	if p, ok := strings.CutPrefix(addr, unixPrefix); ok {
		if p == "" {
			return "", "", fmt.Errorf("listen address %q: no socket path after %q", addr, unixPrefix)
		}
		return NetworkUnix, p, nil
	}
	if strings.ContainsAny(addr, `/\`) {
		return NetworkUnix, addr, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", "", fmt.Errorf("listen address %q: want HOST:PORT, :PORT or a Unix socket (unix:PATH): %w", addr, err)
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", "", fmt.Errorf("listen address %q: port %q is not a number from 0 to 65535", addr, port)
	}
	port = strconv.FormatUint(n, 10)
	if host == "" || strings.EqualFold(host, "localhost") {
		return NetworkTCP, net.JoinHostPort("127.0.0.1", port), nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() {
		return NetworkTCP, net.JoinHostPort(ip.Unmap().String(), port), nil
	}
	if allowRemote {
		return NetworkTCP, net.JoinHostPort(host, port), nil
	}
	return "", "", fmt.Errorf("listen address %q is not a loopback address: other machines could connect to it. "+
		"Use 127.0.0.1:PORT, :PORT or a Unix socket (unix:PATH), or pass --allow-remote to accept remote clients (they still need the token)", addr)
}

// Listen opens a listener on what ParseListen returned. A Unix socket is
// made readable and writable by its owner only (0600) as soon as it
// exists (the token is required all the same); a socket file left behind
// by a server that is gone is removed first, but a live socket or any other
// file at the path is an error.
func Listen(network, address string) (net.Listener, error) {
	if network != NetworkUnix {
		ln, err := net.Listen(network, address)
		if err != nil {
			return nil, fmt.Errorf("listen: %w", err)
		}
		return ln, nil
	}
	if err := removeStaleSocket(address); err != nil {
		return nil, err
	}
	ln, err := net.Listen(NetworkUnix, address)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if err := os.Chmod(address, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen: restricting the socket to its owner: %w", err)
	}
	return ln, nil
}

// removeStaleSocket removes the socket file at path when no server answers
// on it.
func removeStaleSocket(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if st.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("listen: %s exists and is not a socket", path)
	}
	c, err := net.Dial(NetworkUnix, path)
	if err == nil {
		c.Close()
		return fmt.Errorf("listen: %s: another server is listening on this socket", path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("listen: %s: checking whether the socket is in use: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("listen: removing the stale socket: %w", err)
	}
	return nil
}

// DisplayAddr is how a listener's address is shown (in logs, "listening
// on ADDR"): host:port for TCP, unix:PATH for a Unix socket — each a value
// ParseListen accepts.
func DisplayAddr(ln net.Listener) string {
	a := ln.Addr()
	if a.Network() == NetworkUnix {
		return unixPrefix + a.String()
	}
	return a.String()
}
