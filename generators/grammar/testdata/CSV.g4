// Comma-separated values in the style of published ANTLR 4 grammars:
// written for wafer's tests. An empty alternative, an optional '\r', a
// negated set and a quoted field with a doubled-quote escape.
grammar CSV;

file
   : header row+ EOF
   ;

header
   : row
   ;

row
   : field (',' field)* '\r'? '\n'
   ;

field
   : TEXT    # text
   | STRING  # quoted
   |         # empty
   ;

TEXT
   : ~ [,\n\r"]+
   ;

STRING
   : '"' ('""' | ~ '"')* '"'
   ;
