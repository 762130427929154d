# Judges for grammarvalidity: reads a format name and file paths on argv,
# prints one line per file: "ok", or the first error's message.
import sys

def sqlite(text):
    import sqlite3
    con = sqlite3.connect(":memory:")
    steps = [0]
    def progress():
        steps[0] += 1
        return 1 if steps[0] > 2000 else 0  # interrupt long queries: parsed already
    con.set_progress_handler(progress, 1000)
    first_semantic = None
    acc = ""
    stmts = []
    for ch in text:
        acc += ch
        if ch == ";" and sqlite3.complete_statement(acc):
            stmts.append(acc)
            acc = ""
    if acc.strip():
        stmts.append(acc)
    for s in stmts:
        steps[0] = 0
        try:
            con.execute(s)
        except sqlite3.Warning:
            pass
        except Exception as e:  # syntax errors come from the parser, before any name is resolved
            m = str(e)
            if "syntax error" in m or "unrecognized token" in m or "incomplete input" in m:
                return m
            if "interrupted" not in m and first_semantic is None:
                first_semantic = "semantic: " + m
    return first_semantic or "ok"

def toml(text):
    import tomllib
    try:
        tomllib.loads(text)
        return "ok"
    except Exception as e:
        return str(e)

def xml(data):
    import xml.parsers.expat
    p = xml.parsers.expat.ParserCreate()
    try:
        p.Parse(data, True)
        return "ok"
    except xml.parsers.expat.ExpatError as e:
        return xml.parsers.expat.ErrorString(e.code)

def python(text):
    import ast
    try:
        ast.parse(text)
        return "ok"
    except SyntaxError as e:
        return type(e).__name__ + ": " + str(e.msg)
    except Exception as e:
        return type(e).__name__ + ": " + str(e)

fmt = sys.argv[1]
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    if fmt == "xml":
        r = xml(data)
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            print("invalid UTF-8")
            continue
        r = {"sqlite": sqlite, "toml": toml, "python": python}[fmt](text)
    print(r.replace("\n", " "))
