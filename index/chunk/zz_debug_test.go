package chunk

import (
	"fmt"
	"os"
	"testing"
)

func TestZZDebug(t *testing.T) {
	f := os.Getenv("DEBUGFILE")
	if f == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(f)
	ck := NewChunker(Options{})
	defer ck.Close()
	cs, err := ck.Chunk(f, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		fmt.Printf("%s %s L%d-%d refs=%v\n", c.Kind, c.QualifiedName, c.StartLine, c.EndLine, c.References)
	}
}
