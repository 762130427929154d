//go:build !i2snonear

package engine

// nearestFirst is on in every ordinary build (stagenear.go).
const nearestFirst = true
