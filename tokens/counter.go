package tokens

// Counter counts the tokens of a text in one encoding.
//
// Implementations are safe for concurrent use and deterministic: the same
// text always gives the same count.
//
// Additivity: for the tiktoken encodings, Count(a+b) == Count(a)+Count(b)
// whenever a ends with '\n' and b starts with a byte that is neither
// whitespace nor '/' (the pre-tokenizer always splits there). The assembler
// relies on this to count a rendered context from cached per-part counts, and
// still verifies the final text with one whole count.
type Counter interface {
	// Name is the encoding's name, e.g. "cl100k_base".
	Name() string
	// Count returns the number of tokens of text.
	Count(text string) int
}
