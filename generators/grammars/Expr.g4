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
   | '(' expr ('/' | '%') POSITIVE ')'
   | '(' expr ('<<' | '>>') SHIFT ')'
   | unop expr
   | expr '(' (expr (',' expr)*)? ')'
   | expr '[' expr ']'
   | '(' expr ')'
   | NUMBER
   | STRING
   | NAME
   ;

binop
   : '||' | '&&' | '|' | '^' | '&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*'
   ;

unop
   : '-' | '+' | '!' | '^'
   ;

POSITIVE
   : [1-9] DIGIT*
   ;

SHIFT
   : DIGIT
   | [1-5] DIGIT
   | '6' [0-3]
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
