// Command gocmd is a GOOS=wasip1 test program for internal/wasip1 (built
// by ../build.sh into ../gocmd.wasm). It prints what a sandboxed program
// can observe: stdin, the file named by argv[1], args and environment,
// clocks, randomness, a directory listing, and the errors it gets when it
// tries to escape (create files, read /etc/passwd). It exits with the code
// in $EXIT_CODE (default 0), or panics with $PANIC when that is set.
package main

import (
	"crypto/rand"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"time"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	fmt.Printf("stdin: %q err=%v\n", in, err)
	fmt.Printf("args: %q\n", os.Args)
	fmt.Printf("env: %q\n", os.Environ())
	if len(os.Args) > 1 {
		data, err := os.ReadFile(os.Args[1])
		fmt.Printf("file %s: %q err=%v\n", os.Args[1], data, err)
		if st, err := os.Stat(os.Args[1]); err == nil {
			fmt.Printf("stat: size=%d dir=%v mode=%v\n", st.Size(), st.IsDir(), st.Mode())
		}
	}
	entries, err := os.ReadDir("/")
	for _, e := range entries {
		fmt.Printf("dirent: %s dir=%v\n", e.Name(), e.IsDir())
	}
	fmt.Printf("readdir err=%v\n", err)

	t0 := time.Now()
	time.Sleep(2 * time.Second)
	slept := time.Since(t0)
	fmt.Printf("now: %s\n", t0.UTC().Format(time.RFC3339Nano))
	fmt.Printf("slept>=2s: %v\n", slept >= 2*time.Second)

	var rb [8]byte
	_, err = rand.Read(rb[:])
	fmt.Printf("crypto/rand: %x err=%v\n", rb, err)
	fmt.Printf("math/rand: %d\n", mrand.Uint64())

	_, err = os.Create("/created.txt")
	fmt.Printf("create: %v\n", err)
	err = os.WriteFile("/tmp/wafer-wasip1-gocmd", []byte("x"), 0o644)
	fmt.Printf("writefile: %v\n", err)
	err = os.Mkdir("/newdir", 0o755)
	fmt.Printf("mkdir: %v\n", err)
	_, err = os.ReadFile("/etc/passwd")
	fmt.Printf("passwd: %v\n", err)
	_, err = os.ReadFile("../../../etc/passwd")
	fmt.Printf("passwd-relative: %v\n", err)
	if len(os.Args) > 1 {
		err = os.Remove(os.Args[1])
		fmt.Printf("remove: %v\n", err)
	}

	fmt.Fprintln(os.Stderr, "to stderr")
	if msg := os.Getenv("PANIC"); msg != "" {
		panic(msg)
	}
	code, _ := strconv.Atoi(os.Getenv("EXIT_CODE"))
	os.Exit(code)
}
