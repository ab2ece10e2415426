// Package cart holds shopping carts.
package cart

import (
	"errors"

	"example.com/shop/tax"
)

// ErrEmpty is returned when checking out an empty cart.
var ErrEmpty = errors.New("cart is empty")

// Item is one line of a cart.
type Item struct {
	SKU      string
	Quantity int
	Cents    int64
}

// Cart is a list of items for one customer.
type Cart struct {
	Customer string
	Region   string
	Items    []Item
}

// Add puts n units of sku at the given unit price into the cart, merging
// with an existing line for the same SKU.
func (c *Cart) Add(sku string, n int, cents int64) {
	for i := range c.Items {
		if c.Items[i].SKU == sku {
			c.Items[i].Quantity += n
			return
		}
	}
	c.Items = append(c.Items, Item{SKU: sku, Quantity: n, Cents: cents})
}

// Subtotal is the sum of the items' prices, before tax.
func (c *Cart) Subtotal() int64 {
	var sum int64
	for _, it := range c.Items {
		sum += int64(it.Quantity) * it.Cents
	}
	return sum
}

// Checkout computes the total to charge, tax included.
func (c *Cart) Checkout() (int64, error) {
	if len(c.Items) == 0 {
		return 0, ErrEmpty
	}
	sub := c.Subtotal()
	return sub + tax.Compute(c.Region, sub), nil
}
