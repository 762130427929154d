// Statements of expressions whose rules derive the same text wherever
// they stand, within limits no sentence reaches: the tree-mutation tests'
// grammar (generators/grammar's TestSpliceText, engine's treeGrammar).
grammar T;
prog : item+ EOF ;
item : 'let' NAME '=' e ';' | 'print' e (',' e)* ';' ;
e    : NUM | NAME | '(' e op e ')' | '-' e ;
op   : '+' | '-' | '*' ;
NAME : [a-z]+ ;
NUM  : [0-9]+ ;
WS   : [ \t]+ -> skip ;
