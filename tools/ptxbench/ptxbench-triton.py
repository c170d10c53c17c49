"""ptxbench's Triton driver: compiles one Triton submission ahead of time.

`ptxbench compile-triton` (a contained child of ptxbench: time, memory and
file-size limits, a scrubbed environment, its own temporary folder as the
working directory, HOME and TRITON_CACHE_DIR) runs this script as
`python3 -E -B ptxbench-triton.py REQUEST.json RESULT.json`. The request names
the submission's file, its name in messages, the target and the kernel to
compile (its argument types, constexprs, num_warps and num_stages, the
arguments Triton may take as 16-divisible). The result is JSON: ok, the
stage that failed (gate, import, plan, compile), messages at submission
lines, the PTX, and the compile metadata the harness launches with.

The submission is never run as a script. Before anything of it executes,
its syntax tree is held against what a Triton answer may contain (the
gate): imports of Triton only, constants, and @triton.jit functions whose
bodies reach Triton's language and nothing else of the host. Only then is
it executed as a module, under an audit hook that refuses programs,
sockets, ctypes and writes outside the temporary folder. The hook is a
second line, not a boundary: the process limits around this script are.
"""
import ast
import json
import linecache
import os
import sys
import traceback
import types

ALLOWED_IMPORTS = ("triton", "triton.language", "triton.language.extra",
                   "triton.language.extra.cuda", "triton.language.extra.libdevice",
                   "__future__")
JIT_KEYWORDS = ("do_not_specialize", "do_not_specialize_on_alignment",
                "debug", "noinline")
# Builtins a @triton.jit body could use to reach the host past the static
# attribute check below. Triton's code generator resolves getattr and
# hasattr itself (a local of that name would be bound to them first), so
# those and the ones that run code are refused whatever binds them; the
# rest only where they are not the kernel's own variables (`input`).
ALWAYS_REFUSED = ("__import__", "eval", "exec", "compile", "open", "globals",
                  "locals", "vars", "getattr", "setattr", "delattr", "hasattr",
                  "__builtins__", "breakpoint")
REFUSED_NAMES = ALWAYS_REFUSED + ("input", "help", "exit", "quit",
                                  "memoryview", "object", "type", "super",
                                  "classmethod", "staticmethod", "property")
MAX_MESSAGES = 50
# The plan's num_stages is 1 to 8 (LaunchPlan.cpp); so is a loop's.
MAX_STAGES = 8
MAX_UNROLL = 4096


class Refusal(Exception):
    pass


class Gate(ast.NodeVisitor):
    """What a Triton answer may hold, checked on its syntax tree before any
    of it runs. Messages are (line, column, text)."""

    def __init__(self):
        self.messages = []
        self.modules = {}  # global name -> module path ("tl" -> triton.language)
        self.constants = set()
        self.functions = []

    def refuse(self, node, text):
        if len(self.messages) < MAX_MESSAGES:
            self.messages.append((getattr(node, "lineno", 0),
                                  getattr(node, "col_offset", -1) + 1, text))

    # --- top level ----------------------------------------------------------

    def check_module(self, tree):
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.check_import(node, alias.name)
                    if alias.asname:
                        self.modules[alias.asname] = alias.name
                    else:
                        self.modules[alias.name.split(".")[0]] = \
                            alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    self.refuse(node, "relative imports are not accepted")
                    continue
                for alias in node.names:
                    full = "%s.%s" % (node.module, alias.name)
                    if node.module == "__future__":
                        continue
                    if full not in ALLOWED_IMPORTS:
                        self.refuse(node, "'from %s import %s': a Triton answer "
                                    "imports triton and triton.language only"
                                    % (node.module, alias.name))
                        continue
                    self.modules[alias.asname or alias.name] = full
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                self.check_constant(node)
            elif isinstance(node, ast.FunctionDef):
                self.check_function(node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                continue  # a docstring
            elif isinstance(node, ast.AsyncFunctionDef):
                self.refuse(node, "async functions are host code; a Triton "
                            "answer holds @triton.jit kernels and constants only")
            else:
                self.refuse(node, "%s at the top level is host code; a Triton "
                            "answer holds @triton.jit kernels and constants "
                            "only (no launch code, tests or autotuning)"
                            % describe(node))

    def check_import(self, node, name):
        if name not in ALLOWED_IMPORTS:
            self.refuse(node, "'import %s': a Triton answer imports triton "
                        "and triton.language only (the harness owns all host "
                        "work)" % name)

    def check_constant(self, node):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if not isinstance(t, ast.Name):
                self.refuse(t, "only NAME = constant assignments are accepted "
                            "at the top level")
                return
        if isinstance(node, ast.AnnAssign):
            self.check_static(node.annotation, "an annotation")
            if node.value is None:
                return
        self.check_static(node.value, "a top-level constant")
        for t in targets:
            self.constants.add(t.id)

    def check_static(self, node, what):
        """Expressions that run at import: literals, arithmetic on them,
        names of constants and Triton's attributes, and tl.constexpr(...)."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, bytes)) and what not in (
                    "an annotation", "a parameter annotation",
                    "a @triton.jit keyword"):
                self.refuse(node, "a string in %s: constants are numbers "
                            "and booleans" % what)
            return
        if isinstance(node, ast.Name):
            if node.id in self.constants or node.id in self.modules \
                    or node.id in ("True", "False", "None"):
                return
            self.refuse(node, "'%s' in %s is neither a constant defined above "
                        "nor an imported Triton module" % (node.id, what))
            return
        if isinstance(node, ast.Attribute):
            self.check_attribute_chain(node, what)
            return
        if isinstance(node, ast.UnaryOp):
            self.check_static(node.operand, what)
            return
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow) and not (
                    isinstance(node.right, ast.Constant)
                    and isinstance(node.right.value, int)
                    and 0 <= node.right.value <= 64):
                self.refuse(node, "a power in %s takes a literal exponent of "
                            "at most 64" % what)
                return
            if isinstance(node.op, (ast.LShift,)) and not (
                    isinstance(node.right, ast.Constant)
                    and isinstance(node.right.value, int)
                    and 0 <= node.right.value <= 64):
                self.refuse(node, "a shift in %s takes a literal count of at "
                            "most 64" % what)
                return
            self.check_static(node.left, what)
            self.check_static(node.right, what)
            return
        if isinstance(node, (ast.Tuple, ast.List)):
            for e in node.elts:
                self.check_static(e, what)
            return
        if isinstance(node, ast.Call) and not node.keywords and \
                len(node.args) == 1 and self.is_constexpr_type(node.func):
            self.check_static(node.args[0], what)
            return
        self.refuse(node, "%s in %s runs host code at import; only literals, "
                    "arithmetic on them, constants and tl.constexpr(...) are "
                    "accepted" % (describe(node), what))

    def is_constexpr_type(self, node):
        return isinstance(node, ast.Attribute) and node.attr == "constexpr" \
            and self.chain_root(node) in self.modules

    def chain_root(self, node):
        while isinstance(node, ast.Attribute):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    def check_attribute_chain(self, node, what):
        chain = []
        n = node
        while isinstance(n, ast.Attribute):
            chain.append(n.attr)
            n = n.value
        if not isinstance(n, ast.Name) or n.id not in self.modules:
            self.refuse(node, "attributes in %s are accepted on Triton's "
                        "modules only" % what)
            return
        for attr in chain:
            if attr.startswith("_"):
                self.refuse(node, "'%s' is private: not accepted" % attr)
                return

    # --- kernels ------------------------------------------------------------

    def check_function(self, node):
        jit = [d for d in node.decorator_list if self.is_jit(d)]
        if len(node.decorator_list) != 1 or len(jit) != 1:
            names = ", ".join(ast.unparse(d) for d in node.decorator_list) \
                or "none"
            self.refuse(node, "function '%s' is host code (decorators: %s); "
                        "a Triton answer's functions are @triton.jit only: no "
                        "autotune, heuristics or constexpr_function (one "
                        "configuration per answer, given in the launch plan)"
                        % (node.name, names))
            return
        d = node.decorator_list[0]
        if isinstance(d, ast.Call):
            if d.args:
                self.refuse(d, "@triton.jit takes keywords only here")
            for kw in d.keywords:
                if kw.arg not in JIT_KEYWORDS:
                    self.refuse(kw, "@triton.jit(%s=...) is not accepted "
                                "(accepted: %s)" % (kw.arg, ", ".join(JIT_KEYWORDS)))
                else:
                    self.check_static(kw.value, "a @triton.jit keyword")
        a = node.args
        for arg in a.posonlyargs + a.args + a.kwonlyargs:
            if arg.annotation is not None:
                self.check_static(arg.annotation, "a parameter annotation")
        if a.vararg or a.kwarg:
            self.refuse(node, "*args and **kwargs are not accepted in a "
                        "kernel's parameters")
        for default in a.defaults + [k for k in a.kw_defaults if k]:
            self.check_static(default, "a parameter default")
        if node.returns is not None:
            self.check_static(node.returns, "a return annotation")
        self.functions.append(node.name)
        # A parameter or a variable of the kernel's own may be called
        # `input` or `type`: those names are refused only as builtins.
        local = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                local.add(n.id)
        for stmt in node.body:
            self.check_body(stmt, local)

    def check_pipeline(self, call):
        """Literal sizes that only burn compile time: a loop pipelined
        deeper than the plan's num_stages may be, a static_range unrolled
        past MAX_UNROLL (sizes given as constexprs meet the time limit)."""
        for kw in call.keywords:
            if kw.arg == "num_stages" and isinstance(kw.value, ast.Constant) \
                    and isinstance(kw.value.value, int) \
                    and not 1 <= kw.value.value <= MAX_STAGES:
                self.refuse(kw.value, "num_stages=%r: a loop is pipelined at "
                            "most %d deep" % (kw.value.value, MAX_STAGES))
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr == "static_range":
            for a in call.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, int) \
                        and abs(a.value) > MAX_UNROLL:
                    self.refuse(a, "static_range(%d) unrolls more than %d "
                                "iterations" % (a.value, MAX_UNROLL))

    def is_jit(self, d):
        f = d.func if isinstance(d, ast.Call) else d
        if isinstance(f, ast.Attribute) and f.attr == "jit":
            return isinstance(f.value, ast.Name) and \
                self.modules.get(f.value.id) == "triton"
        return False

    def check_body(self, stmt, local):
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call):
                self.check_pipeline(n)
            if isinstance(n, ast.Name) and n.id in REFUSED_NAMES and \
                    (n.id in ALWAYS_REFUSED or n.id not in local):
                self.refuse(n, "'%s' is not accepted in a kernel" % n.id)
            elif isinstance(n, ast.Attribute) and n.attr.startswith("_"):
                self.refuse(n, "'%s' is private: not accepted in a kernel"
                            % n.attr)
            elif isinstance(n, (ast.Lambda, ast.FunctionDef, ast.ClassDef,
                                ast.AsyncFunctionDef, ast.Global,
                                ast.Nonlocal, ast.Import, ast.ImportFrom,
                                ast.Try, ast.With, ast.Delete, ast.Await,
                                ast.Yield, ast.YieldFrom)):
                self.refuse(n, "%s is not accepted in a kernel" % describe(n))


def describe(node):
    names = {ast.For: "a for loop", ast.While: "a while loop", ast.If: "an if",
             ast.With: "a with block", ast.Try: "a try block",
             ast.ClassDef: "a class", ast.Lambda: "a lambda",
             ast.FunctionDef: "a nested function", ast.Call: "a call",
             ast.Expr: "an expression statement", ast.Global: "global",
             ast.Nonlocal: "nonlocal", ast.Import: "an import",
             ast.ImportFrom: "an import", ast.Delete: "del",
             ast.Assert: "an assert", ast.Raise: "a raise",
             ast.Subscript: "a subscript", ast.Await: "await",
             ast.Yield: "yield", ast.YieldFrom: "yield from"}
    for kind, text in names.items():
        if isinstance(node, kind):
            if kind is ast.Expr and isinstance(node.value, ast.Call):
                return "a call (%s)" % ast.unparse(node.value.func)[:60]
            if kind is ast.Call:
                return "a call (%s)" % ast.unparse(node.func)[:60]
            return text
    return type(node).__name__


def outside_language(value):
    """What of the host `value` is, when it is not part of Triton's
    language: a module outside triton.language, or a function of another
    module (os.system reached without naming os); None otherwise."""
    if isinstance(value, types.ModuleType):
        name = value.__name__
        return None if name.startswith("triton.language") else "module '%s'" % name
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        module = getattr(value, "__module__", None) or ""
        if not module.startswith("triton"):
            return "function '%s.%s'" % (module, getattr(value, "__name__", "?"))
    return None


def check_reach(tree, gate, namespace):
    """What the kernels and the constants reach, resolved on the imported
    module: every attribute chain rooted at a global is followed with the
    values it names, and may lead into triton.language (and its
    submodules) or to Triton's own objects (triton.cdiv), never to another
    module or its functions (tl.core.inspect.os, a constant bound to it)."""
    for name, value in namespace.items():
        if name in gate.constants and outside_language(value):
            gate.refuse(next((n for n in tree.body
                              if isinstance(n, (ast.Assign, ast.AnnAssign))
                              and name in {t.id for t in (
                                  n.targets if isinstance(n, ast.Assign)
                                  else [n.target])
                                  if isinstance(t, ast.Name)}), tree),
                        "constant '%s' is %s, which is not part of Triton's "
                        "language" % (name, outside_language(value)))
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name not in gate.functions:
            continue
        inner = {id(n.value) for n in ast.walk(node)
                 if isinstance(n, ast.Attribute)}
        for n in ast.walk(node):
            if not isinstance(n, ast.Attribute) or id(n) in inner:
                continue
            chain = []
            base = n
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if not isinstance(base, ast.Name) or base.id not in namespace:
                continue
            value = namespace[base.id]
            for attr in reversed(chain):
                if value is None or attr.startswith("_"):
                    break
                try:
                    value = getattr(value, attr)
                except Exception:  # noqa: BLE001 (a tensor's attributes)
                    break
                what = outside_language(value)
                if what:
                    gate.refuse(n, "'%s' reaches %s, which is not part of "
                                "Triton's language" % (ast.unparse(n), what))
                    break


# --- the audit hook -----------------------------------------------------------

REFUSED_EVENTS = ("os.system", "os.exec", "os.posix_spawn", "os.spawn",
                  "os.fork", "os.forkpty", "subprocess.Popen", "pty.spawn",
                  "os.kill", "os.killpg", "signal.pthread_kill",
                  "socket.__new__", "socket.connect", "socket.bind",
                  "socket.getaddrinfo", "socket.gethostbyname",
                  "socket.sendto", "ctypes.dlopen", "ctypes.dlsym",
                  "ctypes.call_function", "ctypes.cdata", "ctypes.addressof",
                  "ctypes.create_string_buffer", "mmap.__new__",
                  "os.chroot", "os.putenv",
                  "os.unsetenv", "winreg", "webbrowser.open",
                  "urllib.Request", "http.client.connect", "ftplib.connect",
                  "smtplib.connect", "imaplib.open", "poplib.connect",
                  "telnetlib.Telnet.open", "resource.setrlimit",
                  "resource.prlimit")
PATH_EVENTS = ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod",
               "os.chown", "os.link", "os.symlink", "os.truncate", "os.utime",
               "shutil.rmtree", "shutil.copyfile", "shutil.move",
               "shutil.copytree", "os.chflags", "os.lchflags", "os.setxattr",
               "os.removexattr")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def install_hook(workdir):
    root = os.path.realpath(workdir) + os.sep
    state = {"refused": None}

    def inside(path):
        if isinstance(path, int):
            return True  # an open descriptor: already checked when opened
        try:
            p = os.fsdecode(path)
        except TypeError:
            return False
        return os.path.realpath(p).startswith(root)

    def hook(event, args):
        refused = None
        if event in REFUSED_EVENTS or event.startswith("os.exec") or \
                event.startswith("os.spawn"):
            refused = event
        elif event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            writes = (mode is not None and any(c in str(mode) for c in "wax+")) \
                or (isinstance(flags, int) and flags & WRITE_FLAGS)
            if writes and not inside(path):
                refused = "open for writing: %s" % os.fsdecode(path) \
                    if isinstance(path, (str, bytes)) else "open for writing"
        elif event in PATH_EVENTS:
            for p in args:
                if isinstance(p, (str, bytes, os.PathLike)) and not inside(p):
                    refused = "%s outside the temporary folder" % event
                    break
        if refused:
            if state["refused"] is None:
                state["refused"] = refused
            raise PermissionError("ptxbench: %s is refused while compiling a "
                                  "Triton answer" % refused)

    sys.addaudithook(hook)
    return state


# --- compiling ----------------------------------------------------------------

def submission_frame(tb, name):
    """The innermost traceback frame in the submission, as (line, col)."""
    found = (0, 0)
    for frame in traceback.extract_tb(tb):
        if frame.filename == name:
            found = (frame.lineno or 0, (frame.colno or 0) + 1)
    return found


def compilation_line(err, fns):
    """A Triton CompilationError's place in the submission: its node's line
    is relative to the function whose source it holds."""
    node = getattr(err, "node", None)
    src = getattr(err, "src", None)
    if node is None or not hasattr(node, "lineno"):
        return 0, 0
    for fn in fns:
        if getattr(fn, "src", None) == src or getattr(fn, "_src", None) == src:
            return (fn.def_file_line_number + node.lineno - 1,
                    node.col_offset + 1 + getattr(fn, "def_file_col_number", 0))
    return 0, 0


def rename_files(ptx, name, triton_root):
    """`.file` directives name the submission by its name and Triton's own
    files relative to Triton's package (no host paths in reports)."""
    out = []
    for line in ptx.split("\n"):
        s = line.lstrip()
        if s.startswith(".file"):
            q = line.find('"')
            r = line.rfind('"')
            if 0 <= q < r:
                path = line[q + 1:r]
                if path != name and path.startswith(triton_root):
                    path = "triton/" + path[len(triton_root):].lstrip("/")
                line = line[:q + 1] + path + line[r:]
        out.append(line)
    return "\n".join(out)


def main():
    request_path, result_path = sys.argv[1], sys.argv[2]
    # Tests of the layers behind the gate and the hook leave them out; the
    # parent never does (ptxbench compile-triton --no-gate, --no-hook).
    gated = "--no-gate" not in sys.argv[3:]
    hooked = "--no-hook" not in sys.argv[3:]
    with open(request_path) as f:
        request = json.load(f)
    result = {"ok": False, "stage": "", "messages": [], "log": ""}

    def finish():
        with open(result_path, "w") as f:
            json.dump(result, f)
        return 0

    def fail(stage, messages, log=""):
        result["stage"] = stage
        result["messages"] = [{"line": l, "col": c, "text": t}
                              for l, c, t in messages][:MAX_MESSAGES]
        result["log"] = log[-20000:]
        return finish()

    name = request["name"]
    with open(request["source"], encoding="utf-8", errors="replace") as f:
        source = f.read()
    try:
        tree = ast.parse(source, filename=name)
    except SyntaxError as e:
        return fail("gate", [(e.lineno or 0, e.offset or 0,
                              "syntax error: %s" % e.msg)])
    except (RecursionError, MemoryError, ValueError) as e:
        return fail("gate", [(0, 0, "the answer does not parse: %s" %
                              type(e).__name__)])
    gate = Gate()
    gate.check_module(tree)
    if gate.messages and gated:
        return fail("gate", gate.messages)

    # Triton itself, before anything of the submission runs. It is told the
    # PTX version and the ptxas version (TRITON_MOCK_PTX_VERSION), so it
    # never starts a program.
    import triton
    import triton.language  # noqa: F401
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.errors import CompilationError
    from triton import knobs
    from triton.runtime.jit import JITFunction
    capability = int(request["capability"])
    ptx_version = int(request["ptx_version"])
    result["sandbox"] = os.environ.get("PTXBENCH_TRITON_SANDBOX", "")

    def no_cubin(*args):
        # ptxbench assembles the PTX itself; Triton is not to start ptxas.
        # Called without arguments, the hook names itself for the cache key.
        if not args:
            return "ptxbench-no-cubin", "1"
        args[1]["cubin"] = lambda src, metadata: b""
    knobs.runtime.add_stages_inspection_hook = no_cubin
    triton_root = os.path.dirname(os.path.realpath(triton.__file__))

    state = install_hook(request["workdir"]) if hooked else {"refused": None}
    module = types.ModuleType("ptxbench_submission")
    module.__file__ = name
    sys.modules[module.__name__] = module
    lines = source.splitlines(True)
    linecache.cache[name] = (len(source), None, lines, name)
    try:
        code = compile(tree, name, "exec")
        exec(code, module.__dict__)
    except BaseException as e:  # noqa: B902 (SystemExit included)
        line, col = submission_frame(e.__traceback__, name)
        if state["refused"]:
            return fail("refused", [(line, col, "%s at import time: refused"
                                     % state["refused"])])
        return fail("import", [(line, col, "the answer fails at import: %s: %s"
                                % (type(e).__name__, str(e)[:2000]))])
    check_reach(tree, gate, module.__dict__)
    if gate.messages and gated:
        return fail("gate", gate.messages)

    spec = request["kernel"]
    fn = module.__dict__.get(spec["name"])
    plan_line = spec.get("line", 0)
    plan_col = spec.get("col", 0)
    places = spec.get("constexpr_places", {})

    def at(name=None):
        """Where the plan gives a constexpr, or names the kernel."""
        line, col = places.get(name, (plan_line, plan_col))
        return line, col
    jits = [v for v in module.__dict__.values() if isinstance(v, JITFunction)]
    if not isinstance(fn, JITFunction):
        known = ", ".join(sorted(v.__name__ for v in jits)) or "none"
        return fail("plan", [(*at(), "kernel '%s' is not a @triton.jit "
                              "function of the answer (its kernels: %s)" %
                              (spec["name"], known))])
    params = [{"name": p.name, "constexpr": bool(p.is_constexpr)}
              for p in fn.params]
    result["params"] = params
    runtime_params = [p for p in fn.params if not p.is_constexpr]
    args = spec["args"]
    if len(args) != len(runtime_params):
        return fail("plan", [(*at(),
                              "kernel '%s' takes %d arguments besides its "
                              "constexprs (%s), the plan passes %d" %
                              (fn.__name__, len(runtime_params),
                               ", ".join(p.name for p in runtime_params),
                               len(args)))])
    constexprs = dict(spec.get("constexprs", {}))
    messages = []
    names = {p.name for p in fn.params}
    for k in constexprs:
        if k not in names:
            messages.append((*at(k), "constexpr '%s' is not a "
                             "parameter of kernel '%s'" % (k, fn.__name__)))
        elif not next(p for p in fn.params if p.name == k).is_constexpr:
            messages.append((*at(k), "'%s' is a run-time parameter of "
                             "kernel '%s' (annotate it tl.constexpr, or pass "
                             "it in args)" % (k, fn.__name__)))
    signature = {}
    values = {}
    attrs = {}
    aligned = set(spec.get("aligned", []))
    it = iter(args)
    for p in fn.params:
        if p.is_constexpr:
            signature[p.name] = "constexpr"
            if p.name in constexprs:
                values[p.name] = constexprs[p.name]
            elif p._param.default is not p._param.empty:
                default = p._param.default
                values[p.name] = getattr(default, "value", default)
            else:
                messages.append((*at(), "kernel '%s' needs constexpr "
                                 "'%s' (give it in the plan: constexpr "
                                 "%s=VALUE)" % (fn.__name__, p.name, p.name)))
        else:
            i = runtime_params.index(p)
            signature[p.name] = next(it)
            if i in aligned and not p.do_not_specialize:
                attrs[(p.num,)] = [["tt.divisibility", 16]]
    if messages:
        return fail("plan", messages)
    try:
        src = ASTSource(fn, signature=signature, constexprs=values, attrs=attrs)
        kernel = triton.compile(
            src, target=GPUTarget("cuda", capability, 32),
            options={"num_warps": spec["num_warps"],
                     "num_stages": spec["num_stages"],
                     "ptx_version": ptx_version})
    except CompilationError as e:
        line, col = compilation_line(e, jits)
        if state["refused"]:
            return fail("refused", [(line, col, "%s while compiling: refused"
                                     % state["refused"])])
        text = e.error_message or str(e).split("\n")[-1]
        return fail("compile", [(line, col, str(text)[:4000])], str(e))
    except BaseException as e:  # noqa: B902
        line, col = submission_frame(e.__traceback__, name)
        if state["refused"]:
            return fail("refused", [(line, col, "%s while compiling: refused"
                                     % state["refused"])])
        return fail("compile", [(line, col, "Triton failed: %s: %s" %
                                 (type(e).__name__, str(e)[:4000]))],
                    traceback.format_exc())
    md = kernel.metadata
    result["ok"] = True
    result["ptx"] = rename_files(kernel.asm["ptx"], name, triton_root)
    result["kernel"] = {
        "entry": md.name,
        "num_warps": md.num_warps,
        "num_ctas": getattr(md, "num_ctas", 1),
        "num_stages": md.num_stages,
        "shared": md.shared,
        "global_scratch_size": md.global_scratch_size,
        "global_scratch_align": md.global_scratch_align,
        "profile_scratch_size": getattr(md, "profile_scratch_size", 0),
        "profile_scratch_align": getattr(md, "profile_scratch_align", 1),
        "launch_cooperative_grid": bool(getattr(md, "launch_cooperative_grid", False)),
        "launch_pdl": bool(getattr(md, "launch_pdl", False)),
        "tensordesc_meta": list(getattr(md, "tensordesc_meta", None) or []),
        "triton": triton.__version__,
    }
    return finish()


if __name__ == "__main__":
    sys.exit(main())
