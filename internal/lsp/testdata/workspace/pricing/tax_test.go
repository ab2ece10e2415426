package pricing

import "testing"

func TestTax(t *testing.T) {
	if got := Tax("EU", 1000); got != 200 {
		t.Errorf("Tax(EU, 1000) = %d, want 200", got)
	}
	if got := Tax("Mars", 1000); got != 0 {
		t.Errorf("Tax(Mars, 1000) = %d, want 0", got)
	}
}
