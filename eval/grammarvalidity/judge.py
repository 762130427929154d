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

import re

# TOML's dates and times are RFC 3339's, whose field ranges (month 01-12,
# day 01-31, hour 00-23, minute 00-59, second 00-60, RFC 3339 5.6's
# comments and 5.7) stand beside its ABNF, not in it; TomlLexer's rules
# take any two digits.
TOML_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
TOML_TIME = re.compile(r"(?<![\d.])(\d{2}):(\d{2}):(\d{2})")
TOML_OFFSET = re.compile(r"(\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-])(\d{2}):(\d{2})")

def toml_in_range(text):
    def date(m):
        return "%s-%02d-%02d" % (m.group(1), min(max(int(m.group(2)), 1), 12), min(max(int(m.group(3)), 1), 28))
    def time(m):
        return "%02d:%02d:%02d" % (min(int(m.group(1)), 23), min(int(m.group(2)), 59), min(int(m.group(3)), 59))
    def offset(m):
        return "%s%s%02d:%02d" % (m.group(1), m.group(2), min(int(m.group(3)), 23), min(int(m.group(4)), 59))
    return TOML_OFFSET.sub(offset, TOML_TIME.sub(time, TOML_DATE.sub(date, text)))

def toml(text):
    import tomllib
    try:
        tomllib.loads(text)
        return "ok"
    except Exception as e:
        msg = str(e)
    # tomllib reads a date or time out of range as other tokens and
    # reports a syntax error: judge the text with the fields brought into
    # range, and report the range when that is all that was wrong
    fixed = toml_in_range(text)
    if fixed == text:
        return msg
    try:
        tomllib.loads(fixed)
        return "date or time out of range (RFC 3339 5.7)"
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
    except LookupError as e:
        # encoding="..." names no codec Python has: a value the grammar
        # (any string) cannot restrict
        return "unknown encoding: " + str(e).split(": ", 1)[-1]

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
