// Integer expressions for the cexpr example (examples/cexpr): written for
// wafer. C precedence is the evaluator's business; the grammar only has to
// produce what its parser accepts. Division, remainder and shifts take
// literal right operands the evaluator never rejects (a non-zero divisor,
// a shift below 64), inside parentheses so that no operator of lower
// precedence or postfix call takes the literal as its operand: the
// sentences are valid, not only well formed. A dotted name is one token
// (cexpr allows no space around its dots).
grammar Expr;

start
   : expr EOF
   ;

expr
   : expr binop expr
   | '(' expr ('/' | '%') (SMALL | POSITIVE) ')'
   | '(' expr ('<<' | '>>') (ZERO | SMALL) ')'
   | unop expr
   | expr '(' (expr (',' expr)*)? ')'
   | expr '[' expr ']'
   | '(' expr ')'
   | number
   | STRING
   | NAME
   ;

number
   : ZERO
   | SMALL
   | POSITIVE
   | NUMBER
   ;

binop
   : '||' | '&&' | '|' | '^' | '&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*'
   ;

unop
   : '-' | '+' | '!' | '^'
   ;

// Integers are split by value, as a lexer must (the first rule listed
// wins a tie): ZERO, SMALL (1-63, a valid shift), POSITIVE (the others
// without a leading zero); NUMBER is the rest (decimals, leading zeros).
ZERO
   : '0'
   ;

SMALL
   : [1-9]
   | [1-5] DIGIT
   | '6' [0-3]
   ;

POSITIVE
   : [1-9] DIGIT*
   ;

NUMBER
   : DIGIT+ ('.' DIGIT+)?
   ;

STRING
   : '"' (~["\\\n\u0080-\u{10FFFF}] | '\\' [nt"\\])* '"'
   ;

NAME
   : IDENT ('.' IDENT)*
   ;

fragment IDENT
   : [a-zA-Z_] [a-zA-Z_0-9]*
   ;

fragment DIGIT
   : [0-9]
   ;

WS
   : [ \t\r\n]+ -> skip
   ;
