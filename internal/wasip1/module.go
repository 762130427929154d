package wasip1

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// ModuleName is the import module name this package provides.
const ModuleName = "wasi_snapshot_preview1"

// impl is one WASI function: p holds the raw parameters (i32 in the low 32
// bits, i64 whole); the result is the errno.
type impl func(s *State, g guest, p []uint64) Errno

// def describes one exported function. sig has one letter per parameter:
// 'i' for i32, 'I' for i64; every function but proc_exit returns an i32
// errno.
type def struct {
	name  string
	sig   string
	names string // space-separated parameter names
	fn    impl
}

// defs is the whole preview1 function table, in the order of the witx
// specification.
func defs() []def {
	return []def{
		{"args_get", "ii", "argv argv_buf", argsGet},
		{"args_sizes_get", "ii", "result.argc result.argv_len", argsSizesGet},
		{"environ_get", "ii", "environ environ_buf", environGet},
		{"environ_sizes_get", "ii", "result.environc result.environv_len", environSizesGet},
		{"clock_res_get", "ii", "id result.resolution", clockResGet},
		{"clock_time_get", "iIi", "id precision result.timestamp", clockTimeGet},
		{"fd_advise", "iIIi", "fd offset len advice", fdAdvise},
		{"fd_allocate", "iII", "fd offset len", fdReadOnly},
		{"fd_close", "i", "fd", fdClose},
		{"fd_datasync", "i", "fd", fdSync},
		{"fd_fdstat_get", "ii", "fd result.stat", fdFdstatGet},
		{"fd_fdstat_set_flags", "ii", "fd flags", fdFdstatSetFlags},
		{"fd_fdstat_set_rights", "iII", "fd fs_rights_base fs_rights_inheriting", notsup},
		{"fd_filestat_get", "ii", "fd result.buf", fdFilestatGet},
		{"fd_filestat_set_size", "iI", "fd size", fdReadOnly},
		{"fd_filestat_set_times", "iIIi", "fd atim mtim fst_flags", fdReadOnly},
		{"fd_pread", "iiiIi", "fd iovs iovs_len offset result.nread", fdPread},
		{"fd_prestat_get", "ii", "fd result.prestat", fdPrestatGet},
		{"fd_prestat_dir_name", "iii", "fd path path_len", fdPrestatDirName},
		{"fd_pwrite", "iiiIi", "fd iovs iovs_len offset result.nwritten", fdPwrite},
		{"fd_read", "iiii", "fd iovs iovs_len result.nread", fdRead},
		{"fd_readdir", "iiiIi", "fd buf buf_len cookie result.bufused", fdReaddir},
		{"fd_renumber", "ii", "fd to", notsup},
		{"fd_seek", "iIii", "fd offset whence result.newoffset", fdSeek},
		{"fd_sync", "i", "fd", fdSync},
		{"fd_tell", "ii", "fd result.offset", fdTell},
		{"fd_write", "iiii", "fd iovs iovs_len result.nwritten", fdWrite},
		{"path_create_directory", "iii", "fd path path_len", pathReadOnly},
		{"path_filestat_get", "iiiii", "fd flags path path_len result.filestat", pathFilestatGet},
		{"path_filestat_set_times", "iiiiIIi", "fd flags path path_len atim mtim fst_flags", pathReadOnly},
		{"path_link", "iiiiiii", "old_fd old_flags old_path old_path_len new_fd new_path new_path_len", pathReadOnly},
		{"path_open", "iiiiiIIii", "fd dirflags path path_len oflags fs_rights_base fs_rights_inheriting fdflags result.opened_fd", pathOpen},
		{"path_readlink", "iiiiii", "fd path path_len buf buf_len result.bufused", pathReadlink},
		{"path_remove_directory", "iii", "fd path path_len", pathReadOnly},
		{"path_rename", "iiiiii", "fd old_path old_path_len new_fd new_path new_path_len", pathReadOnly},
		{"path_symlink", "iiiii", "old_path old_path_len fd new_path new_path_len", pathSymlink},
		{"path_unlink_file", "iii", "fd path path_len", pathReadOnly},
		{"poll_oneoff", "iiii", "in out nsubscriptions result.nevents", pollOneoff},
		{"proc_exit", "i", "rval", nil}, // special: no result, see procExit
		{"proc_raise", "i", "sig", nosys},
		{"sched_yield", "", "", schedYield},
		{"random_get", "ii", "buf buf_len", randomGet},
		{"sock_accept", "iii", "fd flags result.fd", notsup},
		{"sock_recv", "iiiiii", "fd ri_data ri_data_len ri_flags result.ro_datalen result.ro_flags", notsup},
		{"sock_send", "iiiii", "fd si_data si_data_len si_flags result.so_datalen", notsup},
		{"sock_shutdown", "ii", "fd how", notsup},
	}
}

// FunctionNames lists every function the host module exports: all of
// wasi_snapshot_preview1, in specification order.
func FunctionNames() []string {
	ds := defs()
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.name
	}
	return names
}

// NewHostModuleBuilder returns a builder for ModuleName with every
// function exported, for callers that want to Compile it themselves.
func NewHostModuleBuilder(r wazero.Runtime) wazero.HostModuleBuilder {
	b := r.NewHostModuleBuilder(ModuleName)
	for _, d := range defs() {
		params := make([]api.ValueType, len(d.sig))
		for i, c := range d.sig {
			params[i] = api.ValueTypeI32
			if c == 'I' {
				params[i] = api.ValueTypeI64
			}
		}
		var names []string
		if d.names != "" {
			names = strings.Fields(d.names)
		}
		fb := b.NewFunctionBuilder()
		if d.fn == nil {
			fb = fb.WithGoModuleFunction(api.GoModuleFunc(procExit), params, nil)
		} else {
			fb = fb.WithGoModuleFunction(wrap(d.fn), params, []api.ValueType{api.ValueTypeI32}).
				WithResultNames("errno")
		}
		fb.WithParameterNames(names...).Export(d.name)
	}
	return b
}

// Instantiate registers the host module ModuleName in r. One instance
// serves every guest module of r; per-run behaviour comes from the State
// in each call's context (WithState). Close the result (or r) to remove it.
func Instantiate(ctx context.Context, r wazero.Runtime) (api.Closer, error) {
	m, err := NewHostModuleBuilder(r).Instantiate(ctx)
	if err != nil {
		return nil, fmt.Errorf("instantiate %s: %w", ModuleName, err)
	}
	return m, nil
}

// wrap adapts an impl to wazero's stack-based host function ABI. A call
// without a State in its context answers ENOSYS: the host module is
// useless without one, and this keeps a forgotten WithState from
// panicking inside the guest.
func wrap(f impl) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		s := StateFrom(ctx)
		if s == nil {
			stack[0] = uint64(ErrnoNosys)
			return
		}
		if !s.ready {
			s.Reset()
		}
		stack[0] = uint64(f(s, newGuest(mod.Memory(), s), stack))
	}
}

// procExit ends the run the way wazero's own WASI does: it closes the
// calling module with the exit code (so later calls into it fail with the
// same *sys.ExitError) and unwinds the guest by panicking with
// sys.NewExitError, which wazero returns from the exported function call.
func procExit(ctx context.Context, mod api.Module, stack []uint64) {
	code := uint32(stack[0])
	if s := StateFrom(ctx); s != nil {
		s.Exited, s.ExitCode = true, code
	}
	_ = mod.CloseWithExitCode(ctx, code)
	panic(sys.NewExitError(code))
}

func nosys(*State, guest, []uint64) Errno  { return ErrnoNosys }
func notsup(*State, guest, []uint64) Errno { return ErrnoNotsup }

func schedYield(*State, guest, []uint64) Errno { return ErrnoSuccess }
