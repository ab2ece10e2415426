package chunk

// Keywords removed from References, per language. Besides the reserved
// words they hold the keyword-like literals and receivers (true, false,
// nil/null/None, self/this/super) that every unit would otherwise list.

var goKeywords = set(
	"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface",
	"map", "package", "range", "return", "select", "struct", "switch", "type",
	"var", "true", "false", "nil",
)

var pyKeywords = set(
	"False", "None", "True", "and", "as", "assert", "async", "await", "break",
	"class", "continue", "def", "del", "elif", "else", "except", "finally",
	"for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
	"not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
	"self", "cls",
)

var rustKeywords = set(
	"as", "async", "await", "break", "const", "continue", "crate", "dyn",
	"else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let",
	"loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
	"Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
	"use", "where", "while", "union", "macro_rules",
)

var jsKeywords = set(
	"await", "break", "case", "catch", "class", "const", "continue", "debugger",
	"default", "delete", "do", "else", "export", "extends", "false", "finally",
	"for", "from", "function", "if", "import", "in", "instanceof", "let", "new",
	"null", "of", "return", "static", "super", "switch", "this", "throw",
	"true", "try", "typeof", "undefined", "var", "void", "while", "with",
	"yield", "async",
)

var tsKeywords = set(
	"abstract", "any", "as", "asserts", "boolean", "declare", "enum",
	"implements", "infer", "interface", "is", "keyof", "module", "namespace",
	"never", "number", "object", "private", "protected", "public", "readonly",
	"satisfies", "string", "symbol", "type", "unique", "unknown", "override",
	"bigint",
)

var javaKeywords = set(
	"abstract", "assert", "boolean", "break", "byte", "case", "catch", "char",
	"class", "const", "continue", "default", "do", "double", "else", "enum",
	"extends", "final", "finally", "float", "for", "goto", "if", "implements",
	"import", "instanceof", "int", "interface", "long", "native", "new",
	"package", "private", "protected", "public", "return", "short", "static",
	"strictfp", "super", "switch", "synchronized", "this", "throw", "throws",
	"transient", "try", "void", "volatile", "while", "true", "false", "null",
	"var", "record", "yield", "sealed", "permits", "non",
)

var cKeywords = set(
	"auto", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
	"int", "long", "register", "restrict", "return", "short", "signed",
	"sizeof", "static", "struct", "switch", "typedef", "union", "unsigned",
	"void", "volatile", "while", "_Bool", "_Atomic", "_Noreturn", "_Static_assert",
	"_Thread_local", "_Alignas", "_Alignof", "bool", "true", "false", "NULL",
	// preprocessor directives
	"include", "define", "undef", "ifdef", "ifndef", "endif", "elif", "pragma",
	"error", "defined",
)

var cppKeywords = set(
	"alignas", "alignof", "and", "asm", "catch", "class", "constexpr",
	"consteval", "constinit", "const_cast", "decltype", "delete",
	"dynamic_cast", "explicit", "export", "friend", "mutable", "namespace",
	"new", "noexcept", "not", "nullptr", "operator", "or", "private",
	"protected", "public", "reinterpret_cast", "static_assert", "static_cast",
	"template", "this", "thread_local", "throw", "try", "typeid", "typename",
	"using", "virtual", "override", "final", "concept", "requires", "co_await",
	"co_return", "co_yield", "wchar_t", "char8_t", "char16_t", "char32_t",
)

var csKeywords = set(
	"abstract", "as", "base", "bool", "break", "byte", "case", "catch", "char",
	"checked", "class", "const", "continue", "decimal", "default", "delegate",
	"do", "double", "else", "enum", "event", "explicit", "extern", "false",
	"finally", "fixed", "float", "for", "foreach", "goto", "if", "implicit",
	"in", "int", "interface", "internal", "is", "lock", "long", "namespace",
	"new", "null", "object", "operator", "out", "override", "params",
	"private", "protected", "public", "readonly", "ref", "return", "sbyte",
	"sealed", "short", "sizeof", "stackalloc", "static", "string", "struct",
	"switch", "this", "throw", "true", "try", "typeof", "uint", "ulong",
	"unchecked", "unsafe", "ushort", "using", "virtual", "void", "volatile",
	"while", "var", "async", "await", "get", "set", "init", "record", "where",
	"yield", "nameof", "value",
)

var rubyKeywords = set(
	"BEGIN", "END", "alias", "and", "begin", "break", "case", "class", "def",
	"defined", "do", "else", "elsif", "end", "ensure", "false", "for", "if",
	"in", "module", "next", "nil", "not", "or", "redo", "rescue", "retry",
	"return", "self", "super", "then", "true", "undef", "unless", "until",
	"when", "while", "yield", "__FILE__", "__LINE__", "__method__",
)

var phpKeywords = set(
	"abstract", "and", "array", "as", "break", "callable", "case", "catch",
	"class", "clone", "const", "continue", "declare", "default", "do", "echo",
	"else", "elseif", "empty", "enddeclare", "endfor", "endforeach", "endif",
	"endswitch", "endwhile", "enum", "extends", "final", "finally", "fn",
	"for", "foreach", "function", "global", "goto", "if", "implements",
	"include", "include_once", "instanceof", "insteadof", "interface", "isset",
	"list", "match", "namespace", "new", "or", "print", "private", "protected",
	"public", "readonly", "require", "require_once", "return", "static",
	"switch", "throw", "trait", "try", "unset", "use", "var", "while", "xor",
	"yield", "true", "false", "null", "TRUE", "FALSE", "NULL", "this", "self",
	"parent", "php",
)
