# Writes PTX modules nested past the importer's limits (and one just inside
# them), one file per case, into the folder given, for nesting-limits.test.
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
HEAD = ".version 8.7\n.target sm_90a\n.address_size 64\n"


def kernel(body, before=""):
    return (HEAD + before + ".visible .entry k()\n{\n"
            "  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n" + body + "  ret;\n}\n")


d = 100000
cases = {
    # A constant expression: parentheses, unary minus, `!`, casts, `?:`.
    "parens": kernel("  mov.u32 %r1, " + "(" * d + "1" + ")" * d + ";\n"),
    "minus": kernel("  mov.u32 %r1, " + "-" * d + "1;\n"),
    "casts": kernel("  mov.u32 %r1, " + "(.s64)" * d + "1;\n"),
    "conditional": kernel("  mov.u32 %r1, " + "1 ? " * d + "1" + " : 0" * d +
                          ";\n"),
    # Just inside the limit: 255 parentheses import.
    "parens-ok": kernel("  mov.u32 %r1, " + "(" * 255 + "1" + ")" * 255 +
                        ";\n"),
    # Operands: vectors, lists, predicate negation, addresses.
    "vectors": kernel("  mov.b32 %r1, " + "{" * d + "%r2" + "}" * d + ";\n"),
    "lists": kernel("  call f, " + "(%r1, " * d + "%r2" + ")" * d + ";\n"),
    "negations": kernel("  and.pred %p1, " + "!" * d + "%p0, %p0;\n"),
    "addresses": kernel("  ld.u32 %r1, [%r2" + ", [%r2" * d + "]" * d +
                        "];\n"),
    # A body's `{ }` scopes and a global's initializer.
    "scopes": kernel("{\n" * d + "}\n" * d),
    "initializer": kernel("", ".global .u32 g[1] = " + "{" * d + "1" +
                          "}" * d + ";\n"),
}
for name, text in cases.items():
    with open(os.path.join(out, name + ".ptx"), "w") as f:
        f.write(text)
