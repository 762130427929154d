// Command gocalc is a GOOS=wasip1 program for wafer's differential tests: it
// reads a JSON array of operations from stdin, evaluates them on a stack and
// prints the results. Invalid JSON exits 2 with a message on stderr; the
// operation "boom" panics; dividing by zero panics with Go's runtime error.
// Rebuild: ../build.sh
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

type op struct {
	Op   string    `json:"op"`
	Args []float64 `json:"args"`
	Name string    `json:"name"`
}

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
		os.Exit(1)
	}
	var ops []op
	if err := json.Unmarshal(in, &ops); err != nil {
		fmt.Fprintln(os.Stderr, "bad input:", err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	vars := map[string]float64{}
	var stack []float64
	for i, o := range ops {
		stack = append(stack, o.Args...)
		switch o.Op {
		case "add", "mul":
			if len(stack) < 2 {
				fmt.Fprintf(os.Stderr, "op %d: stack underflow\n", i)
				continue
			}
			a, b := stack[len(stack)-2], stack[len(stack)-1]
			stack = stack[:len(stack)-2]
			if o.Op == "add" {
				stack = append(stack, a+b)
			} else {
				stack = append(stack, a*b)
			}
		case "idiv":
			a, b := int(stack[len(stack)-2]), int(stack[len(stack)-1])
			stack = append(stack[:len(stack)-2], float64(a/b))
		case "set":
			vars[o.Name] = stack[len(stack)-1]
		case "get":
			stack = append(stack, vars[o.Name])
		case "sort":
			sort.Float64s(stack)
		case "print":
			parts := make([]string, len(stack))
			for j, v := range stack {
				parts[j] = strconv.FormatFloat(v, 'g', -1, 64)
			}
			fmt.Fprintln(w, strings.Join(parts, " "))
		case "json":
			b, _ := json.Marshal(map[string]any{"stack": stack, "vars": vars})
			fmt.Fprintln(w, string(b))
		case "boom":
			w.Flush()
			panic(fmt.Sprintf("boom at op %d", i))
		case "exit":
			w.Flush()
			os.Exit(int(stack[len(stack)-1]))
		default:
			fmt.Fprintf(os.Stderr, "op %d: unknown %q\n", i, o.Op)
		}
	}
}
