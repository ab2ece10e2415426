package main

import (
	"fmt"
	"os"

	"example.com/shop/cart"
)

func main() {
	c := &cart.Cart{Customer: "ada", Region: "CA"}
	c.Add("apple", 3, 50)
	c.Add("pear", 1, 120)
	total, err := c.Checkout()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("total:", total)
}
