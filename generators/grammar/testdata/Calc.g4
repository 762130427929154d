/* Arithmetic in the style of published ANTLR 4 grammars, written for
   wafer's tests: it uses their notation (options, tokens, named actions,
   labels, # alternative labels, <assoc=right>, predicates and actions,
   '0'..'9' ranges, fragments, lexer commands, a non-greedy comment,
   Unicode escapes). Its sentences are Go expression lists: identifiers
   start with an upper-case letter (no Go keyword does), numbers have no
   leading zero (Go would read an octal literal). */
grammar Calc;

options {
   language = Go;
   superClass = CalcBase;
}

tokens { PLACEHOLDER }

channels { COMMENTS }

@header {
import "strings" // a { brace } and a "}" in a string
}

@parser::members {
   func (p *CalcParser) ok() bool { return true }
}

prog
   : stat (',' stat)* EOF
   ;

stat
   : left = expr (op += ('==' | '!=' | '<') right = expr)? {p.ok()}?
   ;

expr
   : <assoc = right> expr '**' expr       # Pow
   | lhs = expr op = ('*' | '/' | '%') rhs = expr  # Mul
   | expr ('+' | '-') expr               # Add
   | '-' expr                            # Neg
   | '(' expr ')'                        # Paren
   | call                                # Call_
   | atom                                # Atom_
   ;

call
   : ID '(' (args += expr (',' args += expr)*)? ')' {/* an action */}
   ;

atom
   : NUMBER
   | ID
   | STRING
   ;

ID
   : ('A' .. 'Z' | '_') (LETTER | DIGIT)*
   ;

NUMBER
   : ('0' | [1-9] DIGIT*) ('.' DIGIT+)? ([eE] [+\-]? DIGIT+)?
   | '0' [xX] HEX+
   ;

STRING
   : '"' (ESC | ~ ["\\\r\n\u0000\u0080-\u{10FFFF}])* '"'
   ;

fragment ESC
   : '\\' [nt"\\]
   ;

fragment LETTER
   : 'a' .. 'z'
   | 'A' .. 'Z'
   | '_'
   ;

fragment DIGIT
   : '0' .. '9'
   ;

fragment HEX
   : [0-9a-fA-F]
   ;

// Go operators that two of Calc's tokens would spell when joined ("- -",
// "< -"): no parser rule uses them, and the generator's lexer then keeps
// those tokens apart as go/parser needs.
DEC
   : '--'
   ;

ARROW
   : '<-'
   ;

COMMENT
   : '/*' .*? '*/' -> channel (COMMENTS)
   ;

LINE_COMMENT
   : '//' ~ [\r\n]* -> skip
   ;

WS
   : [ \t\r\n\u000C]+ -> skip
   ;
