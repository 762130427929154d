package instrument

// localSlot keys a scratch local: its type and a slot number.
type localSlot struct {
	t    ValType
	slot int
}

// localSlotIdx is a scratch local's key and its local index.
type localSlotIdx struct {
	k   localSlot
	idx uint32
}

// site appends a site of kind at instruction in (arm: Site.Arm) to the
// SiteMap and returns its id.
func (rw *rewriter) site(in *Instr, kind SiteKind, arm uint32) uint32 {
	id := uint32(len(rw.sm.Sites))
	var off uint32
	if in.Off >= rw.m.CodeOffset {
		off = in.Off - rw.m.CodeOffset
	}
	rw.sm.Sites = append(rw.sm.Sites, Site{Func: rw.fn, Offset: off, Kind: kind, Arm: arm})
	return id
}

// opRaw is a pseudo-instruction in rw.out: copy src[A:B] verbatim.
const opRaw Op = 0xffff

// keep emits the original instruction body[rw.k] unchanged: as a span of
// the input bytes when the input is known, merged with the previous span.
func (rw *rewriter) keep(in *Instr) {
	if in.Off == 0 || rw.src == nil {
		rw.out = append(rw.out, *in)
		return
	}
	end := uint64(in.Off) + 1 // the final end is one byte
	if rw.k+1 < len(rw.body) {
		end = uint64(rw.body[rw.k+1].Off)
	}
	if n := len(rw.out); n > 0 && rw.out[n-1].Op == opRaw && rw.out[n-1].B == uint64(in.Off) {
		rw.out[n-1].B = end
		return
	}
	rw.out = append(rw.out, Instr{Op: opRaw, A: uint64(in.Off), B: end})
}

// emit appends instruction op with immediate a.
func (rw *rewriter) emit(op Op, a uint64) { rw.out = append(rw.out, Instr{Op: op, A: a}) }

// emitMem appends memory instruction op with its offset and alignment.
func (rw *rewriter) emitMem(op Op, offset uint64, align uint64) {
	rw.out = append(rw.out, Instr{Op: op, A: offset, B: align})
}

// i32 appends an i32.const of v.
func (rw *rewriter) i32(v int64) { rw.emit(OpI32Const, uint64(int64(int32(v)))) }

// local returns the index of scratch local (t, slot), adding it on first use.
func (rw *rewriter) local(t ValType, slot int) uint32 {
	k := localSlot{t, slot}
	for _, s := range rw.scratch {
		if s.k == k {
			return s.idx
		}
	}
	idx := rw.next
	rw.next++
	rw.scratch = append(rw.scratch, localSlotIdx{k, idx})
	if n := len(rw.added); n > 0 && rw.added[n-1].Type == t {
		rw.added[n-1].Count++
	} else {
		rw.added = append(rw.added, LocalDecl{Count: 1, Type: t})
	}
	return idx
}

// blockTypes returns the parameter and result types of a block type
// (code c, index or heap type a).
func (rw *rewriter) blockTypes(c uint32, a uint64) (params, results []ValType) {
	switch {
	case c == 0x40:
		return nil, nil
	case c == 0:
		if a < uint64(len(rw.m.Types)) {
			t := &rw.m.Types[a]
			return t.Params, t.Results
		}
		return nil, nil
	case byte(c) == RefNull || byte(c) == Ref:
		return nil, []ValType{{Code: byte(c), Heap: int64(a)}}
	default:
		return nil, []ValType{{Code: byte(c)}}
	}
}

// labelTypes returns the types a branch to depth carries.
func (rw *rewriter) labelTypes(depth uint64) []ValType {
	if depth >= uint64(len(rw.ctl)) {
		return nil
	}
	f := &rw.ctl[len(rw.ctl)-1-int(depth)]
	if len(rw.ctl)-1-int(depth) == 0 {
		return rw.results
	}
	p, r := rw.blockTypes(f.c, f.a)
	if f.op == OpLoop {
		return p
	}
	return r
}

// defaultable reports whether every type in ts has a default value (no
// non-nullable reference).
func defaultable(ts []ValType) bool {
	for _, t := range ts {
		if t.Code == Ref {
			return false
		}
	}
	return true
}

// typeIndex returns the index of a function type, adding it if needed.
func (rw *rewriter) typeIndex(params, results []ValType) uint32 {
	if rw.typeIdx == nil {
		rw.typeIdx = map[string]uint32{}
		for i := len(rw.m.Types) - 1; i >= 0; i-- {
			rw.typeIdx[typeKey(rw.m.Types[i].Params, rw.m.Types[i].Results)] = uint32(i)
		}
	}
	k := typeKey(params, results)
	if i, ok := rw.typeIdx[k]; ok {
		return i
	}
	i := uint32(len(rw.m.Types))
	rw.m.Types = append(rw.m.Types, FuncType{Params: append([]ValType(nil), params...), Results: append([]ValType(nil), results...)})
	rw.typeIdx[k] = i
	return i
}

// typeKey encodes a function type as a map key.
func typeKey(p, r []ValType) string {
	var e encoder
	e.valTypes(p)
	e.valTypes(r)
	return string(e.buf)
}
