// JSON (RFC 8259) for wafer's grammar generator: written for wafer, in the
// notation of published ANTLR 4 grammars. Whitespace is skipped, so the
// generator writes a space between tokens.
grammar JSON;

json
   : value EOF
   ;

value
   : object
   | array
   | STRING
   | NUMBER
   | literal = ('true' | 'false' | 'null')
   ;

object
   : '{' (member (',' member)*)? '}'
   ;

member
   : key = STRING ':' value
   ;

array
   : '[' (value (',' value)*)? ']'
   ;

STRING
   : '"' (ESCAPE | SAFE)* '"'
   ;

fragment ESCAPE
   : '\\' (["\\/bfnrt] | UNICODE)
   ;

fragment UNICODE
   : 'u' HEX HEX HEX HEX
   ;

fragment HEX
   : [0-9a-fA-F]
   ;

fragment SAFE
   : ~ ["\\\u0000-\u001F]
   ;

NUMBER
   : '-'? INT ('.' [0-9]+)? EXP?
   ;

fragment INT
   : '0'
   | [1-9] [0-9]*
   ;

// At most two exponent digits: Go's encoding/json, the parser the
// sentences are checked with, refuses numbers beyond float64's range.
fragment EXP
   : [Ee] [+-]? [0-9] [0-9]?
   ;

WS
   : [ \t\n\r]+ -> skip
   ;
