// ANTLR's probe: a grammar of sums, generated to C++ and linked with the C++ runtime.
grammar Probe;
sum : NUMBER ('+' NUMBER)* EOF ;
NUMBER : [0-9]+ ;
WS : [ \t\r\n]+ -> skip ;
