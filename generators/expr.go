package generators

import "strconv"

// Expression types (frame names) and the depth limit.
var (
	tExpr       = newType("expr.Expr")
	tExprIdent  = newType("expr.Ident")
	tExprNumber = newType("expr.Number")
	tExprString = newType("expr.String")
	tExprCall   = newType("expr.Call")
	tExprBinary = newType("expr.Binary")
)

const exprDepth = 6

var (
	exprIdents  = [...]string{"a", "b", "c", "x", "y", "z", "i", "n", "foo", "bar", "obj", "arr", "fn", "len", "Math", "JSON", "self", "val"}
	exprBinary  = [...]string{"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "&", "|", "^", "<<", ">>"}
	exprUnary   = [...]string{"-", "+", "!", "^"}
	exprStrings = " !#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~\"\\\n\t"
)

// Expr generates a JavaScript-like expression: integer, decimal and string
// literals, identifiers, member access, calls, indexing, unary and binary
// operators and parentheses, nested at most 6 deep. The syntax is the common
// subset of JavaScript and Go expressions, so go/parser.ParseExpr accepts
// every output.
func Expr(s *Source) []byte { return exprExpr(s, make([]byte, 0, 64)) }

func exprExpr(s *Source, b []byte) []byte {
	deep := s.depthT(tExpr) >= exprDepth
	s.enterT(tExpr)
	defer s.Leave()
	w := [...]int{3, 3, 2, 2, 3, 2, 1}
	if deep {
		w[3], w[4], w[5], w[6] = 0, 0, 0, 0
	}
	switch s.Weighted(w[:]...) {
	case 0:
		s.enterT(tExprNumber)
		if s.Pick(2) == 0 {
			b = strconv.AppendInt(b, s.Int64(0, 1<<40), 10)
		} else {
			b = strconv.AppendInt(b, s.Int64(0, 99999), 10)
			b = append(b, '.')
			b = strconv.AppendInt(b, s.Int64(0, 99999), 10)
		}
		s.Leave()
		return b
	case 1:
		return exprPrimary(s, b)
	case 2:
		s.enterT(tExprString)
		var sb [32]byte
		raw := s.appendString(sb[:0], exprStrings, 0, 20)
		b = append(b, '"')
		for _, c := range raw {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, c)
			}
		}
		s.Leave()
		return append(b, '"')
	case 3:
		b = append(b, exprUnary[s.Int(0, len(exprUnary)-1)]...)
		b = append(b, ' ')
		return exprExpr(s, b)
	case 4:
		s.enterT(tExprBinary)
		b = append(b, '(')
		b = exprExpr(s, b)
		b = append(b, ' ')
		b = append(b, exprBinary[s.Int(0, len(exprBinary)-1)]...)
		b = append(b, ' ')
		b = exprExpr(s, b)
		s.Leave()
		return append(b, ')')
	case 5:
		// Call: callee(args…)
		s.enterT(tExprCall)
		b = exprPrimary(s, b)
		b = append(b, '(')
		n := s.beginList(0, 4)
		for i := range n {
			s.elem()
			if i > 0 {
				b = append(b, ", "...)
			}
			b = exprExpr(s, b)
			s.Leave()
		}
		s.endList()
		s.Leave()
		return append(b, ')')
	default:
		// Index: primary[expr]
		b = exprPrimary(s, b)
		b = append(b, '[')
		b = exprExpr(s, b)
		return append(b, ']')
	}
}

// exprPrimary appends an identifier with optional member accesses.
func exprPrimary(s *Source, b []byte) []byte {
	s.enterT(tExprIdent)
	defer s.Leave()
	b = append(b, exprIdents[s.Int(0, len(exprIdents)-1)]...)
	n := s.beginList(0, 2)
	for range n {
		s.elem()
		b = append(b, '.')
		b = append(b, exprIdents[s.Int(0, len(exprIdents)-1)]...)
		s.Leave()
	}
	s.endList()
	return b
}
