// Package cachefile writes and reads the small derived-state files kept
// beside an index (the git history, the semantic vectors): a gob encoding
// followed by its SHA-256, written atomically (a temporary file renamed
// over the old one), so that a reader sees the old file or the new one,
// and a damaged or truncated one is detected and computed again rather
// than trusted. Record files (WriteRecords, ReadRecords, Record) are the
// same for lists of small binary records framed by a magic string and a
// CRC-32C. Map maps a larger file (the vectors, the lexical store's
// segments) to be read in place, unmapped once no reader holds it (read
// whole on Windows, where a mapped file cannot be replaced). Reads and
// renames go through internal/osfile, which keeps them safe on Windows
// against programs that hold a file open.
package cachefile
