"""Text in the LaTeX documents: plain text escaped for LaTeX (statements, references) and a
step's one-line note with its ASCII math (``alpha_1 -> inf``) as prose with inline math."""
from __future__ import annotations

import re


def _tex_text(text: str) -> str:
    """Plain text (statements, references) escaped for LaTeX."""
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "|": r"$|$", "<": r"$<$", ">": r"$>$"}
    out = []
    for ch in text:
        if ch in repl:
            out.append(repl[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append(UNICODE_TEXT.get(ch, "?"))
    return "".join(out)


#: the non-ASCII characters statements use, as LaTeX (text mode)
UNICODE_TEXT = {
    "≤": r"$\le$", "≥": r"$\ge$", "≈": r"$\approx$", "→": r"$\to$", "×": r"$\times$", "±": r"$\pm$",
    "−": "-", "–": "--", "—": "---", "…": r"\ldots{}", "·": r"$\cdot$", "∞": r"$\infty$", "√": r"$\surd$",
    "‖": r"$\|$", "⟂": r"$\perp$", "²": r"$^2$", "³": r"$^3$", "≍": r"$\asymp$", "∝": r"$\propto$",
    "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$", "δ": r"$\delta$", "ε": r"$\varepsilon$",
    "η": r"$\eta$", "θ": r"$\theta$", "κ": r"$\kappa$", "λ": r"$\lambda$", "μ": r"$\mu$", "ν": r"$\nu$",
    "ξ": r"$\xi$", "π": r"$\pi$", "ρ": r"$\rho$", "σ": r"$\sigma$", "φ": r"$\phi$", "ψ": r"$\psi$",
    "ö": r"\"o", "é": r"\'e", "ω": r"$\omega$", "Φ": r"$\Phi$", "Σ": r"$\Sigma$", "Δ": r"$\Delta$", "∈": r"$\in$", "≠": r"$\ne$",
    "§": r"\S{}", "⁻": r"$^-$", "¹": r"$^1$", "⁰": r"$^0$", "′": "'", "“": "``", "”": "''", "’": "'",
}


_GREEK_WORDS = {"alpha", "beta", "gamma", "delta", "epsilon", "eta", "theta", "kappa", "lambda", "mu", "nu",
                "xi", "rho", "sigma", "tau", "phi", "psi", "omega", "zeta", "Phi", "Sigma", "Delta"}
#: words of ASCII math that are operators or functions, as LaTeX
_FUNCS = {"sqrt": r"\sqrt", "log": r"\log", "exp": r"\exp", "sup": r"\sup", "max": r"\max", "min": r"\min",
          "sum": r"\sum", "tanh": r"\tanh", "cos": r"\cos", "sin": r"\sin", "KL": r"\mathrm{KL}", "yhat": r"\hat{y}"}
#: short English words that stay text inside a note (any other word of three letters or fewer
#: written next to math is a product of symbols, ``xy``)
_TEXT_WORDS = {"of", "on", "in", "at", "is", "to", "by", "as", "an", "or", "if", "be", "it", "no", "we", "so", "up",
               "the", "and", "for", "are", "its", "per", "sd", "not", "all", "any", "one", "two", "via", "see",
               "has", "eq", "vs", "etc", "Eq", "Fig", "Thm", "Cor", "Prop", "A"}
_NOTE_TOKEN = re.compile(r"""
   (?P<word>[A-Za-z]+\d*(?:_(?:\{[^{}]*\}|[A-Za-z0-9]+|\+))*'*)
  |(?P<num>\d+(?:\.\d+)?)
  |(?P<op>->|>=|<=|!=|\^(?:\{[^{}]*\}|\([^()]*\)|-?[A-Za-z0-9*+]+)|_(?:\{[^{}]*\}|[A-Za-z0-9+\-]+)
      |[=+\-*/|()\[\]<>,;:])
  |(?P<space>\s+)
  |(?P<other>.)""", re.DOTALL | re.VERBOSE)
_STRONG_OPS = {"=", "+", "-", "*", "/", "|", "<", ">", "->", ">=", "<=", "!="}
_RELATIONS = {"->": r"\to", ">=": r"\ge", "<=": r"\le", "!=": r"\ne"}


def _split_word(word: str):
    """``alpha0_q_hat'`` -> ("alpha", "0", ["q", "hat"], "'")."""
    m = re.fullmatch(r"([A-Za-z]+?)(\d*)((?:_(?:\{[^{}]*\}|[A-Za-z0-9]+|\+))*)('*)", word)
    base, digits, subs, primes = m.groups()
    return base, digits, [x.strip("{}") for x in re.findall(r"_(\{[^{}]*\}|[A-Za-z0-9]+|\+)", subs)], primes


def _is_math_word(word: str) -> tuple[bool, bool]:
    """(math, strong): whether a word of a note is a symbol, and whether it alone makes a span
    math (a Greek letter, a function, a subscript or an index digit; a lone letter is weak)."""
    base, digits, subs, primes = _split_word(word)
    if base in _GREEK_WORDS or base in _FUNCS or base in ("pi", "inf", "E", "O") or base.endswith("hat") and len(base) == 4:
        return True, base not in ("E", "O") or bool(digits or subs)
    if word in _TEXT_WORDS:
        return False, False
    if len(base) == 1:
        return True, bool(digits or subs or primes)
    if len(base) <= 3 and base.islower():
        return True, bool(digits or subs or primes)
    return False, False


def _sub_tex(x: str) -> str:
    if x in ("inf", "oo"):
        return r"\infty"
    if x in _GREEK_WORDS:
        return "\\" + x
    return x if len(x) <= 1 or x.isdigit() or x.startswith("\\") else f"\\mathrm{{{x}}}"


#: ASCII spellings of symbols: ``lam`` is lambda, ``sigma2`` the variance sigma^2
_ALIASES = {"lam": "lambda"}


def _word_tex(word: str, nxt: str | None) -> str:
    base, digits, subs, primes = _split_word(word)
    base = _ALIASES.get(base, base)
    if base == "sigma" and digits == "2" and not subs:
        return r"\sigma^{2}" + primes
    if subs and subs[0] == "hat":  # y_hat_i: \hat{y}_{i}
        hat, subs = True, subs[1:]
    else:
        hat = base.endswith("hat") and len(base) == 4
        base = base[0] if hat else base
    if base == "pi":
        atom, subs = r"\pi_{+}", [s for s in subs if s != "+"]
    elif base == "inf":
        atom = r"\inf" if subs else r"\infty"
    elif base == "E" and nxt == "[":
        atom = r"\mathbb{E}"
    elif base == "l" and primes:
        atom = r"\ell"
    elif base in _GREEK_WORDS:
        atom = "\\" + base
    elif base in _FUNCS:
        atom = _FUNCS[base]
    else:
        atom = base
    if hat:
        atom = f"\\hat{{{atom}}}"
    if digits and len(subs) == 1 and len(subs[0]) == 1:  # an h-moment h1_p: h_{1p}
        sub = digits + subs[0]
    else:
        sub = ",".join(([digits] if digits else []) + [_sub_tex(x) for x in subs])
    return atom + (f"_{{{sub}}}" if sub else "") + primes


def _sup_tex(op: str) -> str:
    x = op[1:]  # q^(2) keeps its parentheses: the superscript (2)
    if x.startswith("{"):
        x = x[1:-1]
    return "^{" + (r"\infty" if x in ("inf", "oo") else "*" if x == "*" else x) + "}"


def _math_tex(tokens: list) -> str:
    """A span of a note's tokens ``(kind, text)`` as LaTeX math."""
    out, k = [], 0
    while k < len(tokens):
        kind, text = tokens[k]
        nxt = tokens[k + 1][1] if k + 1 < len(tokens) else None
        if kind == "word" and text == "sqrt" and nxt == "(":
            depth, j = 0, k + 1
            while j < len(tokens):
                depth += {"(": 1, ")": -1}.get(tokens[j][1], 0)
                if depth == 0:
                    break
                j += 1
            out.append(r"\sqrt{" + _math_tex(tokens[k + 2:j]) + "}")
            k = j + 1
            continue
        if kind == "word":
            out.append(_word_tex(text, nxt))
        elif kind == "op" and text.startswith("^"):
            out.append(_sup_tex(text))
        elif kind == "op" and text.startswith("_"):
            out.append("_{" + ",".join(_sub_tex(x) for x in [text[1:].strip("{}")]) + "}")
        elif kind == "op" and text == "*":
            prev = tokens[k - 1][0] if k else None  # alpha* is a superscript, a * b a product
            out.append("^{*}" if prev in ("word", "op") and (nxt is None or tokens[k + 1][0] != "word") else r"\cdot ")
        elif kind == "op":
            out.append(_RELATIONS.get(text, text))
        elif kind == "space":
            out.append(" ")
        else:
            out.append(text)
        k += 1
    return "".join(out).strip()


def _balanced(tokens: list) -> list:
    """``tokens`` without the unmatched brackets at its ends and the signs and punctuation that
    cannot end or start a formula."""
    while tokens:
        first, last = tokens[0][1], tokens[-1][1]
        text = [t for _, t in tokens]
        if tokens[-1][0] == "space" or last in (",", ";", ":", "(", "[", "=", "+", "-", "/"):
            tokens = tokens[:-1]
        elif tokens[0][0] == "space" or first in (",", ";", ":", ")", "]", "=", "+", "*", "/"):
            tokens = tokens[1:]
        elif (first == "(" and text.count("(") > text.count(")")) or (first == "[" and text.count("[") > text.count("]")):
            tokens = tokens[1:]
        elif (last == ")" and text.count(")") > text.count("(")) or (last == "]" and text.count("]") > text.count("[")):
            tokens = tokens[:-1]
        else:
            break
    return tokens


def note_tex(text: str) -> str:
    """A step's one-line note, or a title or reference (plain text with ASCII math: ``alpha_1 ->
    inf``, ``E[l'(yhat;+1)|y=+1]``, ``O(alpha0^-2)``, ``sqrt(2 log L)``) as LaTeX prose with
    inline math (``$\\mathbb{E}[\\ell'(\\hat{y};+1)|y=+1]$``): each run of symbols, numbers and
    operators that holds a Greek letter, a function, an index or an operator becomes one
    formula; words stay text, escaped.  ``tests/test_latex.py`` reads the whole document for
    ASCII glosses left over."""
    toks = [(m.lastgroup, m.group()) for m in _NOTE_TOKEN.finditer(text)]
    out, k = [], 0
    while k < len(toks):
        kind, tok = toks[k]
        mathy = kind in ("num", "op") or (kind == "word" and _is_math_word(tok)[0])
        if not mathy:
            out.append(_tex_text(tok))
            k += 1
            continue
        j, depth = k, 0
        while j < len(toks) and (toks[j][0] in ("num", "op", "space") or
                                 (toks[j][0] == "word" and _is_math_word(toks[j][1])[0])):
            t = toks[j][1]
            depth += (t in "([") - (t in ")]") if len(t) == 1 else 0
            if depth <= 0 and t in (",", ";") and j + 1 < len(toks) and toks[j + 1][0] == "space":
                break  # a list of formulas, or a formula and the text after it
            j += 1
        if j == k:
            out.append(_tex_text(tok))
            k += 1
            continue
        span = toks[k:j]
        core = _balanced(span)
        strong = any((t[0] == "op" and (t[1] in _STRONG_OPS or t[1][0] in "^_")) or
                     (t[0] == "word" and _is_math_word(t[1])[1]) for t in core)
        # numbers alone are text unless related (steps 1-2, Lemma 4.1, 1/2 stay text; n >= 3 is math)
        words = any(t[0] == "word" for t in core)
        related = any(t[0] == "op" and (t[1] in ("=", "<", ">") or t[1] in _RELATIONS or t[1][0] == "^") for t in core)
        if core and strong and (words or related) and any(t[0] in ("word", "num") for t in core):
            a = next(i for i in range(len(span)) if span[i:i + len(core)] == core)
            out.append("".join(_tex_text(t) for _, t in span[:a]))
            out.append(f"${_math_tex(core)}$")
            out.append("".join(_tex_text(t) for _, t in span[a + len(core):]))
        else:
            out.append("".join(_tex_text(t) for _, t in span))
        k = j
    return "".join(out)
