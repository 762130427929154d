package grammar

// maxMatchSteps bounds the backtracking of one match.
const maxMatchSteps = 20000

// matches reports whether lexer rule r derives exactly text. It
// backtracks, within maxMatchSteps steps (false past them).
func matches(r *rule, text []rune) bool {
	m := &matcher{text: text}
	return m.match(r.body, 0, func(i int) bool { return i == len(text) })
}

type matcher struct {
	text  []rune
	steps int
}

func (m *matcher) match(n *node, i int, k func(int) bool) bool {
	m.steps++
	if m.steps > maxMatchSteps {
		return false
	}
	switch n.kind {
	case nSeq:
		return m.seq(n.kids, i, k)
	case nAlt:
		for _, a := range n.kids {
			if m.match(a, i, k) {
				return true
			}
		}
		return false
	case nRep:
		return m.rep(n, 0, i, k)
	case nRef:
		return m.match(n.rule.body, i, k)
	case nLit:
		j := i
		for _, c := range n.text {
			if j >= len(m.text) || m.text[j] != c {
				return false
			}
			j++
		}
		return k(j)
	case nSet:
		return i < len(m.text) && n.set.contains(m.text[i]) && k(i+1)
	case nEOF:
		return k(i)
	}
	return false
}

func (m *matcher) seq(kids []*node, i int, k func(int) bool) bool {
	if len(kids) == 0 {
		return k(i)
	}
	return m.match(kids[0], i, func(j int) bool { return m.seq(kids[1:], j, k) })
}

// rep matches n.kids[0] repeated, having matched count already.
func (m *matcher) rep(n *node, count, i int, k func(int) bool) bool {
	if n.max < 0 || count < n.max {
		more := m.match(n.kids[0], i, func(j int) bool {
			return j > i && m.rep(n, count+1, j, k) // progress, or stop
		})
		if more {
			return true
		}
	}
	return count >= n.min && k(i)
}
