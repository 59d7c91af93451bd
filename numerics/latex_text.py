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
_NOTE_TOKEN = re.compile(r"[A-Za-z]+\d*(?:_\{?[A-Za-z0-9+\-]+\}?)?(?:\^\{?[A-Za-z0-9+\-*]+\}?)?|->|>=|<=|!=|.", re.S)
_NOTE_OPS = {"->": r"\to", ">=": r"\ge", "<=": r"\le", "!=": r"\ne"}


def _note_atom(word: str) -> str:
    if word in ("pi", "pi_+"):
        return r"\pi_{+}"
    if word in ("inf", "oo"):
        return r"\infty"
    return f"\\{word}" if word in _GREEK_WORDS else word


def note_tex(text: str) -> str:
    """A step's one-line note (plain text with ASCII math: ``alpha_1 -> inf``, ``pi``,
    ``sigma^2``) as LaTeX prose with inline math (``$\\alpha_{1} \\to \\infty$``): Greek names,
    the prior, sub- and superscripts and the relations ``-> >= <= !=`` become math; the rest
    is text, escaped."""
    out = []
    for tok in _NOTE_TOKEN.findall(text):
        m = re.fullmatch(r"([A-Za-z]+\d*)(?:_\{?([A-Za-z0-9+\-]+)\}?)?(?:\^\{?([A-Za-z0-9+\-*]+)\}?)?", tok)
        if tok in _NOTE_OPS:
            out.append(f"${_NOTE_OPS[tok]}$")
        elif m and (m.group(2) or m.group(3) or m.group(1) in _GREEK_WORDS | {"pi", "inf", "oo"}):
            base, sub, sup = m.groups()
            moment = re.fullmatch(r"([A-Za-z])(\d+)", base)
            if base == "pi" and sub == "+":
                sub = None
            if moment and sub:  # an h-moment h1_p: h_{1p}
                atom, sub = moment.group(1), moment.group(2) + sub
            elif base in ("inf", "sup", "min", "max") and sub:
                atom = f"\\{base}"
            else:
                atom = _note_atom(base)
            if len(base) > 1 and not atom.startswith("\\") and not moment:
                atom = f"\\mathrm{{{base}}}"
            sub = _note_atom(sub) if sub else sub
            sub_t = f"_{{{sub}}}" if sub else ""
            sup_t = f"^{{{sup}}}" if sup else ""
            out.append(f"${atom}{sub_t}{sup_t}$")
        else:
            out.append(_tex_text(tok))
    return re.sub(r"\$\s*\$", " ", "".join(out)).replace("$ $", " ")
