package instrument

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"testing"
)

//go:embed testdata/goframe.wasm
var goFrameWasm []byte

// TestGoFrameMarks: in goframe.wat's f, the stores through the SP local
// into the frame, into the return-address slot and into a result slot of
// its caller are covered by the entry's marks, a store too far above the
// frame is not, and the frame is found to be 256 bytes; a change to the
// pattern leaves the function to marks.go.
func TestGoFrameMarks(t *testing.T) {
	m, err := Decode(asGoModule(goFrameWasm))
	if err != nil {
		t.Fatal(err)
	}
	c := &m.Code[0] // f
	d := findGoDispatch(&c.Body)
	if d.table < 0 {
		t.Fatal("f's dispatch was not recognised")
	}
	body := c.Body.Instrs
	var a frameAnalysis
	elide := make([]bool, len(body))
	f, ok := a.goFrameMarks(body, c.Body.Pool, d, 1, 0, elide)
	if !ok || f.sp != 1 || f.size != 256 {
		t.Fatalf("expected the frame of local 1, 256 bytes; got %+v, %v", f, ok)
	}
	var covered, kept []uint64 // the stores' offsets (memarg), in order
	for k, in := range body {
		if opinfo(in.Op).mem == memStore {
			if elide[k] {
				covered = append(covered, in.A)
			} else {
				kept = append(kept, in.A)
			}
		}
	}
	// FB+0, FB+248 (Go's i64 form), the push, FB+8, FB+128 (i32 form),
	// E+108 (the caller's), FB+200
	if fmt.Sprint(covered) != "[0 0 0 8 0 364 200]" || fmt.Sprint(kept) != "[1400]" {
		t.Errorf("covered stores (offsets) %v, kept %v; expected [0 0 0 8 0 364 200] and [1400]", covered, kept)
	}
	for i, size := range []uint32{1024, 2048} { // f1k, f2k
		c := &m.Code[1+i]
		e := make([]bool, len(c.Body.Instrs))
		if f, ok := a.goFrameMarks(c.Body.Instrs, c.Body.Pool, findGoDispatch(&c.Body), 1, 0, e); !ok || f.size != size || f.above != 116 {
			t.Errorf("function %d: expected a frame of %d bytes, 116 above; got %+v, %v", 1+i, size, f, ok)
		}
	}
	// one change to the pattern and the function is left to marks.go
	for _, tc := range []struct {
		name string
		edit func(b []Instr)
	}{
		{"SP set from elsewhere", func(b []Instr) { b[0].A = 7 }},
		{"an unknown change of the local", func(b []Instr) {
			for k := range b {
				if b[k].Op == OpI32Sub && b[k-1].A == 256 {
					b[k].Op = OpI32Mul
					return
				}
			}
		}},
		{"a jump to resume point 0", func(b []Instr) {
			for k := range b {
				if b[k].Op == OpBr {
					b[k-2].A = 0
					return
				}
			}
		}},
	} {
		b := append([]Instr(nil), body...)
		tc.edit(b)
		clear(elide)
		bd := findGoDispatch(&Expr{Instrs: b, Pool: c.Body.Pool})
		if bd.table < 0 {
			t.Fatalf("%s: the dispatch is no longer recognised", tc.name)
		}
		if _, ok := a.goFrameMarks(b, c.Body.Pool, bd, 1, 0, elide); ok {
			t.Errorf("%s: the frame was still recognised", tc.name)
		}
	}
}

// TestGoFrameRestore enters goframe.wat's f (and its copies with frames
// of 1 and 2 KiB, whose entries mark through several stores and through
// the $mark helper) as Go's runtime does: called
// (resume point 0, SP at the caller's push) and re-entered at resume
// points 1 and 2 (SP at the frame's base), with SP at every 8 bytes
// around a dirty block's edges. After each call the original and the
// instrumented module's memories must agree, and every byte the call
// changed must lie in a marked block or the DirtySpill bytes after one.
func TestGoFrameRestore(t *testing.T) {
	orig, inst, sm := instantiatePair(t, asGoModule(goFrameWasm), Options{DirtyPages: true})
	ctx := context.Background()
	l := sm.Layout
	if uint64(l.DirtyOffset) <= uint64(l.CountersOffset)+uint64(l.Counters) {
		// frameMark's store16 may write the byte before the dirty map
		t.Fatalf("no free byte between the counters (%d at %#x) and the dirty map at %#x", l.Counters, l.CountersOffset, l.DirtyOffset)
	}
	view, _ := inst.ExportedMemory(MemoryExport).Read(0, inst.ExportedMemory(MemoryExport).Size())
	target := view[l.ReservedBytes():]
	dirty := view[l.DirtyOffset : l.DirtyOffset+l.DirtyPages]
	origMem, _ := orig.ExportedMemory("memory").Read(0, orig.ExportedMemory("memory").Size())
	const block = 1 << dirtyShift
	calls := 0
	for _, run := range []string{"run", "run1k", "run2k"} {
		for _, edge := range []uint64{4 * block, 9 * block} {
			for delta := uint64(0); delta < 1200; delta += 8 {
				for pcb := range uint64(3) {
					sp := edge - 600 + delta
					before := bytes.Clone(target)
					clear(dirty)
					ro, errO := orig.ExportedFunction(run).Call(ctx, pcb, sp)
					ri, errI := inst.ExportedFunction(run).Call(ctx, pcb, sp)
					if errO != nil || errI != nil || ro[0] != ri[0] {
						t.Fatalf("%s(%d, %#x): original %v %v, instrumented %v %v", run, pcb, sp, ro, errO, ri, errI)
					}
					if !bytes.Equal(origMem, target) {
						t.Fatalf("%s(%d, %#x): the memories differ", run, pcb, sp)
					}
					for a := range target {
						if target[a] == before[a] {
							continue
						}
						b := uint64(a) >> dirtyShift
						if dirty[b] == 0 && (b == 0 || dirty[b-1] == 0 || uint64(a)-b*block >= DirtySpill) {
							t.Fatalf("%s(%d, %#x): target address %#x was written, its block is not marked", run, pcb, sp, a)
						}
					}
					calls++
				}
			}
		}
	}
	if calls != 3*2*150*3 {
		t.Fatalf("%d calls", calls)
	}
}

// TestGoFrameMarksPrograms counts, in real Go programs, the functions
// with a dispatch whose frame goFrameMarks follows and the stores that
// need no mark with it and marks.go together: a share that falls means a
// form of Go's code generator stopped being recognised.
func TestGoFrameMarksPrograms(t *testing.T) {
	for _, path := range []string{"testdata/programs/gocalc/gocalc.wasm", "../examples/gojson/gojson.wasm", "../examples/goparser/goparser.wasm"} {
		_, m := decodeFile(t, path)
		var ma markAnalysis
		var fa frameAnalysis
		var stores, before, after, dispatched, framed int
		nimp := m.NumImported(ExternFunc)
		for i := range m.Code {
			c := &m.Code[i]
			body := c.Body.Instrs
			elide := ma.elidedMarks(body, numLocals(m, i))
			n, b := storeCounts(body, elide)
			if d := findGoDispatch(&c.Body); d.table >= 0 {
				dispatched++
				if _, ok := fa.goFrameMarks(body, c.Body.Pool, d, uint32(len(m.Types[m.Funcs[i]].Params)), nimp, elide); ok {
					framed++
				}
			}
			_, a := storeCounts(body, elide)
			stores, before, after = stores+n, before+b, after+a
		}
		fshare, share := float64(framed)/float64(dispatched), float64(after)/float64(stores)
		t.Logf("%s: frames of %d of %d functions with a dispatch; %d of %d stores need no mark (%.1f%%; %.1f%% without frames)",
			path, framed, dispatched, after, stores, 100*share, 100*float64(before)/float64(stores))
		// measured when written: 90-91 % of the functions, 88.9-89.4 % of the stores
		if fshare < 0.85 || share < 0.80 {
			t.Errorf("%s: %.1f%% of the functions' frames followed, %.1f%% of the stores need no mark; expected at least 85%% and 80%%", path, 100*fshare, 100*share)
		}
	}
}
