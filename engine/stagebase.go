//go:build i2sbase

package engine

// baseStage (build tag i2sbase, for evaluation only) makes the
// input-to-state stage as it was before issue 42: no transforms, no
// 128-bit joins, replacements ordered by exactness and length alone.
const baseStage = true
