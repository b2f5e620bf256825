// The isamap language: kernels in tensor notation and hardware descriptions in one grammar.
//
// The grammar is deliberately permissive where a person benefits from a precise message:
// element types, property names and units are plain identifiers here and are checked by
// semantic analysis, which can say "unknown memory property 'sise'; did you mean 'size'?"
// instead of a bare syntax error.
grammar Isam;

// Performance: a file's parse tree has tens of thousands of nodes, and allocating and freeing
// them one by one was a large part of `check`. Rule contexts therefore come from the ParseArena
// of the parse under way on the thread (core/syntax/Parser.cpp), which frees them all at once.
options { contextSuperClass = ArenaRuleContext; }

@parser::postinclude {
#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>
}

@parser::context {
// Memory that lives exactly as long as one parse: handed out in large blocks, freed together.
class ParseArena {
public:
  ParseArena() = default;
  ParseArena(const ParseArena &) = delete;
  ParseArena &operator=(const ParseArena &) = delete;

  void *allocate(std::size_t size) {
    constexpr std::size_t align = alignof(std::max_align_t);
    size = (size + align - 1) & ~(align - 1);
    if (used_ + size > blockSize) {
      blocks_.emplace_back(new std::byte[std::max(size, blockSize)]);
      used_ = 0;
    }
    void *p = blocks_.back().get() + used_;
    used_ += size;
    return p;
  }

private:
  static constexpr std::size_t blockSize = 64 * 1024;
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::size_t used_ = blockSize;
};

// The base of every rule context. Deleting a context runs its destructor; its memory goes back
// with the arena's. Contexts created with no arena set use the heap as usual.
class ArenaRuleContext : public antlr4::ParserRuleContext {
public:
  using antlr4::ParserRuleContext::ParserRuleContext;
  ArenaRuleContext() = default;

  // The arena of the parse under way on this thread, if any; it must outlive the parser.
  static inline thread_local ParseArena *arena = nullptr;

  // Each context is preceded by the arena it came from (null: the heap).
  static void *operator new(std::size_t size) {
    ParseArena *from = arena;
    void *block = from ? from->allocate(header + size) : ::operator new(header + size);
    *static_cast<ParseArena **>(block) = from;
    return static_cast<std::byte *>(block) + header;
  }
  static void operator delete(void *p) {
    void *block = static_cast<std::byte *>(p) - header;
    if (!*static_cast<ParseArena **>(block))
      ::operator delete(block);
  }

private:
  static constexpr std::size_t header = alignof(std::max_align_t);
};
}

file : topItem* EOF ;

topItem
    : importDecl
    | kernelDecl
    | instanceDecl
    | targetDecl
    | systemDecl
    ;

importDecl : IMPORT STRING SEMI ;

// ---- kernels --------------------------------------------------------------------------------

kernelDecl
    : KERNEL name=ID sizeParams? LPAREN inputs=tensorParams? RPAREN ARROW
      LPAREN outputs=tensorParams? RPAREN LBRACE kernelItem* RBRACE
    ;

sizeParams : LT ID (COMMA ID)* GT ;

tensorParams : tensorParam (COMMA tensorParam)* ;

tensorParam : name=ID COLON tensorType ;

tensorType : elem=ID (LBRACK expr (COMMA expr)* RBRACK)? ;

kernelItem
    : localDecl
    | statement
    | scheduleBlock
    ;

localDecl : LOCAL name=ID COLON tensorType SEMI ;

statement : (lhs=access | scalar=ID) op=assignOp rhs=expr whereClause? SEMI ;

assignOp : ASSIGN | PLUS_ASSIGN | STAR_ASSIGN | MAX_ASSIGN | MIN_ASSIGN ;

// `where i in 1..N - 1, j <= i`: ranges for indices, and conditions on them that a point must
// meet to be computed (triangular and banded domains).
whereClause : WHERE whereItem (COMMA whereItem)* ;

whereItem : rangeDecl | guard=expr ;

rangeDecl : ID IN lo=expr DOTDOT hi=expr ;

// Users pin scheduling decisions here; the scheduler completes the rest.
scheduleBlock : SCHEDULE LBRACE scheduleItem* RBRACE ;

// `map fma16;`  `tile L1: n 64, m 6;`  `order L2: n, m, k;`  `parallel: n;`
scheduleItem : key=ID (level=ID)? COLON? scheduleValue (COMMA scheduleValue)* SEMI ;

scheduleValue : ID (NUMBER)? | NUMBER ;

// One expression grammar serves tensor expressions, index expressions and shapes; semantic
// analysis decides which forms are legal where (affine indices, integer shapes).
//
// Comparisons, `!`, `&&` and `||` make conditions, and `c ? a : b` selects by one (C's
// precedence, except that `!` applies to a whole comparison: `!x < y` is `!(x < y)`).
expr
    : op=MINUS expr                                   # negExpr
    | expr op=(STAR | SLASH | PERCENT) expr           # mulExpr
    | expr op=(PLUS | MINUS) expr                     # addExpr
    | expr op=(LT | LE | GT | GE | EQ | NE) expr      # compareExpr
    | op=NOT expr                                     # notExpr
    | expr op=AND expr                                # andExpr
    | expr op=OR expr                                 # orExpr
    | <assoc=right> expr QUESTION expr COLON expr     # selectExpr
    | callee=ID LPAREN (expr (COMMA expr)*)? RPAREN   # callExpr
    | access                                          # accessExpr
    | NUMBER                                          # numberExpr
    | ID                                              # nameExpr
    | LPAREN expr RPAREN                              # parenExpr
    ;

// `X[i - 1] pad 0`: a padded read gives the pad value where an index leaves its dimension. The
// value is a literal (a number or `inf`, either signed), so `X[i] pad 0 * Y[i]` reads as
// `(X[i] pad 0) * Y[i]`.
access : name=ID LBRACK expr (COMMA expr)* RBRACK (PAD padValue)? ;

padValue : MINUS? (NUMBER | ID) ;

instanceDecl : INSTANCE name=ID ASSIGN kernel=ID (LT expr (COMMA expr)* GT)? SEMI ;

// ---- hardware -------------------------------------------------------------------------------

targetDecl : TARGET name=ID LBRACE targetItem* RBRACE ;

targetItem
    : llvmDecl
    | propertyDecl
    | memoryDecl
    | registersDecl
    | unitDecl
    | instrDecl
    ;

llvmDecl : LLVM llvmField+ SEMI ;

llvmField : key=ID value=STRING ;

// `cores 2;`, `clock 3.0 GHz;`, `size 16 GiB;`, `bandwidth 64 B/cycle;`, `per_cycle 1/16;`
propertyDecl : key=ID quantity SEMI ;

quantity : num=NUMBER (SLASH den=NUMBER)? unit? ;

unit : ID (SLASH ID)? ;

memoryDecl : MEMORY name=ID (COLON parent=ID)? LBRACE propertyDecl* RBRACE ;

registersDecl : REGISTERS name=ID COLON parent=ID LBRACE propertyDecl* RBRACE ;

unitDecl : UNIT name=ID LBRACE propertyDecl* RBRACE ;

instrDecl
    : kind=(INSTR | MOVE) name=ID sizeParams? LPAREN operand (COMMA operand)* RPAREN
      (ON unitName=ID)? LBRACE statement* RBRACE costBlock? asmClause? SEMI?
    ;

operand : name=ID COLON role=(IN | OUTPUT | INOUT)? tensorType (IN memory=ID)? ;

costBlock : COST LBRACE propertyDecl* RBRACE ;

asmClause : ASM STRING ;

// ---- systems (several targets sharing memory) ------------------------------------------------

systemDecl : SYSTEM name=ID LBRACE systemItem* RBRACE ;

systemItem
    : HOST ID SEMI                                               # hostItem
    | DEVICE ID SEMI                                             # deviceItem
    | SHARED memRef (COMMA memRef)+ SEMI                         # sharedItem
    | LINK from=memRef ARROW to=memRef LBRACE propertyDecl* RBRACE # linkItem
    ;

memRef : target=ID DOT memory=ID ;

// ---- lexer ------------------------------------------------------------------------------------

IMPORT : 'import' ;
KERNEL : 'kernel' ;
INSTANCE : 'instance' ;
LOCAL : 'local' ;
WHERE : 'where' ;
PAD : 'pad' ;
IN : 'in' ;
SCHEDULE : 'schedule' ;
TARGET : 'target' ;
LLVM : 'llvm' ;
MEMORY : 'memory' ;
REGISTERS : 'registers' ;
UNIT : 'unit' ;
INSTR : 'instr' ;
MOVE : 'move' ;
ON : 'on' ;
OUTPUT : 'out' ;
INOUT : 'inout' ;
COST : 'cost' ;
ASM : 'asm' ;
SYSTEM : 'system' ;
HOST : 'host' ;
DEVICE : 'device' ;
SHARED : 'shared' ;
LINK : 'link' ;

PLUS_ASSIGN : '+=' ;
STAR_ASSIGN : '*=' ;
MAX_ASSIGN : 'max=' ;
MIN_ASSIGN : 'min=' ;
ARROW : '->' ;
DOTDOT : '..' ;
ASSIGN : '=' ;
PLUS : '+' ;
MINUS : '-' ;
STAR : '*' ;
SLASH : '/' ;
PERCENT : '%' ;
LPAREN : '(' ;
RPAREN : ')' ;
LBRACK : '[' ;
RBRACK : ']' ;
LBRACE : '{' ;
RBRACE : '}' ;
LE : '<=' ;
GE : '>=' ;
EQ : '==' ;
NE : '!=' ;
AND : '&&' ;
OR : '||' ;
NOT : '!' ;
QUESTION : '?' ;
LT : '<' ;
GT : '>' ;
COMMA : ',' ;
COLON : ':' ;
SEMI : ';' ;
DOT : '.' ;

// core/syntax/Parser.cpp scans with a hand-written equivalent of the rules from NUMBER on (the
// fixed-text tokens above it takes from the generated vocabulary): change both together. Debug
// builds check on every file that the two agree.

// A fraction part needs a digit after the dot so that `0..N` lexes as 0 .. N.
NUMBER : DIGIT+ ('.' DIGIT+)? ([eE] [+-]? DIGIT+)? ;
ID : [a-zA-Z_] [a-zA-Z_0-9]* ;
STRING : '"' (~["\\\r\n] | '\\' .)* '"' ;

LINE_COMMENT : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
WS : [ \t\r\n\u000C]+ -> skip ;

// Anything else becomes one token the parser rejects, so the lexer never fails.
UNEXPECTED : . ;

fragment DIGIT : [0-9] ;
