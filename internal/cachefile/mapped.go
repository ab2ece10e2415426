package cachefile

// Mapped is a cache file's bytes held in memory: mapped (Map), read where
// mapping is not available, or given. Whatever reads Data in place keeps
// a pointer to the Mapped, so that the bytes stay until the last reader
// is gone.
type Mapped struct {
	Data []byte
}
