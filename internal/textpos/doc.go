// Package textpos reads editor positions in a text: lines ending at "\n",
// "\r\n" or "\r", and characters counted in UTF-16 code units, as the
// language server protocol counts them. The language server applies its
// buffers' changes with it, and the retrieval engine's plan converts an
// editor's focus with it.
package textpos
