//go:build !i2sbase

package engine

// baseStage is off in every ordinary build (stagebase.go).
const baseStage = false
