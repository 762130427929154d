package wasip1

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

// String returns the errno's ABI name in lower case ("badf"), or
// "errno(N)" for a value outside the preview1 table.
func (e Errno) String() string {
	const names = "success 2big acces addrinuse addrnotavail afnosupport again already badf badmsg busy canceled child connaborted connrefused connreset deadlk destaddrreq dom dquot exist fault fbig hostunreach idrm ilseq inprogress intr inval io isconn isdir loop mfile mlink msgsize multihop nametoolong netdown netreset netunreach nfile nobufs nodev noent noexec nolck nolink nomem nomsg noprotoopt nospc nosys notconn notdir notempty notrecoverable notsock notsup notty nxio overflow ownerdead perm pipe proto protonosupport prototype range rofs spipe srch stale timedout txtbsy xdev notcapable"
	i := 0
	for start := 0; start <= len(names); i++ {
		end := start
		for end < len(names) && names[end] != ' ' {
			end++
		}
		if i == int(e) {
			return names[start:end]
		}
		start = end + 1
	}
	return "errno(" + itoa(uint64(e)) + ")"
}

func itoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(b[i:])
}
