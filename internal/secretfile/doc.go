// Package secretfile reads a secret that a user keeps in a file: a
// network face's token (internal/access), an index store's connection
// string (--store-file), a PostgreSQL password file. Read admits only a
// regular file that its owner alone may read or write, owned by the user
// the process runs as, and no larger than the caller's bound; a FIFO, a
// device or a directory is refused without waiting on it. The mode and
// owner checks are skipped on Windows, where they are not uid and mode
// bits. Every refusal is a *Refusal naming the file and what to change.
package secretfile
