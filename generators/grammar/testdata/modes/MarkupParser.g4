// The parser of MarkupLexer.g4 (wafer's tests).
parser grammar MarkupParser;

options { tokenVocab = MarkupLexer; }

tokens { STRING, PROC }

document  : PROC? element EOF ;
element   : OPEN NAME attribute* (CLOSE content OPEN_END NAME CLOSE | SLASH_CLOSE) ;
attribute : NAME EQ STRING ;
content   : TEXT? ((element | ENTITY | CDATA | PROC) TEXT?)* ;
