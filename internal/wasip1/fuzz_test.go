package wasip1

import (
	"bytes"
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// FuzzCalls drives every host function except proc_exit with hostile
// arguments decoded from the input (Base 64 KiB): no call may fail in
// wazero (a host panic would), and none may write into the reserved page
// below Base.
func FuzzCalls(f *testing.F) {
	f.Add([]byte{26, 1, 0x10, 1, 0x20})                        // fd_write
	f.Add([]byte{20, 0, 0x10, 1, 0x20, 0x00, 0x10})            // fd_read
	f.Add([]byte{31, 3, 1, 0x80, 5, 1, 0xff, 0, 0, 0x70})      // path_open
	f.Add([]byte{37, 0x80, 0x90, 2, 0x40, 0x81, 0x82, 0x83})   // poll_oneoff with edge pointers
	f.Add([]byte{0, 0x81, 0x82, 41, 0x84, 0x85, 21, 3, 0x86})  // args_get, random_get
	f.Add([]byte{21, 3, 0x10, 0x40, 0, 0x20, 10, 3, 0x40, 44}) // readdir, fdstat
	r := newRuntime(f)
	compiled, err := r.CompileModule(context.Background(), forwardWasm)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mod, err := r.InstantiateModule(context.Background(), compiled, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatal(err)
		}
		defer mod.Close(context.Background())
		fw := &fwd{t: t, mod: mod, mem: mod.Memory(), fns: map[string]api.Function{}}
		s := &State{
			Base: G, Args: []string{"a", "bb"}, Env: []string{"K=V"},
			Stdin: []byte("stdin"), Files: testFiles(), Seed: 1,
			Stdout: NewTailBuffer(64), Stderr: NewTailBuffer(64),
		}
		// Some plausible structures in guest memory for the pointers to
		// land on: iovecs, a path, subscriptions.
		fw.putIovecs(G+0x10, 0x100, 16, 0x200, 8)
		fw.put(G+0x80, []byte("dir/sub/b.txt"))
		ctx := WithState(context.Background(), s)
		ds := defs()
		edges := []uint64{0, 1, 8, guestSize - 1, guestSize - 8, guestSize, G, 0x7fffffff, 0xfffffff8, 0xffffffff}
		for calls := 0; len(data) > 0 && calls < 64; calls++ {
			d := ds[int(data[0])%len(ds)]
			data = data[1:]
			if d.fn == nil {
				continue // proc_exit
			}
			params := make([]uint64, len(d.sig))
			for i := range params {
				if len(data) == 0 {
					break
				}
				b := data[0]
				data = data[1:]
				if b >= 0x80 {
					params[i] = edges[int(b-0x80)%len(edges)]
				} else {
					params[i] = uint64(b) << (4 * (b & 1))
				}
				if d.sig[i] == 'I' && b&0x40 != 0 {
					params[i] |= 1 << 63
				}
			}
			if _, err := fw.mod.ExportedFunction(d.name).Call(ctx, params...); err != nil {
				t.Fatalf("%s%v: %v", d.name, params, err)
			}
		}
		if z := fw.get(0, G); bytes.ContainsFunc(z, func(r rune) bool { return r != 0 }) {
			t.Fatal("reserved page written")
		}
	})
}
