// An INI dialect for the rustini example (examples/rustini): written for
// wafer. [section] headers, key = value pairs and ; or # comments, one a
// line; a value is an integer, a boolean, a ratio n/d or a list a, b, c.
// Denominators are positive (rustini rejects a zero one, and under
// [scale] divides by it: the planted bug a fuzzer should find, not a
// grammar). Spaces and tabs are skipped; newlines end lines.
grammar INI;

ini
   : line* EOF
   ;

line
   : (SECTION | pair | COMMENT)? NEWLINE
   ;

pair
   : KEY '=' value
   ;

value
   : integer
   | BOOL
   | integer '/' POSITIVE
   | word (',' word)+
   ;

integer
   : INT
   | POSITIVE
   ;

// A list element is any word; one spelled like a key reads as KEY.
word
   : KEY
   | WORD
   ;

SECTION
   : '[' ('scale' | [a-zA-Z0-9.]+) ']'
   ;

BOOL
   : 'true' | 'yes' | 'on' | 'false' | 'no' | 'off'
   ;

// POSITIVE is listed first: an integer without sign or leading zero
// reads as POSITIVE (the first rule wins a tie), the others as INT.
POSITIVE
   : [1-9] (DIGIT (DIGIT (DIGIT (DIGIT (DIGIT (DIGIT (DIGIT DIGIT?)?)?)?)?)?)?)?
   ;

// At most 9 digits: every integer fits rustini's i64, dictionary entries
// included (a longer run of digits does not match the rule).
INT
   : '-'? DIGIT (DIGIT (DIGIT (DIGIT (DIGIT (DIGIT (DIGIT (DIGIT DIGIT?)?)?)?)?)?)?)?
   ;

KEY
   : [a-zA-Z_] [a-zA-Z0-9_.\-]*
   ;

// A word that is not a key: it starts with a digit or a dot.
WORD
   : [0-9.] [a-zA-Z0-9_.]*
   ;

COMMENT
   : [;#] ~[\r\n]*
   ;

NEWLINE
   : '\r'? '\n'
   ;

fragment DIGIT
   : [0-9]
   ;

WS
   : [ \t]+ -> skip
   ;
