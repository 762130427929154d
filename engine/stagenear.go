//go:build i2snonear

package engine

// nearestFirst is off with build tag i2snonear (for evaluation only): the
// stage's replacements are not ordered by how near their comparisons came
// (compares.go), as before that order existed.
const nearestFirst = false
