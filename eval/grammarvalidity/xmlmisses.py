# Attributes the XML grammar's misses (eval/grammarvalidity) to what
# XMLParser.g4 / XMLLexer.g4 leave unstated: repairs are applied one after
# another to each sentence expat rejects, and the sentence is counted
# under the first repair after which expat accepts it.
#
#   wafer gen --grammar GRAMMARS_V4/xml/XMLParser.g4 -n 1000 --seed 1 -o DIR
#   python3 eval/grammarvalidity/xmlmisses.py DIR
import os, re, sys
import xml.parsers.expat

def ok(b):
    p = xml.parsers.expat.ParserCreate()
    try:
        p.Parse(b, True)
        return True
    except xml.parsers.expat.ExpatError:
        return False

def decl(b):  # the grammar lets the XML declaration hold any attributes
    return re.sub(rb"^<\?xml(?:[^?]|\?(?!>))*\?>", b'<?xml version="1.0"?>', b)

def dtd(b):  # DTD : '<!' .*? '>' -> skip: any <!...> outside comments and CDATA
    return re.sub(rb"<!(?!--|\[CDATA\[)[^>]*>", b"", b)

def attrspace(b):  # S is skipped inside tags, so attributes may touch
    return re.sub(rb"(=\s*(?:\"[^\"<]*\"|'[^'<]*'))(?=[^\s/>?])", rb"\1 ", b)

def pis(b):  # <?xml ...?> may come again later (XMLDeclOpen is a PI target 'xml')
    return re.sub(rb"(?<!^)<\?xml[ \t\r\n][^>]*\?>", b"", b)

def tags(b):  # end tags must match (a constraint no CFG states); remove elements' names
    names = []
    out = []
    for m in re.finditer(rb"<(/?)([^\s/>!?]+)([^>]*)>|<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|[^<]+|<", b, re.S):
        if m.group(2) is None:
            out.append(m.group(0)); continue
        if m.group(1):
            out.append(b"</" + (names.pop() if names else m.group(2)) + m.group(3) + b">")
        else:
            if not m.group(3).endswith(b"/"):
                names.append(m.group(2))
            out.append(m.group(0))
    return b"".join(out)

def pitarget(b):  # PI content may touch its target (IGNORE : . -> more)
    return re.sub(rb"(<\?[^\s?<>]*?)([^\w.\-:\x80-\xff\s?])", rb"\1 \2", b)

def attramp(b):  # STRING : '"' ~[<"]* '"' lets a bare & into attribute values
    return re.sub(rb"(=\s*(?:\"[^\"<]*\"|'[^'<]*'))", lambda m: re.sub(rb"&", b"&amp;", m.group(1)), b)

def charref(b):  # a character reference must name an XML character (a constraint)
    return re.sub(rb"&#x?[0-9a-fA-F]+;", b"&#65;", b)

def entities(b):  # entity references must be declared (a constraint)
    return re.sub(rb"&(?!(?:amp|lt|gt|quot|apos);)[^#;\s]+;", b"&amp;", b)

def names(b):  # XMLLexer's name characters are XML 1.0 fifth edition's; expat's tables are older
    return re.sub(rb"[\x80-\xff]+", lambda m: b"x" * len(m.group(0).decode("utf-8", "replace")), b)

repairs = [("XML declaration with other pseudo-attributes than version/encoding/standalone", decl),
           ("a skipped DTD-like <!...> (the grammar's DTD rule)", dtd),
           ("attributes with no space between them (S skipped in tags)", attrspace),
           ("a second <?xml ...?> declaration", pis),
           ("a processing instruction's content touching its target", pitarget),
           ("a bare & in an attribute value (STRING allows it)", attramp),
           ("end tag not matching its start tag (constraint)", tags),
           ("an undeclared entity reference (constraint)", entities),
           ("a character reference to no XML character (constraint)", charref),
           ("non-ASCII name characters expat's older tables refuse", names)]
d = sys.argv[1]
counts = {name: 0 for name, _ in repairs}
valid = rest = 0
examples = []
files = sorted(os.listdir(d))
for f in files:
    b = open(os.path.join(d, f), "rb").read()
    if ok(b):
        valid += 1
        continue
    for name, fix in repairs:
        b = fix(b)
        if ok(b):
            counts[name] += 1
            break
    else:
        rest += 1
        if len(examples) < 5:
            examples.append(b[:200])
print(f"{len(files)} sentences: {valid} well-formed as generated")
for name, _ in repairs:
    print(f"  {counts[name]:4d} well-formed after also repairing: {name}")
print(f"  {rest:4d} still rejected, e.g.:")
for e in examples:
    print("      ", e)
