package instrument

import "slices"

// UnwrapCommandExports undoes wasm-ld's command export wrappers. A module
// linked as a command (the default exec model, also with -nostartfiles
// and --no-entry; Rust's wasm32-wasi cdylibs) gets every exported function
// wrapped as `call $__wasm_call_ctors; local.get 0..n-1; call $f;
// [call $__wasm_call_dtors]`: each call runs the static constructors again
// and then the destructors, which re-initialises C++ globals on every
// input, leaks what they allocate, and traps in wasi-libc's exit handlers
// when called twice.
//
// Each wrapper export is re-pointed to the function it wraps, and the
// constructors get the export initName (when no export has that name), so
// a host that calls initName once per instance, as it does for a reactor's
// _initialize, runs them once; the destructors never run, as in a reactor.
// A wrapper is recognised by its shape plus either the name section
// (__wasm_call_ctors, or a function named "f.command_export") or, in a
// module without names, by two or more exports wrapping with the same
// constructors: one function that calls a reset function and then its
// worker has the same shape. unwrapped lists the re-pointed exports; out
// is wasm itself when there are none. A malformed module is an error
// (*FormatError).
func UnwrapCommandExports(wasm []byte, initName string) (out []byte, unwrapped []string, err error) {
	m, err := Decode(wasm)
	if err != nil {
		return nil, nil, err
	}
	if unwrapped = unwrapCommandExports(m, initName); unwrapped == nil {
		return wasm, nil, nil
	}
	return withSections(wasm, m, SectionExport), unwrapped, nil
}

// unwrapCommandExports is UnwrapCommandExports's pass over a decoded
// module (its export section): it returns the re-pointed exports, nil
// when it left m as it was. Prepare runs it (Build.Initialize).
func unwrapCommandExports(m *Module, initName string) (unwrapped []string) {
	nimp := m.NumImported(ExternFunc)
	names := nameSectionFuncs(m)
	type wrapper struct {
		export              int
		ctors, inner, dtors uint32
		named               bool
	}
	var found []wrapper
	for i, e := range m.Exports {
		if e.Kind != ExternFunc || e.Index < nimp || int(e.Index-nimp) >= len(m.Code) {
			continue
		}
		ctors, inner, dtors, ok := wrapperShape(m, e.Index)
		if !ok {
			continue
		}
		named := names[ctors] == "__wasm_call_ctors" || names[e.Index] != "" && names[e.Index] == names[inner]+".command_export"
		found = append(found, wrapper{i, ctors, inner, dtors, named})
	}
	if len(found) == 0 {
		return nil
	}
	// One set of constructors and destructors for all, and a reason to
	// believe they are wasm-ld's.
	named := false
	for _, w := range found {
		if w.ctors != found[0].ctors || w.dtors != found[0].dtors {
			return nil
		}
		named = named || w.named
	}
	if !named && len(found) < 2 {
		return nil
	}
	for _, w := range found {
		m.Exports[w.export].Index = w.inner
		unwrapped = append(unwrapped, m.Exports[w.export].Name)
	}
	if !slices.ContainsFunc(m.Exports, func(e Export) bool { return e.Name == initName }) {
		m.Exports = append(m.Exports, Export{Name: initName, Kind: ExternFunc, Index: found[0].ctors})
	}
	return unwrapped
}

// wrapperShape matches the body of function f against wasm-ld's command
// export wrapper: no locals, `call ctors` ([] -> []), every parameter in
// order, `call inner` (f's own type), optionally `call dtors` ([] -> []),
// end. dtors is ^0 when absent.
func wrapperShape(m *Module, f uint32) (ctors, inner, dtors uint32, ok bool) {
	c := &m.Code[f-m.NumImported(ExternFunc)]
	if len(c.Locals) != 0 {
		return 0, 0, 0, false
	}
	ft, ok := funcType(m, f)
	if !ok {
		return 0, 0, 0, false
	}
	in := c.Body.Instrs
	n := len(ft.Params)
	if len(in) != n+3 && len(in) != n+4 {
		return 0, 0, 0, false
	}
	if in[0].Op != OpCall || !isVoid(m, uint32(in[0].A)) {
		return 0, 0, 0, false
	}
	for i := range n {
		if in[1+i].Op != OpLocalGet || in[1+i].A != uint64(i) {
			return 0, 0, 0, false
		}
	}
	ctors, inner, dtors = uint32(in[0].A), uint32(in[1+n].A), ^uint32(0)
	if in[1+n].Op != OpCall || inner == f || inner == ctors {
		return 0, 0, 0, false
	}
	if it, ok := funcType(m, inner); !ok || !sameType(it, ft) {
		return 0, 0, 0, false
	}
	if len(in) == n+4 {
		if in[2+n].Op != OpCall || !isVoid(m, uint32(in[2+n].A)) {
			return 0, 0, 0, false
		}
		dtors = uint32(in[2+n].A)
	}
	return ctors, inner, dtors, in[len(in)-1].Op == OpEnd
}

func funcType(m *Module, f uint32) (FuncType, bool) {
	t, ok := m.FuncTypeOf(f)
	if !ok || int(t) >= len(m.Types) {
		return FuncType{}, false
	}
	return m.Types[t], true
}

func isVoid(m *Module, f uint32) bool {
	t, ok := funcType(m, f)
	return ok && len(t.Params) == 0 && len(t.Results) == 0
}

func sameType(a, b FuncType) bool {
	return slices.Equal(a.Params, b.Params) && slices.Equal(a.Results, b.Results)
}
