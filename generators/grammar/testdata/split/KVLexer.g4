// The lexer half of a split grammar (parser grammar + tokenVocab), in the
// style of published ones; written for wafer's tests.
lexer grammar KVLexer;

options { caseInsensitive = false; }

import KVCommon;

EQ : '=' ;
SEMI : ';' ;
KEY : [a-z]+ ;
VALUE : DIGITS ;
WS : [ \t\n]+ -> skip ;

mode STRING_MODE;
STR_END : '"' -> popMode ;
