#!/usr/bin/env python3
"""`make lint-web`: the page's assets (Sources/IsletWeb/Assets) through real parsers.

- The script as served at /app.js (its files joined in the order of its line in
  Assets/served.txt) and the service worker (sw.js) by Node's V8 as classic scripts: `vm.Script`, the grammar of a browser's <script>
  (`node --check` parses a CommonJS module, which takes a top-level `return` a browser refuses).
  An error is reported at its own file and line.
- index.html by html5lib (Debian's python3-html5lib): the WHATWG parsing algorithm, the one
  browsers run, every parse error with its line and column (a misspelled or stray end tag, a
  duplicate attribute, a quote left open). It checks syntax, not the content model.
- manifest.webmanifest by Python's json: an object with the members an install needs.

- words.js as served (docs/WEB.md "Delivery"): every key with one part per language, none empty,
  and each language's own file (split as islet-page-gen splits it: `key: "part",` lines handed to
  ISLET_WORDS.add) parsed by Node as a classic script and run, giving every key its words.

- parts.js's pure logic (the verb table, the tab's title, quick starts, night, alerts) run in
  Node's vm beside words.js by web/parts_check.js, whose expectations come from the spec.

A pass is trusted only after broken copies fail: each check first meets a copy with one fault
and must report that fault at its file and line. Closes with "lint-web: N passed, M failed".
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASSETS = os.path.join(ROOT, "Sources", "IsletWeb", "Assets")
SERVED = os.path.join(ASSETS, "served.txt")

# A classic script, as a browser's <script> parses it; prints "LINE<TAB>error" on a syntax error.
NODE_PARSE = r"""
const src = require("fs").readFileSync(0, "utf8");
try { new (require("vm").Script)(src, {filename: "app.js"}); }
catch (e) {
  const m = /^app\.js:(\d+)/.exec(String(e.stack));
  console.log((m ? m[1] : "0") + "\t" + e.name + ": " + e.message);
  process.exit(1);
}
"""


def check_parts(pieces):
    """parts.js's pure logic (web/parts_check.js) run beside words.js: its failures."""
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".js", encoding="utf-8") as f:
        f.write("".join(text for name, text in pieces if name in ("words.js", "parts.js")))
        f.flush()
        r = subprocess.run(["node", os.path.join(ROOT, "web", "parts_check.js"), f.name], capture_output=True, text=True, timeout=60)
    return [] if r.returncode == 0 else [f"parts.js: {ln}" for ln in (r.stdout + r.stderr).strip().splitlines()] or ["parts.js: failed"]


# Each language's file run after words.js, ISLET_WORDS.add catching what it gives; prints
# "FILE<TAB>error" per fault.
NODE_WORDS = r"""
const vm = require("vm"), files = JSON.parse(require("fs").readFileSync(0, "utf8"));
const ctx = vm.createContext({});
vm.runInContext(files.base + "\n;globalThis.W = ISLET_WORDS;", ctx, {filename: "words.js"});
const W = ctx.W, keys = Object.keys(W.t), got = {};
W.add = (lang, words) => { got[lang] = words; };
for (const [name, lang, text] of files.others) {
  try { new vm.Script(text, {filename: name}).runInContext(ctx); }
  catch (e) { console.log(name + "\t" + e.name + ": " + e.message); continue; }
  const w = got[lang] || {};
  for (const k of keys) if (typeof w[k] !== "string" || !w[k]) console.log(name + "\t" + lang + " has no words for " + k);
}
"""


def split_words(text):
    """(errors as "words.js:line: text", [(file name, lang, text)]): islet-page-gen's split."""
    lines = text.split("\n")
    langs_at = next((i for i, ln in enumerate(lines) if ln.startswith("langs: [")), None)
    if langs_at is None:
        return ["words.js: no line `langs: [...]`"], []
    langs = lines[langs_at].split('"')[1::2]
    try:
        start = lines.index("t: {")
        end = lines.index("}", start)
    except ValueError:
        return ["words.js: no block `t: {` … `}`"], []
    errors, keys, parts = [], [], []
    for i in range(start + 1, end):
        m = re.fullmatch(r'(\w+): "([^"\\]*)",?', lines[i])
        if not m:
            errors.append(f"words.js:{i + 1}: a key's line is `key: \"en|...\",`")
            continue
        words = m.group(2).split("|")
        if len(words) != len(langs) or not all(words):
            errors.append(f"words.js:{i + 1}: {m.group(1)} has {len(words)} parts, {words.count('')} empty: one word per language ({len(langs)})")
            continue
        keys.append(m.group(1))
        parts.append(words)
    others = []
    for j, lang in enumerate(langs[1:], 1):
        body = ",\n".join(f'{k}: "{p[j]}"' for k, p in zip(keys, parts))
        others.append((f"words-{lang.lower()}.js", lang, f'ISLET_WORDS.add("{lang}", {{\n{body}\n}});\n'))
    return errors, others


def check_words(text, others_edit=None):
    """words.js and each language's file as served: the faults, as "file:line: text" / "file: text"."""
    import json
    errors, others = split_words(text)
    if others_edit:
        others = others_edit(others)
    r = subprocess.run(["node", "-e", NODE_WORDS], input=json.dumps({"base": text, "others": others}),
                       capture_output=True, text=True, timeout=60)
    errors += [ln.replace("\t", ": ", 1) for ln in r.stdout.strip().splitlines()]
    if r.returncode != 0:
        errors.append(f"words.js: node failed: {r.stderr.strip()[-400:]}")
    return errors


def read(name):
    """An asset's text; `words.js:PREFIX` (a claim in served.txt) is the script the build makes of
    it: the English of words.js's keys starting with PREFIX, handed to ISLET_WORDS.add."""
    file, _, prefix = name.partition(":")
    with open(os.path.join(ASSETS, file), encoding="utf-8") as f:
        text = f.read()
    if not prefix:
        return text
    keys = [ln.split(":", 1) for ln in text.splitlines() if ln.startswith(prefix) and ": \"" in ln]
    body = ",\n".join(f'{k}: "{v.strip().rstrip(",").strip(chr(34)).split("|")[0]}"' for k, v in keys)
    return f'ISLET_WORDS.add("en", {{\n{body}\n}});\n'


def script_files(address="/app.js"):
    """The files served joined at `address`, in served.txt's order (`ADDRESS CACHE FILE...`)."""
    with open(SERVED, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) >= 3 and words[0] == address:
                missing = [n for n in words[2:] if not os.path.exists(os.path.join(ASSETS, n.partition(":")[0]))]
                if missing:
                    raise SystemExit(f"lint-web: served.txt names {', '.join(missing)}, which no file in {ASSETS} is")
                return words[2:]
    raise SystemExit(f"lint-web: {SERVED}: no line serves {address}")


def check_manifest(name, text):
    """The web app manifest: JSON, and the members an install to a home screen reads."""
    import json
    try:
        m = json.loads(text)
    except ValueError as e:
        return [f"{name}:{getattr(e, 'lineno', 0)}: {e}"]
    out = [f"{name}: no {k}" for k in ("name", "start_url", "display", "icons") if k not in m]
    sizes = {i.get("sizes") for i in m.get("icons", []) if isinstance(i, dict)}
    out += [f"{name}: no {s} icon" for s in ("192x192", "512x512") if s not in sizes]
    return out


def check_script(pieces):
    """`pieces`: [(file name, text)], joined as served. Returns the errors as "file:line: text"."""
    joined = "".join(text for _, text in pieces)
    r = subprocess.run(["node", "-e", NODE_PARSE], input=joined, capture_output=True, text=True, timeout=60)
    if r.returncode == 0:
        return []
    line_text, _, message = r.stdout.strip().partition("\t")
    if not message:
        return [f"app.js: node could not parse it: {(r.stderr or r.stdout).strip()[-400:]}"]
    line = int(line_text)
    for name, text in pieces:
        count = text.count("\n")
        if line <= count:
            return [f"{name}:{line}: {message}"]
        line -= count
    return [f"{pieces[-1][0]}:{pieces[-1][1].count(chr(10)) + line}: {message}"]


def check_html(name, text):
    """Every parse error of the WHATWG algorithm, as "file:line:column: text"."""
    import html5lib
    from html5lib.constants import E
    parser = html5lib.HTMLParser(strict=False)
    parser.parse(text.encode("utf-8"), transport_encoding="utf-8")
    out = []
    for (line, column), code, values in parser.errors:
        try:
            words = E.get(code, code) % (values or {})
        except (KeyError, TypeError, ValueError):
            words = f"{code} {values}"
        out.append(f"{name}:{line}:{column}: {words}")
    return out


def broken(text, old, new):
    """`text` with its first `old` replaced by `new`, and the line it is on."""
    at = text.index(old)
    return text[:at] + new + text[at + len(old):], text.count("\n", 0, at) + 1


def cases(script, html_name):
    """(what, errors, expected): the broken copies first, then the shipped files."""
    pieces = [(n, read(n)) for n in script]
    html = read(html_name)
    out = []
    # parts.js with a parenthesis that never closes: reported in parts.js at that line.
    name, text = pieces[1]
    bad, line = broken(text, "function clock(sec) {", "function clock(sec {")
    out.append(("a script with a syntax error in its second file", check_script([pieces[0], (name, bad)] + pieces[2:]),
                f"{name}:{line}:"))
    # A top-level return: CommonJS takes it, a browser's classic script does not.
    name, text = pieces[-1]
    out.append(("a script with a top-level return", check_script(pieces[:-1] + [(name, text + "return;\n")]),
                f"{name}:{text.count(chr(10)) + 1}:"))
    bad, line = broken(html, '<header class="bar">', '<header class="bar" class="top">')
    out.append(("HTML with a duplicate attribute", check_html(html_name, bad), f"{html_name}:{line}:"))
    bad, line = broken(html, "</section>", "</sectoin>")
    out.append(("HTML with a misspelled end tag", check_html(html_name, bad), f"{html_name}:{line}:"))
    # parts.js whose verb table lets a paused timer pause: the check must see it.
    name, text = pieces[1]
    bad, line = broken(text, 'if (phase === "paused" || phase === "complete") refused.push("pause");', 'if (phase === "complete") refused.push("pause");')
    out.append(("parts.js with a wrong verb table", check_parts([pieces[0], (name, bad)]), "parts.js: paused refuses"))
    out.append((f"the script ({' + '.join(script)}) parses as a classic script", check_script(pieces), None))
    out.append(("parts.js's pure logic (web/parts_check.js)", check_parts(pieces), None))
    out.append((f"{html_name} has no parse error", check_html(html_name, html), None))
    words = read("words.js")
    bad, line = broken(words, 'conn_live: "Live|', 'conn_live: "Live||')
    out.append(("words.js with a key missing a language", check_words(bad), f"words.js:{line}:"))
    out.append(("a language's file that does not parse",
                check_words(words, lambda o: [(n, lang, t.replace("{", "{{", 1)) if lang == "ar" else (n, lang, t) for n, lang, t in o]),
                "words-ar.js: SyntaxError"))
    out.append(("words.js: every key in every language, and each language's file parses and gives them all", check_words(words), None))
    for address in ("/sw.js", "/settings.js", "/alerts.js"):
        files = script_files(address)
        out.append((f"{' + '.join(files)} parses as a classic script", check_script([(n, read(n)) for n in files]), None))
    bad, line = broken(read("manifest.webmanifest"), '"display"', '"display')
    out.append(("a manifest with a quote left open", check_manifest("manifest.webmanifest", bad), "manifest.webmanifest:"))
    out.append(("manifest.webmanifest is JSON with name, start_url, display and icons of 192 and 512 px",
                check_manifest("manifest.webmanifest", read("manifest.webmanifest")), None))
    return out


def main():
    try:
        import html5lib  # noqa: F401  (checked here, to name the package)
    except ImportError:
        raise SystemExit(f"lint-web: {sys.executable} has no html5lib: make lint-web installs Debian's python3-html5lib "
                         "and runs /usr/bin/python3 (WEB_PYTHON)")
    if subprocess.run(["sh", "-c", "command -v node"], capture_output=True).returncode != 0:
        raise SystemExit("lint-web: no node on PATH: make lint-web installs Debian's nodejs")
    passed = failed = 0
    for what, errors, expected in cases(script_files(), "index.html"):
        if expected is None:
            ok = not errors
        else:
            ok = any(e.startswith(expected) for e in errors)
        print(f"lint-web: {'ok' if ok else 'FAILED'}  {what}")
        if not ok:
            print(f"  expected: {'no error' if expected is None else expected + ' …'}")
        if errors and (not ok or expected is not None):
            for e in errors[:8]:
                print(f"  {e}")
        passed, failed = passed + ok, failed + (not ok)
    print(f"lint-web: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
