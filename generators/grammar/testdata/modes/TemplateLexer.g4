// A template lexer with islands, written for wafer's tests: text with
// {{ expression }} islands and {# comments #}; inside an island,
// identifiers, numbers, operators and strings whose text is built with
// more across a string mode (escapes included); mode() switches rather
// than pushes; a rule whose alternatives carry different commands; a
// line comment on the hidden channel inside islands.
lexer grammar TemplateLexer;

// Text never ends with {, which would join the {{ or {# after it.
TEXT        : (~[{] | '{' ~[{#])+ ;
EXPR_OPEN   : '{{' -> pushMode(EXPR) ;
NOTE        : '{#' .*? '#}' -> skip ;

mode EXPR;
EXPR_CLOSE  : '}}' -> popMode ;
ID          : [a-z_] [a-z_0-9]* ;
INT         : [0-9]+ ;
OP          : '+' | '-' | '*' | '/' | '==' | '<' | '<=' | '.' ;
LPAR        : '(' ;
RPAR        : ')' ;
STR_OPEN    : '"' -> more, mode(STR) ;
LINE        : '//' ~[\n}]* '\n' -> channel(HIDDEN) ;
WS          : ' ' -> skip | '\t' -> channel(HIDDEN) ;

mode STR;
STR_ESC     : '\\' ["\\n] -> more ;
STR_CHAR    : ~["\\\n] -> more ;
STR_CLOSE   : '"' -> type(STRING), mode(EXPR) ;
