// Package vendored uses a module from its vendor directory.
package vendored
