// Imported by KVLexer.g4 (wafer's tests).
lexer grammar KVCommon;

fragment DIGITS : [0-9]+ ;
KEY : 'never-used-the-importer-wins' ;
