// Package cart holds the items a customer is buying.
package cart

import (
	"example.com/shop/pricing"
	"example.com/shop/textutil"
)

// Item is one line of a cart.
type Item struct {
	SKU      string
	Name     string
	Cents    int64
	Quantity int
}

// Cart is a customer's cart in one region.
type Cart struct {
	Region string
	Items  []Item
}

// Add puts quantity units of an item in the cart, merging with a line of
// the same SKU.
func (c *Cart) Add(it Item) {
	for i := range c.Items {
		if c.Items[i].SKU == it.SKU {
			c.Items[i].Quantity += it.Quantity
			return
		}
	}
	c.Items = append(c.Items, it)
}

// Subtotal is the sum of the lines before tax, in cents.
func (c *Cart) Subtotal() int64 {
	var sum int64
	for _, it := range c.Items {
		sum += it.Cents * int64(it.Quantity)
	}
	return sum
}

// Total is the subtotal plus the region's tax, in cents.
func (c *Cart) Total() int64 {
	sub := c.Subtotal()
	return sub + pricing.Tax(c.Region, sub)
}

// Receipt renders the cart as text, one line per item.
func (c *Cart) Receipt() string {
	var lines []string
	for _, it := range c.Items {
		lines = append(lines, textutil.Pad(it.Name, 20)+pricing.Format(it.Cents*int64(it.Quantity)))
	}
	lines = append(lines, textutil.Pad("Total", 20)+pricing.Format(c.Total()))
	return textutil.JoinLines(lines)
}
