package generators

import (
	"fmt"
	"strings"
)

// validSQL parses b with a small recursive-descent parser for the SELECT
// subset SQL emits (standard SQL syntax; no semantic checks). The standard
// library has no SQL parser, so this one stands in for it.
func validSQL(b []byte) error {
	toks, err := sqlTokens(string(b))
	if err != nil {
		return err
	}
	p := &sqlParser{toks: toks}
	p.script()
	if p.err == nil && p.pos != len(p.toks) {
		p.failf("expected end, got %q", p.toks[p.pos])
	}
	return p.err
}

var sqlKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields("SELECT DISTINCT FROM WHERE GROUP BY HAVING ORDER ASC DESC LIMIT OFFSET AS ON JOIN LEFT INNER CROSS AND OR NOT IS NULL IN BETWEEN LIKE TRUE FALSE CREATE TABLE INSERT INTO VALUES") {
		m[k] = true
	}
	return m
}()

func sqlTokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case c == '\'':
			j := i + 1
			for {
				if j >= len(s) {
					return nil, fmt.Errorf("unterminated string at %d", i)
				}
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			out = append(out, s[i:j+1])
			i = j + 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j < len(s) && s[j] == '.' {
				j++
				if j >= len(s) || s[j] < '0' || s[j] > '9' {
					return nil, fmt.Errorf("bad number at %d", i)
				}
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}
			out = append(out, s[i:j])
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			for _, op := range []string{"<>", "<=", ">=", "||", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ".", ";"} {
				if strings.HasPrefix(s[i:], op) {
					out = append(out, op)
					i += len(op)
					goto next
				}
			}
			return nil, fmt.Errorf("unexpected byte %q at %d", c, i)
		next:
		}
	}
	return out, nil
}

type sqlParser struct {
	toks []string
	pos  int
	err  error
}

func (p *sqlParser) failf(f string, a ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("token %d: %s", p.pos, fmt.Sprintf(f, a...))
	}
}

func (p *sqlParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *sqlParser) accept(t string) bool {
	if p.err == nil && p.peek() == t {
		p.pos++
		return true
	}
	return false
}

func (p *sqlParser) expect(t string) {
	if !p.accept(t) {
		p.failf("expected %q, got %q", t, p.peek())
	}
}

func (p *sqlParser) ident() {
	t := p.peek()
	if t == "" || !(t[0] == '_' || t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z') || sqlKeywords[t] {
		p.failf("expected identifier, got %q", t)
		return
	}
	p.pos++
}

func (p *sqlParser) integer() {
	t := p.peek()
	if t == "" || t[0] < '0' || t[0] > '9' || strings.Contains(t, ".") {
		p.failf("expected integer, got %q", t)
		return
	}
	p.pos++
}

// script: (CREATE TABLE name(col [type], ...); [INSERT INTO name VALUES
// (lit, ...), ...;])* SELECT ...;
func (p *sqlParser) script() {
	for p.err == nil && p.accept("CREATE") {
		p.expect("TABLE")
		p.ident()
		p.expect("(")
		for first := true; first || p.accept(","); first = false {
			p.ident()
			if t := p.peek(); t == "INTEGER" || t == "TEXT" || t == "REAL" || t == "BLOB" {
				p.pos++
			}
		}
		p.expect(")")
		p.expect(";")
		if p.accept("INSERT") {
			p.expect("INTO")
			p.ident()
			p.expect("VALUES")
			for first := true; first || p.accept(","); first = false {
				p.expect("(")
				for first := true; first || p.accept(","); first = false {
					p.expr()
				}
				p.expect(")")
			}
			p.expect(";")
		}
	}
	p.selectStmt()
	p.expect(";")
}

func (p *sqlParser) selectStmt() {
	p.expect("SELECT")
	p.accept("DISTINCT")
	for first := true; first || p.accept(","); first = false {
		if p.accept("*") {
			continue
		}
		p.expr()
		if p.accept("AS") {
			p.ident()
		}
	}
	if p.accept("FROM") {
		p.tableRef()
		for p.err == nil {
			cross := false
			switch {
			case p.accept("JOIN"):
			case p.accept("LEFT"), p.accept("INNER"):
				p.expect("JOIN")
			case p.accept("CROSS"):
				p.expect("JOIN")
				cross = true
			default:
				goto where
			}
			p.tableRef()
			if !cross {
				p.expect("ON")
				p.expr()
			}
		}
	}
where:
	if p.accept("WHERE") {
		p.expr()
	}
	if p.accept("GROUP") {
		p.expect("BY")
		for first := true; first || p.accept(","); first = false {
			p.colRef()
		}
		if p.accept("HAVING") {
			p.expr()
		}
	}
	if p.accept("ORDER") {
		p.expect("BY")
		for first := true; first || p.accept(","); first = false {
			p.expr()
			if !p.accept("ASC") {
				p.accept("DESC")
			}
		}
	}
	if p.accept("LIMIT") {
		p.integer()
		if p.accept("OFFSET") {
			p.integer()
		}
	}
}

func (p *sqlParser) tableRef() {
	if p.accept("(") {
		p.selectStmt()
		p.expect(")")
		p.expect("AS")
		p.ident()
		return
	}
	p.ident()
	if p.accept("AS") {
		p.ident()
	}
}

func (p *sqlParser) colRef() {
	p.ident()
	if p.accept(".") {
		p.ident()
	}
}

var sqlBinops = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true, "LIKE": true,
	"+": true, "-": true, "*": true, "/": true, "%": true, "||": true, "AND": true, "OR": true}

func (p *sqlParser) expr() {
	p.unary()
	for p.err == nil && sqlBinops[p.peek()] {
		p.pos++
		p.unary()
	}
}

func (p *sqlParser) unary() {
	if p.accept("NOT") || p.accept("-") {
		p.unary()
		return
	}
	p.primary()
	switch {
	case p.accept("IS"):
		p.accept("NOT")
		p.expect("NULL")
	case p.accept("IN"):
		p.expect("(")
		for first := true; first || p.accept(","); first = false {
			p.expr()
		}
		p.expect(")")
	case p.accept("BETWEEN"):
		p.unary()
		p.expect("AND")
		p.unary()
	}
}

func (p *sqlParser) primary() {
	t := p.peek()
	switch {
	case p.err != nil:
	case t == "(":
		p.pos++
		if p.peek() == "SELECT" {
			p.selectStmt()
		} else {
			p.expr()
		}
		p.expect(")")
	case t == "NULL" || t == "TRUE" || t == "FALSE":
		p.pos++
	case t != "" && (t[0] == '\'' || t[0] >= '0' && t[0] <= '9'):
		p.pos++
	case p.pos+1 < len(p.toks) && p.toks[p.pos+1] == "(" && !sqlKeywords[t]:
		p.pos += 2
		if p.accept("*") {
			p.expect(")")
			return
		}
		p.accept("DISTINCT")
		for first := true; first || p.accept(","); first = false {
			p.expr()
		}
		p.expect(")")
	default:
		p.colRef()
	}
}
