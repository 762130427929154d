// A markup lexer in the style of published ones (XML, HTML), written for
// wafer's tests: modes pushed and popped by tags, attribute values in a
// mode of their own, a processing instruction built from more pieces
// across a mode, comments on a hidden channel, CDATA islands and text.
lexer grammar MarkupLexer;

channels { COMMENTS }

COMMENT      : '<!--' .*? '-->' -> channel(COMMENTS) ;
CDATA        : '<![CDATA[' .*? ']]>' ;
ENTITY       : '&' [a-z]+ ';' ;
OPEN_END     : '</' -> pushMode(TAG) ;
OPEN         : '<' -> pushMode(TAG) ;
PI_START     : '<?' [a-z]+ -> more, pushMode(PI) ;
TEXT         : ~[<&]+ ;

mode TAG;
CLOSE        : '>' -> popMode ;
SLASH_CLOSE  : '/>' -> popMode ;
EQ           : '=' -> pushMode(VALUE) ;
NAME         : [a-zA-Z_] [a-zA-Z0-9_.-]* ;
TAG_WS       : [ \t\r\n]+ -> skip ;

mode VALUE;
DQ_STRING    : '"' ~[<"]* '"' -> type(STRING), popMode ;
SQ_STRING    : '\'' ~[<']* '\'' -> type(STRING), popMode ;
BARE         : [a-z0-9]+ -> type(STRING), popMode ;
VALUE_WS     : ' '+ -> skip ;

mode PI;
PI_END       : '?>' -> type(PROC), popMode ;
PI_CHAR      : . -> more ;
