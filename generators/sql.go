package generators

import "strconv"

// SQL types (frame names) and the depth limit of nested expressions and
// subqueries.
var (
	tSQLScript = newType("sql.Script")
	tSQLCreate = newType("sql.Create")
	tSQLInsert = newType("sql.Insert")
	tSQLSelect = newType("sql.Select")
	tSQLColumn = newType("sql.Column")
	tSQLTable  = newType("sql.Table")
	tSQLExpr   = newType("sql.Expr")
	tSQLOrder  = newType("sql.Order")
)

const (
	sqlDepth     = 4
	sqlMaxTables = 3
	sqlMaxCols   = 5
)

var (
	sqlColTypes = [...]string{"", " INTEGER", " TEXT", " REAL", " BLOB"}
	sqlCompare  = [...]string{"=", "<>", "<", "<=", ">", ">=", "LIKE"}
	sqlArith    = [...]string{"+", "-", "*", "/", "%", "||"}
	sqlLogic    = [...]string{"AND", "OR"}
	sqlJoins    = [...]string{"JOIN", "LEFT JOIN", "INNER JOIN", "CROSS JOIN"}
	sqlStrChars = " !\"#$%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~'"
	// one-argument scalar functions; aggregates and the variadic ones apart
	sqlScalar1 = [...]string{"LOWER", "UPPER", "LENGTH", "ABS", "TYPEOF", "HEX", "QUOTE"}
	sqlAgg1    = [...]string{"SUM", "AVG", "MIN", "MAX", "TOTAL", "COUNT"}
)

// SQL generates a SQL script: a schema (one to three CREATE TABLE t0..t2
// with one to five columns c0.. of assorted affinities, each followed by an
// INSERT of zero to three rows of literals) and one SELECT over it:
// DISTINCT, result columns with expressions and aliases, FROM with joins
// and subqueries (every FROM item named a0, a1, ...), WHERE, GROUP BY,
// HAVING, ORDER BY, LIMIT/OFFSET; expressions with literals (strings with
// ” escapes), columns, scalar and aggregate function calls of the right
// arity, arithmetic, comparisons, AND/OR/NOT, IS [NOT] NULL, IN lists,
// BETWEEN and scalar subqueries, nested at most 4 deep. Queries name only
// tables and columns that exist and are in scope (qualified by their FROM
// item's alias), aggregates appear only where SQL allows them (result
// columns, HAVING, ORDER BY, never nested), scalar subqueries return one
// column and ORDER BY never takes a bare integer, so SQLite accepts nearly
// every script.
//
// Structural draws make the decisions that select what is drawn next
// (alternatives, counts, which table or FROM item, whether an optional part
// is present); value draws fill leaves (literals, operators, column
// indexes, function names, aliases' numbers).
func SQL(s *Source) []byte {
	s.enterT(tSQLScript)
	defer s.Leave()
	b := make([]byte, 0, 256)
	var tables []int // column counts
	nt := s.beginList(1, sqlMaxTables)
	for i := range nt {
		s.elem()
		b, tables = sqlCreate(s, b, i, tables)
		s.Leave()
	}
	s.endList()
	b = sqlSelect(s, b, tables, 0, new(int))
	return append(b, ';')
}

// sqlCreate appends table i's CREATE TABLE and INSERT.
func sqlCreate(s *Source, b []byte, i int, tables []int) ([]byte, []int) {
	s.enterT(tSQLCreate)
	b = append(b, "CREATE TABLE t"...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, '(')
	nc := s.Len(1, sqlMaxCols)
	for c := range nc {
		if c > 0 {
			b = append(b, ", "...)
		}
		b = append(b, 'c')
		b = strconv.AppendInt(b, int64(c), 10)
		b = append(b, sqlColTypes[s.Int(0, len(sqlColTypes)-1)]...)
	}
	b = append(b, ");"...)
	s.Leave()
	s.enterT(tSQLInsert)
	rows := s.beginList(0, 3)
	for r := range rows {
		s.elem()
		if r == 0 {
			b = append(b, "INSERT INTO t"...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, " VALUES "...)
		} else {
			b = append(b, ", "...)
		}
		b = append(b, '(')
		for c := range nc {
			if c > 0 {
				b = append(b, ", "...)
			}
			b = sqlLiteral(s, b)
		}
		b = append(b, ')')
		s.Leave()
	}
	s.endList()
	if rows > 0 {
		b = append(b, ';')
	}
	s.Leave()
	return b, append(tables, nc)
}

// sqlScope is the FROM items a query's expressions may name: item k is
// "a<k>" with cols[k] columns c0...
type sqlScope struct {
	alias []int
	cols  []int
}

// sqlCtx is where an expression stands.
type sqlCtx struct {
	scope *sqlScope
	// agg: an aggregate may appear here (result columns, HAVING, ORDER
	// BY, outside any aggregate's argument)
	agg bool
	// next is the query's alias counter (aliases are unique per script)
	next *int
}

// sqlSelect appends a SELECT over the schema tables with ncols result
// columns when ncols > 0 (a FROM subquery: "AS c<i>" each, no *; a scalar
// subquery: 1), or a drawn count when ncols == 0. The FROM clause is drawn
// first: it decides what the rest may name.
func sqlSelect(s *Source, b []byte, tables []int, ncols int, next *int) []byte {
	deep := s.depthT(tSQLSelect) >= 2
	s.enterT(tSQLSelect)
	defer s.Leave()
	sc := &sqlScope{}
	var from []byte
	if s.Decide(0.9) {
		from = append(from, " FROM "...)
		from = sqlTable(s, from, tables, sc, next, deep)
		Repeat(s, 0, 2, func(s *Source, _ int) {
			from = append(from, ' ')
			j := s.Pick(len(sqlJoins))
			from = append(from, sqlJoins[j]...)
			from = append(from, ' ')
			from = sqlTable(s, from, tables, sc, next, true)
			if j != 3 {
				from = append(from, " ON "...)
				from = sqlExpr(s, from, tables, sqlCtx{scope: sc, next: next})
			}
		})
	}
	b = append(b, "SELECT "...)
	if s.Bool() {
		b = append(b, "DISTINCT "...)
	}
	all := sqlCtx{scope: sc, agg: true, next: next}
	n := ncols
	if n == 0 {
		n = s.beginList(1, 5)
	} else {
		s.enter(lblList, "")
	}
	for i := range n {
		s.enterT(tSQLColumn)
		if i > 0 {
			b = append(b, ", "...)
		}
		if ncols == 0 && len(sc.alias) > 0 && s.Decide(0.15) {
			b = append(b, '*')
		} else {
			b = sqlExpr(s, b, tables, all)
			if ncols > 0 {
				b = append(b, " AS c"...)
				b = strconv.AppendInt(b, int64(i), 10)
			} else if s.Decide(0.3) {
				b = append(b, " AS r"...)
				b = strconv.AppendInt(b, int64(s.Int(0, 99)), 10)
			}
		}
		s.Leave()
	}
	s.endList()
	b = append(b, from...)
	if len(sc.alias) == 0 {
		return b
	}
	where := sqlCtx{scope: sc, next: next}
	if s.Decide(0.5) {
		b = append(b, " WHERE "...)
		b = sqlExpr(s, b, tables, where)
	}
	if s.Decide(0.25) {
		b = append(b, " GROUP BY "...)
		Repeat(s, 1, 3, func(s *Source, i int) {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = sqlColumn(s, b, sc)
		})
		if s.Decide(0.4) {
			b = append(b, " HAVING "...)
			b = sqlExpr(s, b, tables, all)
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
			if s.Decide(0.3) {
				// a result column by position, in range
				b = strconv.AppendInt(b, int64(1+s.Int(0, n-1)), 10)
			} else {
				b = sqlColumn(s, b, sc)
			}
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

// sqlTable appends a FROM item, a schema table or a parenthesised
// subquery, named by the next alias, and adds it to the scope.
func sqlTable(s *Source, b []byte, tables []int, sc *sqlScope, next *int, noSub bool) []byte {
	s.enterT(tSQLTable)
	defer s.Leave()
	var cols int
	if !noSub && s.Decide(0.15) {
		cols = s.Len(1, 3)
		b = append(b, '(')
		b = sqlSelect(s, b, tables, cols, next)
		b = append(b, ')')
	} else {
		t := s.Pick(len(tables))
		cols = tables[t]
		b = append(b, 't')
		b = strconv.AppendInt(b, int64(t), 10)
	}
	a := *next
	*next++
	b = append(b, " AS a"...)
	b = strconv.AppendInt(b, int64(a), 10)
	sc.alias = append(sc.alias, a)
	sc.cols = append(sc.cols, cols)
	return b
}

// sqlColumn appends a column of the scope (which must not be empty),
// qualified by its item's alias.
func sqlColumn(s *Source, b []byte, sc *sqlScope) []byte {
	k := s.Pick(len(sc.alias))
	b = append(b, 'a')
	b = strconv.AppendInt(b, int64(sc.alias[k]), 10)
	b = append(b, ".c"...)
	return strconv.AppendInt(b, int64(s.Int(0, sc.cols[k]-1)), 10)
}

// sqlLiteral appends a number, a string, NULL, TRUE or FALSE.
func sqlLiteral(s *Source, b []byte) []byte {
	switch s.Pick(6) {
	case 0, 1:
		return strconv.AppendInt(b, s.Int64(0, 1<<31), 10)
	case 2:
		b = strconv.AppendInt(b, s.Int64(0, 9999), 10)
		b = append(b, '.')
		return strconv.AppendInt(b, s.Int64(0, 9999), 10)
	case 3:
		var sb [32]byte
		b = append(b, '\'')
		for _, c := range s.appendString(sb[:0], sqlStrChars, 0, 16) {
			if c == '\'' {
				b = append(b, '\'')
			}
			b = append(b, c)
		}
		return append(b, '\'')
	case 4:
		return append(b, "NULL"...)
	default:
		return append(b, [...]string{"TRUE", "FALSE"}[s.Int(0, 1)]...)
	}
}

func sqlExpr(s *Source, b []byte, tables []int, c sqlCtx) []byte {
	deep := s.depthT(tSQLExpr) >= sqlDepth
	s.enterT(tSQLExpr)
	defer s.Leave()
	//             lit col f1 agg var bin un  is  in  btw sub
	w := [...]int{5, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if len(c.scope.alias) == 0 {
		w[1] = 0
	}
	if !deep {
		copy(w[2:], []int{1, 1, 1, 3, 1, 1, 1, 1, 1})
		if !c.agg {
			w[3] = 0
		}
		if s.depthT(tSQLSelect) >= 2 {
			w[10] = 0 // no subquery below two nested SELECTs
		}
	}
	switch s.Weighted(w[:]...) {
	case 0:
		return sqlLiteral(s, b)
	case 1:
		return sqlColumn(s, b, c.scope)
	case 2: // one-argument scalar function
		b = append(b, sqlScalar1[s.Int(0, len(sqlScalar1)-1)]...)
		b = append(b, '(')
		b = sqlExpr(s, b, tables, c)
		return append(b, ')')
	case 3: // aggregate: its argument holds none
		inner := c
		inner.agg = false
		f := sqlAgg1[s.Pick(len(sqlAgg1))] // structural: COUNT may take *
		b = append(b, f...)
		if f == "COUNT" && s.Decide(0.3) {
			return append(b, "(*)"...)
		}
		b = append(b, '(')
		if s.Decide(0.2) {
			b = append(b, "DISTINCT "...)
		}
		b = sqlExpr(s, b, tables, inner)
		return append(b, ')')
	case 4: // variadic scalar: COALESCE, MIN, MAX with 2-3 arguments
		f := s.Pick(4) // structural: IFNULL takes two
		b = append(b, [...]string{"COALESCE", "MIN", "MAX", "IFNULL"}[f]...)
		b = append(b, '(')
		na := s.beginList(2, 3)
		if f == 3 {
			na = 2 // IFNULL takes exactly two
		}
		for i := range na {
			s.elem()
			if i > 0 {
				b = append(b, ", "...)
			}
			b = sqlExpr(s, b, tables, c)
			s.Leave()
		}
		s.endList()
		return append(b, ')')
	case 5: // binary
		b = append(b, '(')
		b = sqlExpr(s, b, tables, c)
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
		b = sqlExpr(s, b, tables, c)
		return append(b, ')')
	case 6: // NOT / unary minus
		b = append(b, [...]string{"NOT ", "-"}[s.Int(0, 1)]...)
		b = append(b, '(')
		b = sqlExpr(s, b, tables, c)
		return append(b, ')')
	case 7: // IS [NOT] NULL
		b = append(b, '(')
		b = sqlExpr(s, b, tables, c)
		b = append(b, [...]string{" IS NULL", " IS NOT NULL"}[s.Int(0, 1)]...)
		return append(b, ')')
	case 8: // IN list
		b = append(b, '(')
		b = sqlExpr(s, b, tables, c)
		b = append(b, " IN ("...)
		ni := s.beginList(1, 4)
		for i := range ni {
			s.elem()
			if i > 0 {
				b = append(b, ", "...)
			}
			b = sqlExpr(s, b, tables, c)
			s.Leave()
		}
		s.endList()
		return append(b, "))"...)
	case 9: // BETWEEN
		b = append(b, '(')
		b = sqlExpr(s, b, tables, c)
		b = append(b, " BETWEEN "...)
		b = sqlExpr(s, b, tables, c)
		b = append(b, " AND "...)
		b = sqlExpr(s, b, tables, c)
		return append(b, ')')
	default: // scalar subquery: one column, its own scope
		b = append(b, '(')
		b = sqlSelect(s, b, tables, 1, c.next)
		return append(b, ')')
	}
}
