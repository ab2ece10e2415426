// Package tax computes sales taxes.
package tax

// rates are the sales tax rates by region, in basis points.
var rates = map[string]int64{
	"CA": 725,
	"NY": 400,
	"TX": 625,
	"OR": 0,
}

// RateFor returns the tax rate of a region in basis points; unknown
// regions pay no tax.
func RateFor(region string) int64 {
	return rates[region]
}

// Compute returns the tax on an amount in cents, rounded half up.
func Compute(region string, cents int64) int64 {
	bp := RateFor(region)
	return (cents*bp + 5000) / 10000
}
