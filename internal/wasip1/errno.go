package wasip1

import (
	"strings"

	"github.com/wafer-fuzz/wafer/internal/enumname"
)

// Errno is a WASI preview1 error number, the single result of every
// function except proc_exit. The values are fixed by the preview1 ABI
// (witx "errno" enum), in declaration order.
type Errno uint16

// The preview1 errno values this package returns, plus their neighbours
// so the table mirrors the ABI.
const (
	ErrnoSuccess Errno = iota
	Errno2big
	ErrnoAcces
	ErrnoAddrinuse
	ErrnoAddrnotavail
	ErrnoAfnosupport
	ErrnoAgain
	ErrnoAlready
	ErrnoBadf
	ErrnoBadmsg
	ErrnoBusy
	ErrnoCanceled
	ErrnoChild
	ErrnoConnaborted
	ErrnoConnrefused
	ErrnoConnreset
	ErrnoDeadlk
	ErrnoDestaddrreq
	ErrnoDom
	ErrnoDquot
	ErrnoExist
	ErrnoFault
	ErrnoFbig
	ErrnoHostunreach
	ErrnoIdrm
	ErrnoIlseq
	ErrnoInprogress
	ErrnoIntr
	ErrnoInval
	ErrnoIo
	ErrnoIsconn
	ErrnoIsdir
	ErrnoLoop
	ErrnoMfile
	ErrnoMlink
	ErrnoMsgsize
	ErrnoMultihop
	ErrnoNametoolong
	ErrnoNetdown
	ErrnoNetreset
	ErrnoNetunreach
	ErrnoNfile
	ErrnoNobufs
	ErrnoNodev
	ErrnoNoent
	ErrnoNoexec
	ErrnoNolck
	ErrnoNolink
	ErrnoNomem
	ErrnoNomsg
	ErrnoNoprotoopt
	ErrnoNospc
	ErrnoNosys
	ErrnoNotconn
	ErrnoNotdir
	ErrnoNotempty
	ErrnoNotrecoverable
	ErrnoNotsock
	ErrnoNotsup
	ErrnoNotty
	ErrnoNxio
	ErrnoOverflow
	ErrnoOwnerdead
	ErrnoPerm
	ErrnoPipe
	ErrnoProto
	ErrnoProtonosupport
	ErrnoPrototype
	ErrnoRange
	ErrnoRofs
	ErrnoSpipe
	ErrnoSrch
	ErrnoStale
	ErrnoTimedout
	ErrnoTxtbsy
	ErrnoXdev
	ErrnoNotcapable
)

// errnoNames are the preview1 errno names in ABI order.
var errnoNames = enumname.New[Errno]("errno", "errno", strings.Fields("success 2big acces addrinuse addrnotavail afnosupport again already badf badmsg busy canceled child connaborted connrefused connreset deadlk destaddrreq dom dquot exist fault fbig hostunreach idrm ilseq inprogress intr inval io isconn isdir loop mfile mlink msgsize multihop nametoolong netdown netreset netunreach nfile nobufs nodev noent noexec nolck nolink nomem nomsg noprotoopt nospc nosys notconn notdir notempty notrecoverable notsock notsup notty nxio overflow ownerdead perm pipe proto protonosupport prototype range rofs spipe srch stale timedout txtbsy xdev notcapable")...)

// String returns the errno's ABI name in lower case ("badf"), or
// "errno(N)" for a value outside the preview1 table.
func (e Errno) String() string { return errnoNames.String(e) }
