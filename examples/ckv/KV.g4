// The script language of ckv.c, for wafer fuzz --grammar.
grammar KV;

script : stmt* EOF ;

stmt
    : 'set' NAME '=' value ';'
    | 'get' NAME ';'
    | 'incr' NAME ';'
    | 'del' NAME ';'
    | 'undo' ';'
    | 'dump' ';'
    ;

value : INT | NAME ;

NAME : [a-z] [a-z0-9_]* ;
INT  : '-'? [0-9]+ ;
WS   : [ \t\r\n]+ -> skip ;
