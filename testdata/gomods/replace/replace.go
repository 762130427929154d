// Package replace uses a module required through a replace directive.
package replace
