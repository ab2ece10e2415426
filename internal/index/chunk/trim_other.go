//go:build !linux || !cgo

package chunk

// ReleaseMemory returns the C heap's free memory to the system where
// the platform can.
func ReleaseMemory() {}
