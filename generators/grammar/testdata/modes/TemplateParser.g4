// The parser of TemplateLexer.g4 (wafer's tests).
parser grammar TemplateParser;

options { tokenVocab = TemplateLexer; }

tokens { STRING }

// Two texts in a row would read as one: an island comes between.
template : TEXT? (island TEXT?)* EOF ;
island   : EXPR_OPEN expr EXPR_CLOSE ;
expr     : expr OP expr | atom ;
atom     : ID | INT | STRING | ID LPAR (expr)? RPAR | LPAR expr RPAR ;
