"""The report's section on a claim's automatic mutants (``attncheck mutate``, docs/mutate.md).

The report reads the results ``attncheck mutate`` records in the verdict cache's folder
(:func:`numerics.claims.mutate.recorded`: every mutant or the default sample, at the report's
settings); it computes the missing ones only when asked (``report --automatic-mutants``: the
default sample of each claim, minutes per claim, hours for a claim whose theory is a slow
solve).  A claim with nothing recorded says so and how to record it.  Per claim: the score with
its 95 % interval, the counts per status, per step, and each survivor as a reviewer says it,
with its mutated step printed by the project's one printer (``derivations.core.latex``, the
string the result holds) as MathML in the HTML and as math in the PDF.
"""
from __future__ import annotations

import html

#: the counts of the tables, in order: (status, column heading in the HTML, in the PDF)
COLUMNS = (("equivalent", "equivalent", "equiv."), ("not applied", "not applied", "not appl."),
           ("timed out", "timed out", "timed out"), ("below resolution", "below resolution", "below res."),
           ("killed", "killed", "killed"), ("survived", "survived", "surv."))
#: the longest mutated step the PDF prints (of a longer one: its changed node; the HTML shows the
#: step, folded under the changed node)
TEX_LIMIT = 1500


def find(claim, settings, *, compute: bool, use_cache: bool):
    """The claim's automatic mutants for the report: the recorded result (None: none, or
    ``use_cache`` False), or with ``compute`` the result of ``mutate`` with its default options
    (recorded as ``attncheck mutate`` records it)."""
    from numerics.claims import mutate as mutation

    found = mutation.recorded(claim, settings) if use_cache else None
    if found is None and compute:
        return mutation.mutate(claim, settings, use_cache=use_cache)
    return found


def plan(claim, settings, *, compute: bool, use_cache: bool) -> str:
    """What the report does about the claim's automatic mutants (its progress line)."""
    from numerics.claims import mutate as mutation
    from numerics.core.cache import recorded_times
    from numerics.report_assets import _about

    if use_cache and mutation.recorded(claim, settings) is not None:
        return "automatic mutants recorded"
    if compute:
        return f"automatic mutants: running a sample of up to {mutation.DEFAULT_SAMPLE} " \
               f"({_about(recorded_times(settings.mode).get('mutate:' + claim.id))})"
    return f"automatic mutants not run (attncheck mutate {claim.id})"


def missing_text(claim_id: str, use_cache: bool) -> str:
    """Why a claim shows no automatic mutants, and how to fill them in."""
    how = (f"`attncheck mutate {claim_id}` records them (a sample of 100 mutants, or every one with `--all`, at the "
           f"report's mode and seed); `report --automatic-mutants` runs the missing ones (minutes per claim)")
    return (f"not read: --no-cache ({how})" if not use_cache else f"not run yet at these settings: {how}")


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f} %"


def _interval(k: int, n: int, sampled: bool) -> str:
    from numerics.core.stats import binomial_interval

    if not n:
        return "—"
    if not sampled:
        return _pct(k / n)
    lo, hi = binomial_interval(k, n)
    return f"{_pct(k / n)} ({100 * lo:.1f}–{100 * hi:.1f} %)"


def rows(m) -> list:
    """``[(step, generated, run, {status: n}, score text)]`` per step, then the claim's total."""
    out = []
    steps = m.steps()
    for step in list(m.step_generated) + [s for s in steps if s not in m.step_generated]:
        c = steps.get(step, {})
        k, s = c.get("killed", 0), c.get("survived", 0)
        out.append((step, m.step_generated.get(step), sum(c.values()), c, _interval(k, k + s, m.sampled)))
    c = {st: m.count(st) for st, _, _ in COLUMNS}
    out.append(("all steps", m.generated, len(m.outcomes), c, _interval(c["killed"], m.counted, m.sampled)))
    return out


def _change(x) -> str:
    from numerics.claims.mutate_judge import _percent

    return _percent(x)


def survivor_parts(o, fmt) -> list:
    """A survivor as a reviewer says it, in parts: the step and operator, what it changed, the
    row it moves most and by how much, and the point of the domain where it moves the theory
    most; ``fmt``: (escape text, print an identifier, print a row label) of the format."""
    text, code, label = fmt
    row, row_change = getattr(o, "row", ""), getattr(o, "row_change", None)
    point, point_change = getattr(o, "point", ""), getattr(o, "point_change", None)
    out = [f"{text('step ')}{code(o.step)}{text(', operator ')}{code(o.operator)}",
           text("changed: ") + _spans(o.change, text, code)]
    seen = f" (the rows see {_change(o.resolution)})" if o.resolution is not None else ""
    if row:
        out.append(f"{text('moves row ')}{label(row, getattr(o, 'row_at', None))}"
                   f"{text(f' most, by {_change(row_change)}{seen}')}")
    elif o.largest is not None and o.where.startswith("row"):  # recorded before rows and points were apart
        out.append(_spans(f"moves {o.where} by {_change(o.largest)}{seen}", text, code))
    if point:
        out.append(_spans(f"moves the theory most at {point}, by {_change(point_change)}", text, code))
    elif not row:
        out.append(text("the claim has no parameter domain to evaluate it on"))
    return out


def _spans(said: str, text, code) -> str:
    """Backquoted spans printed as identifiers, the rest as text."""
    return "".join(code(p) if k % 2 else text(p) for k, p in enumerate(said.split("`")))


def _html_fmt():
    from numerics.report_labels import render_label

    return html.escape, lambda s: f"<code>{html.escape(s)}</code>", lambda label, at=None: render_label(label, "html", at)


def _tex_fmt():
    from numerics.latex import _tex_text
    from numerics.report_labels import render_label
    from numerics.report_tables import breakable_tex

    return _tex_text, breakable_tex, lambda label, at=None: render_label(label, "tex", at)


def summary_text(m) -> str:
    """The score line of the section (``numerics.claims.mutate.summary``) and what it compares with."""
    from numerics.claims.mutate import summary

    text = summary(m) + (f"; sample seed {m.sample_seed}" if m.sampled else "")
    if m.hand_written.get("total"):
        text += f"; hand-written mutants: {m.hand_written['killed']} of {m.hand_written['total']} killed"
    return text + ("; recorded by attncheck mutate" if m.cached else f"; computed in {m.elapsed_s:.0f} s")


def score_cell(m) -> str:
    """The summary table's cell: the score, or why there is none."""
    if m is None:
        return "not run"
    if m.error:
        return "ERROR"
    return _pct(m.score) if m.score is not None else "none counted"


def section_html(claim, m, use_cache: bool) -> str:
    """The claim's automatic mutants as HTML (a heading, the score, the table per step, the survivors)."""
    from numerics.report_math import _math

    head = "<h3>Automatic mutants</h3>"
    if m is None:
        return head + f"<p class='note'>{_spans(missing_text(claim.id, use_cache), *_html_fmt()[:2])}</p>"
    if m.error:
        return head + f"<p class='fail'>not run: {html.escape(m.error)}</p>"
    cols = "".join(f"<th>{h}</th>" for _, h, _ in COLUMNS)
    body = "".join(
        f"<tr><td><code>{html.escape(step)}</code></td><td>{'—' if gen is None else gen}</td><td>{run}</td>"
        + "".join(f"<td>{c.get(st, 0)}</td>" for st, _, _ in COLUMNS) + f"<td>{score}</td></tr>"
        for step, gen, run, c, score in rows(m))
    out = [head, f"<p class='note'>{html.escape(summary_text(m))}</p>",
           f"<table class='automatic'><tr><th>step</th><th>generated</th><th>run</th>{cols}"
           f"<th>score{' (95 % interval)' if m.sampled else ''}</th></tr>{body}</table>"]
    for o in m.survivors:
        step = _math(o.latex) or f"<p><code>{html.escape(o.latex)}</code></p>"
        node = getattr(o, "node_latex", "")
        if node and len(o.latex) > TEX_LIMIT:  # a long step: the changed node, the step folded
            step = (f"<p class='note'>the changed part now reads</p>{_math(node) or html.escape(node)}"
                    f"<details><summary class='note'>the mutated step</summary>{step}</details>")
        out.append("<div class='eq survivor'><p class='note'><b class='fail'>survived</b>: "
                   + "; ".join(survivor_parts(o, _html_fmt())) + "</p>" + step + "</div>")
    return "\n".join(out)


def section_tex(claim, m, use_cache: bool) -> str:
    """The claim's automatic mutants in the LaTeX report (the same content as :func:`section_html`)."""
    from numerics.latex import _tex_text as t
    from numerics.report_latex import _heading
    from numerics.report_tables import breakable_tex, longtable

    head = _heading("Automatic mutants")
    if m is None:
        return head + f"{{\\small {_spans(missing_text(claim.id, use_cache), *_tex_fmt()[:2])}}}\\par\n"
    if m.error:
        return head + f"\\textbf{{not run: {t(m.error)}}}\\par\n"
    spec = "L{0.19}R{0.07}R{0.07}" + "R{0.08}" * len(COLUMNS) + "R{0.19}"  # footnotesize, narrow gaps
    table = longtable("step & gen. & run & " + " & ".join(h for _, _, h in COLUMNS) + " & score", spec,
                      [[breakable_tex(step), "--" if gen is None else str(gen), str(run),
                        *(str(c.get(st, 0)) for st, _, _ in COLUMNS), t(score)] for step, gen, run, c, score in rows(m)])
    out = [head, f"{{\\small {t(summary_text(m))}}}\\par\n", f"{{\\footnotesize\\setlength{{\\tabcolsep}}{{3pt}}\n{table}}}\n"]
    for o in m.survivors:
        said = "; ".join(survivor_parts(o, _tex_fmt()))
        node = getattr(o, "node_latex", "")
        math = (f"\\fitmath{{{o.latex}}}\n" if len(o.latex) <= TEX_LIMIT else
                (f"{{\\small the changed part now reads}}\\fitmath{{{node}}}\n" if node and len(node) <= TEX_LIMIT else "")
                + f"{{\\small (the mutated step: {len(o.latex)} characters of LaTeX, in the HTML report)}}\\par\n")
        out.append(f"\\par\\smallskip{{\\small\\textbf{{survived}}: {said}}}\\par\n{math}")
    return "".join(out)
