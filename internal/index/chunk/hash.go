package chunk

import (
	"crypto/sha256"
	"encoding/hex"
)

// hashLen is how many bytes of the SHA-256 digest the hashes keep.
const hashLen = 16

// contentHash is the hex of the first 16 bytes of SHA-256 over b.
func contentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:hashLen])
}

// trackingHash is contentHash over b with every run of ASCII white space
// collapsed to one space and leading/trailing space removed. scratch is
// reused between calls and returned grown.
func trackingHash(b []byte, scratch []byte) (string, []byte) {
	out := scratch[:0]
	pendingSpace := false
	for _, c := range b {
		if isSpace(c) {
			pendingSpace = len(out) > 0
			continue
		}
		if pendingSpace {
			out = append(out, ' ')
			pendingSpace = false
		}
		out = append(out, c)
	}
	return contentHash(out), out
}
