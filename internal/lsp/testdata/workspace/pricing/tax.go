// Package pricing computes taxes and formats amounts.
package pricing

import "fmt"

// rates are the tax rates by region, in basis points (1/100 of a percent).
var rates = map[string]int64{
	"EU": 2000,
	"UK": 2000,
	"US": 725,
	"JP": 1000,
}

// RateFor returns the tax rate of a region in basis points; unknown
// regions pay no tax.
func RateFor(region string) int64 {
	return rates[region]
}

// Tax computes the tax on an amount of cents at checkout, rounding half up.
func Tax(region string, cents int64) int64 {
	return (cents*RateFor(region) + 5000) / 10000
}

// Format renders cents as a decimal amount: 1234 → "12.34".
func Format(cents int64) string {
	return fmt.Sprintf("%d.%02d", cents/100, cents%100)
}
