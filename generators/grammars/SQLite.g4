// SQLite's SELECT with CREATE TABLE, for the csqlite example
// (examples/csqlite): written for wafer. A script creates two tables with
// the same columns a, b, c, fills them with INSERT OR IGNORE (constraint
// conflicts are skipped, not errors) and queries them. The grammar keeps
// the sentences valid for SQLite itself, not only well formed: columns
// are a, b, c and joins are NATURAL or USING (a, b, c), so no name is
// unknown or ambiguous; compound and sub-selects return one column;
// aggregates appear only in result columns and HAVING, never nested;
// ORDER BY and GROUP BY name columns (an integer there would be a
// position); only column a is a PRIMARY KEY, never an INTEGER one.
grammar SQLite;

script
   : create_t1 ';' create_t2 ';' (insert ';')* select_stmt (';' select_stmt)* ';'? EOF
   ;

create_t1
   : 'CREATE' 'TABLE' ('IF' 'NOT' 'EXISTS')? 't1' table_body
   ;

create_t2
   : 'CREATE' 'TABLE' ('IF' 'NOT' 'EXISTS')? 't2' table_body
   ;

table_body
   : '(' column_a ',' 'b' column_def ',' 'c' column_def (',' table_constraint)* ')'
   ;

column_a
   : 'a' key_type? ('PRIMARY' 'KEY' ('ASC' | 'DESC')?)? column_constraint*
   ;

column_def
   : type_name? column_constraint*
   ;

key_type
   : 'TEXT' | 'REAL' | 'NUMERIC' | 'BLOB' | 'VARCHAR' '(' INTEGER ')'
   ;

type_name
   : 'INTEGER' | 'INT' | 'TEXT' | 'REAL' | 'BLOB' | 'NUMERIC' | 'VARCHAR' '(' INTEGER ')' | 'DECIMAL' '(' INTEGER ',' INTEGER ')'
   ;

column_constraint
   : 'NOT' 'NULL'
   | 'UNIQUE'
   | 'DEFAULT' (literal | '-' (NUMBER | INTEGER) | '(' literal ')')
   | 'COLLATE' collation
   ;

table_constraint
   : 'UNIQUE' '(' column (',' column)* ')'
   ;

insert
   : 'INSERT' 'OR' 'IGNORE' 'INTO' table ('VALUES' row (',' row)* | 'SELECT' '*' 'FROM' table where? | 'DEFAULT' 'VALUES')
   ;

row
   : '(' constant ',' constant ',' constant ')'
   ;

constant
   : literal
   | '-' (NUMBER | INTEGER)
   ;

table
   : 't1'
   | 't2'
   ;

select_stmt
   : select_core order_by? limit?
   | select_one (compound_operator select_one)+ ('ORDER' 'BY' '1' direction?)? limit?
   ;

compound_operator
   : 'UNION' 'ALL'?
   | 'INTERSECT'
   | 'EXCEPT'
   ;

select_core
   : 'SELECT' quantifier? result_column (',' result_column)* 'FROM' source where? group_by?
   ;

select_one
   : 'SELECT' quantifier? result_expr 'FROM' source where? group_by?
   ;

sub_select
   : select_one order_by? limit?
   ;

quantifier
   : 'DISTINCT'
   | 'ALL'
   ;

result_column
   : '*'
   | result_expr ('AS' ALIAS)?
   ;

source
   : table
   | 't1' 'NATURAL' ('LEFT' | 'INNER')? 'JOIN' 't2'
   | 't1' 'LEFT'? 'JOIN' 't2' 'USING' '(' 'a' ',' 'b' ',' 'c' ')'
   ;

where
   : 'WHERE' expr
   ;

group_by
   : 'GROUP' 'BY' term (',' term)* ('HAVING' result_expr)?
   ;

order_by
   : 'ORDER' 'BY' term direction? (',' term direction?)*
   ;

direction
   : ('ASC' | 'DESC') ('NULLS' ('FIRST' | 'LAST'))?
   ;

term
   : column
   | 'lower' '(' column ')'
   | column 'COLLATE' collation
   ;

limit
   : 'LIMIT' INTEGER ('OFFSET' INTEGER)?
   ;

result_expr
   : expr
   | aggregate
   | aggregate binary_operator expr
   ;

aggregate
   : 'count' '(' '*' ')'
   | ('count' | 'sum' | 'total' | 'avg' | 'min' | 'max') '(' 'DISTINCT'? expr ')'
   | 'group_concat' '(' expr (',' STRING)? ')'
   ;

expr
   : literal
   | column
   | unary_operator expr
   | expr binary_operator expr
   | '(' expr ')'
   | function
   | expr 'NOT'? 'BETWEEN' operand 'AND' operand
   | expr 'NOT'? 'IN' '(' expr (',' expr)* ')'
   | expr 'NOT'? 'IN' '(' sub_select ')'
   | 'EXISTS' '(' select_stmt ')'
   | '(' sub_select ')'
   | 'CASE' expr? ('WHEN' expr 'THEN' expr)+ ('ELSE' expr)? 'END'
   | 'CAST' '(' expr 'AS' type_name ')'
   | expr 'COLLATE' collation
   | expr ('ISNULL' | 'NOTNULL' | 'NOT' 'NULL' | 'IS' 'NULL')
   ;

// The bounds of BETWEEN bind tighter than AND and OR: "x BETWEEN b OR c
// AND d" would read as (x BETWEEN b) OR c, a syntax error.
operand
   : literal
   | column
   | '(' expr ')'
   | function
   ;

function
   : ('abs' | 'length' | 'lower' | 'upper' | 'typeof' | 'hex' | 'quote' | 'unicode' | 'trim' | 'ltrim' | 'rtrim' | 'likely' | 'unlikely' | 'round' | 'sign' | 'date' | 'julianday') '(' expr ')'
   | ('round' | 'substr' | 'instr' | 'ifnull' | 'nullif' | 'trim' | 'ltrim' | 'rtrim' | 'glob' | 'like') '(' expr ',' expr ')'
   | ('substr' | 'replace' | 'iif') '(' expr ',' expr ',' expr ')'
   | ('coalesce' | 'max' | 'min') '(' expr (',' expr)+ ')'
   | 'char' '(' (expr (',' expr)*)? ')'
   ;

unary_operator
   : '-' | '+' | '~' | 'NOT'
   ;

binary_operator
   : '||' | '*' | '/' | '%' | '+' | '-' | '<<' | '>>' | '&' | '|' | '<' | '<=' | '>' | '>=' | '=' | '==' | '!=' | '<>'
   | 'AND' | 'OR' | 'IS' | 'IS' 'NOT' | 'LIKE' | 'NOT' 'LIKE' | 'GLOB'
   ;

literal
   : NUMBER
   | INTEGER
   | STRING
   | BLOB
   | 'NULL'
   | 'TRUE'
   | 'FALSE'
   ;

column
   : 'a'
   | 'b'
   | 'c'
   ;

collation
   : 'NOCASE' | 'BINARY' | 'RTRIM'
   ;

// An integer reads as INTEGER (listed first, as ANTLR's lexer decides);
// NUMBER is the other numeric literals.
INTEGER
   : DIGIT+
   ;

NUMBER
   : DIGIT+ '.' DIGIT+ EXPONENT?
   | '.' DIGIT+
   | DIGIT+ EXPONENT
   | '0x' HEX (HEX (HEX HEX?)?)?
   ;

STRING
   : '\'' (~['\u0000] | '\'\'')* '\''
   ;

BLOB
   : [xX] '\'' (HEX HEX)* '\''
   ;

ALIAS
   : [xyz] DIGIT?
   ;

fragment EXPONENT
   : [eE] [+-]? DIGIT DIGIT?
   ;

fragment DIGIT
   : [0-9]
   ;

fragment HEX
   : [0-9a-fA-F]
   ;

LINE_COMMENT
   : '--' ~[\r\n]* -> channel(HIDDEN)
   ;

// SQLite's identifiers: no parser rule uses them (names are the literals
// above), but they tell the generator that two keywords or a keyword and
// a name written together read as one identifier, so it separates them.
IDENTIFIER
   : [a-zA-Z_] [a-zA-Z_0-9$]*
   ;

// SQLite reads a number followed by letters or digits as one bad token:
// stated so that the generator separates a number from the next word
// (a valid number matches NUMBER or INTEGER as long, and they win).
NUMBER_WORD
   : (DIGIT | '.' DIGIT) ([a-zA-Z_0-9.$] | [eE] [+-])*
   ;

WS
   : [ \t\r\n]+ -> skip
   ;
