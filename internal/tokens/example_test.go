package tokens_test

import (
	"fmt"

	"github.com/ctxls/ctxls/internal/tokens"
)

func ExampleRegistry_Get() {
	reg := tokens.NewRegistry() // one per process; counters are shared
	c, err := reg.Get("cl100k_base")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Count("hello world, func main() {}"))

	_, err = reg.Get("gpt2")
	fmt.Println(err)
	// Output:
	// 7
	// unknown encoding "gpt2" (known: approx, cl100k_base, o200k_base)
}

func ExampleAdditive() {
	a, b := "func f() {}\n", "func g() {}\n"
	c, _ := tokens.NewRegistry().Get("o200k_base")
	fmt.Println(tokens.Additive(a, b), c.Count(a+b) == c.Count(a)+c.Count(b))
	// Output: true true
}
