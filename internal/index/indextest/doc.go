// Package indextest holds what other packages' tests need of the index:
// a snapshot of a small tree written for the test. It is imported by
// tests only.
package indextest
