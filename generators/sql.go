package generators

import "strconv"

// SQL types (frame names) and the depth limit of nested expressions and
// subqueries.
var (
	tSQLSelect = newType("sql.Select")
	tSQLColumn = newType("sql.Column")
	tSQLTable  = newType("sql.Table")
	tSQLExpr   = newType("sql.Expr")
	tSQLOrder  = newType("sql.Order")
)

const sqlDepth = 4

var (
	sqlTables   = [...]string{"users", "orders", "items", "t", "a", "b", "log"}
	sqlColumns  = [...]string{"id", "name", "price", "qty", "created", "x", "y", "status"}
	sqlFuncs    = [...]string{"COUNT", "SUM", "MIN", "MAX", "AVG", "LOWER", "UPPER", "LENGTH", "COALESCE", "ABS"}
	sqlCompare  = [...]string{"=", "<>", "<", "<=", ">", ">=", "LIKE"}
	sqlArith    = [...]string{"+", "-", "*", "/", "%", "||"}
	sqlLogic    = [...]string{"AND", "OR"}
	sqlJoins    = [...]string{"JOIN", "LEFT JOIN", "INNER JOIN", "CROSS JOIN"}
	sqlStrChars = " !\"#$%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~'"
)

// SQL generates a SQL SELECT statement: DISTINCT, column lists with
// expressions and aliases, FROM with joins and subqueries, WHERE, GROUP BY,
// HAVING, ORDER BY, LIMIT/OFFSET; expressions with literals (strings with ”
// escapes), qualified columns, function calls, arithmetic, comparisons,
// AND/OR/NOT, IS [NOT] NULL, IN lists, BETWEEN and scalar subqueries,
// nested at most 4 deep.
func SQL(s *Source) []byte { return sqlSelect(s, make([]byte, 0, 96)) }

func sqlSelect(s *Source, b []byte) []byte {
	deep := s.depthT(tSQLSelect) >= 2
	s.enterT(tSQLSelect)
	defer s.Leave()
	b = append(b, "SELECT "...)
	if s.Bool() {
		b = append(b, "DISTINCT "...)
	}
	n := s.beginList(1, 5)
	for i := range n {
		s.enterT(tSQLColumn)
		if i > 0 {
			b = append(b, ", "...)
		}
		if s.Decide(0.15) {
			b = append(b, '*')
		} else {
			b = sqlExpr(s, b)
			if s.Decide(0.3) {
				b = append(b, " AS c"...)
				b = strconv.AppendInt(b, int64(s.Int(0, 99)), 10)
			}
		}
		s.Leave()
	}
	s.endList()
	if !s.Decide(0.9) {
		return b
	}
	b = append(b, " FROM "...)
	b = sqlTable(s, b, deep)
	Repeat(s, 0, 2, func(s *Source, _ int) {
		b = append(b, ' ')
		j := s.Pick(len(sqlJoins))
		b = append(b, sqlJoins[j]...)
		b = append(b, ' ')
		b = sqlTable(s, b, true)
		if j != 3 {
			b = append(b, " ON "...)
			b = sqlExpr(s, b)
		}
	})
	if s.Decide(0.5) {
		b = append(b, " WHERE "...)
		b = sqlExpr(s, b)
	}
	if s.Decide(0.25) {
		b = append(b, " GROUP BY "...)
		Repeat(s, 1, 3, func(s *Source, i int) {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = sqlColumn(s, b)
		})
		if s.Decide(0.4) {
			b = append(b, " HAVING "...)
			b = sqlExpr(s, b)
		}
	}
	if s.Decide(0.3) {
		b = append(b, " ORDER BY "...)
		no := s.beginList(1, 3)
		for i := range no {
			s.enterT(tSQLOrder)
			if i > 0 {
				b = append(b, ", "...)
			}
			b = sqlExpr(s, b)
			b = append(b, [...]string{"", " ASC", " DESC"}[s.Int(0, 2)]...)
			s.Leave()
		}
		s.endList()
	}
	if s.Decide(0.3) {
		b = append(b, " LIMIT "...)
		b = strconv.AppendInt(b, int64(s.Int(0, 1000)), 10)
		if s.Decide(0.3) {
			b = append(b, " OFFSET "...)
			b = strconv.AppendInt(b, int64(s.Int(0, 1000)), 10)
		}
	}
	return b
}

// sqlTable appends a table name or a parenthesised subquery, with an
// optional alias.
func sqlTable(s *Source, b []byte, noSub bool) []byte {
	s.enterT(tSQLTable)
	defer s.Leave()
	if !noSub && s.Decide(0.15) {
		b = append(b, '(')
		b = sqlSelect(s, b)
		b = append(b, ") AS s"...)
		return strconv.AppendInt(b, int64(s.Int(0, 9)), 10)
	}
	b = append(b, sqlTables[s.Int(0, len(sqlTables)-1)]...)
	if s.Bool() {
		b = append(b, " AS t"...)
		b = strconv.AppendInt(b, int64(s.Int(0, 9)), 10)
	}
	return b
}

func sqlColumn(s *Source, b []byte) []byte {
	if s.Bool() {
		b = append(b, sqlTables[s.Int(0, len(sqlTables)-1)]...)
		b = append(b, '.')
	}
	return append(b, sqlColumns[s.Int(0, len(sqlColumns)-1)]...)
}

func sqlExpr(s *Source, b []byte) []byte {
	deep := s.depthT(tSQLExpr) >= sqlDepth
	s.enterT(tSQLExpr)
	defer s.Leave()
	w := [...]int{3, 2, 4, 0, 0, 0, 0, 0, 0, 0}
	if !deep {
		copy(w[3:], []int{2, 3, 2, 1, 1, 1, 1})
		if s.depthT(tSQLSelect) >= 2 {
			w[9] = 0 // no subquery below two nested SELECTs
		}
	}
	switch s.Weighted(w[:]...) {
	case 0: // number
		if s.Pick(2) == 0 {
			return strconv.AppendInt(b, s.Int64(0, 1<<31), 10)
		}
		b = strconv.AppendInt(b, s.Int64(0, 9999), 10)
		b = append(b, '.')
		return strconv.AppendInt(b, s.Int64(0, 9999), 10)
	case 1: // string, NULL, TRUE, FALSE
		switch s.Pick(4) {
		case 0:
			var sb [32]byte
			b = append(b, '\'')
			for _, c := range s.appendString(sb[:0], sqlStrChars, 0, 16) {
				if c == '\'' {
					b = append(b, '\'')
				}
				b = append(b, c)
			}
			return append(b, '\'')
		case 1:
			return append(b, "NULL"...)
		case 2:
			return append(b, "TRUE"...)
		default:
			return append(b, "FALSE"...)
		}
	case 2:
		return sqlColumn(s, b)
	case 3: // function call
		b = append(b, sqlFuncs[s.Int(0, len(sqlFuncs)-1)]...)
		b = append(b, '(')
		na := s.beginList(1, 3)
		for i := range na {
			s.elem()
			if i > 0 {
				b = append(b, ", "...)
			}
			b = sqlExpr(s, b)
			s.Leave()
		}
		s.endList()
		return append(b, ')')
	case 4: // binary
		b = append(b, '(')
		b = sqlExpr(s, b)
		b = append(b, ' ')
		switch s.Pick(3) {
		case 0:
			b = append(b, sqlCompare[s.Int(0, len(sqlCompare)-1)]...)
		case 1:
			b = append(b, sqlArith[s.Int(0, len(sqlArith)-1)]...)
		default:
			b = append(b, sqlLogic[s.Int(0, len(sqlLogic)-1)]...)
		}
		b = append(b, ' ')
		b = sqlExpr(s, b)
		return append(b, ')')
	case 5: // NOT / unary minus
		b = append(b, [...]string{"NOT ", "-"}[s.Int(0, 1)]...)
		b = append(b, '(')
		b = sqlExpr(s, b)
		return append(b, ')')
	case 6: // IS [NOT] NULL
		b = append(b, '(')
		b = sqlExpr(s, b)
		b = append(b, [...]string{" IS NULL", " IS NOT NULL"}[s.Int(0, 1)]...)
		return append(b, ')')
	case 7: // IN list
		b = append(b, '(')
		b = sqlExpr(s, b)
		b = append(b, " IN ("...)
		ni := s.beginList(1, 4)
		for i := range ni {
			s.elem()
			if i > 0 {
				b = append(b, ", "...)
			}
			b = sqlExpr(s, b)
			s.Leave()
		}
		s.endList()
		return append(b, "))"...)
	case 8: // BETWEEN
		b = append(b, '(')
		b = sqlExpr(s, b)
		b = append(b, " BETWEEN "...)
		b = sqlExpr(s, b)
		b = append(b, " AND "...)
		b = sqlExpr(s, b)
		return append(b, ')')
	default: // scalar subquery
		b = append(b, '(')
		b = sqlSelect(s, b)
		return append(b, ')')
	}
}
