// The parser half of a split grammar (wafer's tests).
parser grammar KVParser;

options { tokenVocab = KVLexer; }

file : pair* EOF ;
pair : KEY EQ VALUE SEMI ;
