"""``attncheck latex``, ``report``, ``sweep``, ``figure``, ``bench``: what the checks produce."""
from __future__ import annotations

import sys

import click

from numerics import request as Q
from numerics.cli.app import (Integer, OneOf, _bench_help, _check_cost, _check_output, _claims_files, _dumps, _fail,
                              _figures_help, _limits, _Listed, _mode, _probe_write, _select, dps_option, main,
                              mode_options, parse_assignments, registry, requested, seed_option)
from numerics.core.params import ParameterError


@main.command(short_help="The LaTeX of the claims' derivations, each step once.")
@click.argument("ids", nargs=-1)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="the .tex file, or a .pdf typeset by pdflatex (as many passes as its references "
                   "need) (default: the .tex on standard output)")
@click.option("--body", is_flag=True, help="only the sections, for \\input into your own document")
@click.option("--snippets", "snippets", type=click.Path(file_okay=False), default=None,
              help="write one file per claim into this folder (ID.tex)")
@click.option("--certified", is_flag=True,
              help="add the certified digits (ball arithmetic) of each certifiable claim at its defaults")
@_claims_files
def latex(ids, output, body, snippets, certified):
    """The LaTeX of the claims as an appendix: each paper, its claims in the paper's order, each
    a statement (theorem-like) then its derivation as the chain of its named steps, headed by
    their descriptions; a standalone document (amsmath, amssymb, amsthm) unless --body; each
    step printed once, labelled by its name (a claim's statement: claim-id:statement), later
    uses referring to it by number.

    \b
    attncheck latex A.thm3 -o alignment.pdf        # typeset: pdflatex run until no ?? is left
    attncheck latex A.thm3 -o alignment.tex && pdflatex alignment.tex && pdflatex alignment.tex
    attncheck latex B --body -o paper_b_body.tex
    attncheck latex --snippets eqs/
    attncheck latex A.thm3.q2_cosine --certified -o cos.tex

    Defaults: every claim, a standalone document on standard output, no certified digits."""
    import os

    with requested():
        Q.known(ids)  # from the index, before the printer and the claims are imported
    if output:
        _check_output(output, (".tex", ".pdf"))
        if output.lower().endswith(".pdf") and body:
            _fail("--body writes sections for \\input, not a document: give -o FILE.tex")
        if output.lower().endswith(".pdf"):
            from numerics.report_latex import pdflatex

            if pdflatex() is None:
                _fail("a PDF needs pdflatex: apt-get install texlive-latex-base texlive-latex-recommended "
                      "texlive-fonts-recommended (or -o FILE.tex)")
    from numerics.latex import claim_section, claims_latex

    chosen = _select(ids)
    if snippets:
        if not os.path.isdir(snippets):
            try:
                os.makedirs(snippets)
            except OSError as e:
                _fail(f"--snippets {snippets!r}: cannot create the folder ({e.strerror or e})")
        for claim in chosen:
            with open(os.path.join(snippets, f"{claim.id}.tex"), "w") as fh:
                fh.write(claim_section(claim, certified=certified))
        click.echo(f"wrote {len(chosen)} snippets to {snippets}", err=True)
        if not output:
            return
    text = claims_latex(chosen, standalone=not body, certified=certified)
    if output and output.lower().endswith(".pdf"):
        from numerics.report_latex import typeset

        try:
            passes = typeset(text, output)
        except (RuntimeError, OSError) as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(1)
        click.echo(f"wrote {output} (pdflatex, {passes} passes)", err=True)
    elif output:
        try:
            with open(output, "w") as fh:
                fh.write(text)
        except OSError as e:
            _fail(f"-o/--output {output!r}: cannot write ({e.strerror or e})")
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


def _claim_progress(total: int, label: str):
    """Per-claim progress on stderr, told before the claim's work what it reuses and what it
    computes (``report [3/12] B.kl.bound: verdict cached; power cached``): a bar showing that
    text on a terminal, else one plain line per claim, so a log or a pipe shows how far it got."""
    import contextlib

    if sys.stderr.isatty():
        @contextlib.contextmanager
        def bar_progress():
            with click.progressbar(length=total, label=label, file=sys.stderr,
                                   item_show_func=lambda text: text) as bar:
                yield lambda claim, note="": bar.update(1, f"{claim.id}: {note}" if note else claim.id)
        return bar_progress()
    done = [0]

    def line(claim, note=""):
        done[0] += 1
        click.echo(f"{label} [{done[0]}/{total}] {claim.id}{': ' + note if note else ''}", err=True)
    return contextlib.nullcontext(line)


@main.command(short_help="A verification report: HTML and/or PDF from one computation.")
@click.argument("ids", nargs=-1)
@click.option("-o", "--output", "outputs", multiple=True, required=True,
              help="a report file, .html or .pdf; repeatable: every format from one computation")
@click.option("--pdf", "as_pdf", is_flag=True, help="also write the PDF next to the .html, same name")
@click.option("--pdf-engine", type=OneOf(["latex", "chromium"]), default="latex", show_default=True,
              help="typeset the PDF with pdflatex, or print the HTML with headless Chromium")
@mode_options
@seed_option
@click.option("--no-power", is_flag=True, help="leave out the structural-mutant runs (default: run them)")
@click.option("--no-figures", is_flag=True, help="leave out the figures (default: draw them)")
@click.option("--automatic-mutants", "automatic", is_flag=True,
              help="run `attncheck mutate` (its default sample) for the claims with no recorded result; minutes "
                   "per claim (default: show the recorded results, and say how to record the missing ones)")
@click.option("--no-cache", is_flag=True, help="recompute every claim, mutant and figure (default: reuse the "
                                                "verdict cache)")
@_claims_files
def report(ids, outputs, as_pdf, pdf_engine, quick, full, seed, no_power, no_figures, automatic, no_cache):
    """A self-contained HTML verification report (works offline; math as MathML), and/or its PDF.

    \b
    attncheck report B -o paper_b.html -o paper_b.pdf   # both from one computation
    attncheck report B -o paper_b.html --pdf            # the same: paper_b.pdf next to it
    attncheck report A.thm3 --no-figures -o thm3.pdf

    Defaults: every claim, quick sizes, seed 20260429, mutation power and figures included, the
    verdict cache read and written (a report of cached verdicts, mutants and figures takes
    seconds), PDF typeset by pdflatex.

    Per claim: statement, status, equations, the verdict table, the mutation power, the
    automatic mutants of every step as `attncheck mutate` recorded them, its figure (each figure
    once), and the provenance of the run as a table. The PDF is the same
    content typeset by pdflatex (Debian packages texlive-latex-base, texlive-latex-recommended,
    texlive-fonts-recommended), or with --pdf-engine chromium the HTML printed by headless
    Chromium (Debian package chromium; run without network access, in a fresh profile)."""
    import os

    with requested():
        Q.known(ids)  # from the index, before the report and the claims are imported
    from numerics import report as R
    from numerics import report_latex as RL
    from numerics.report_content import collect

    for path in outputs:
        _check_output(path, (".html", ".htm", ".pdf"))
    htmls = [p for p in outputs if not p.lower().endswith(".pdf")]
    pdfs = [p for p in outputs if p.lower().endswith(".pdf")]
    if as_pdf:
        pdfs += [os.path.splitext(h)[0] + ".pdf" for h in htmls if os.path.splitext(h)[0] + ".pdf" not in pdfs]
    if pdfs and pdf_engine == "chromium" and R.chromium() is None:
        _fail("a PDF report needs headless Chromium: apt-get install chromium")
    if pdfs and pdf_engine == "latex" and RL.pdflatex() is None:
        _fail("a PDF report needs pdflatex: apt-get install texlive-latex-base texlive-latex-recommended "
              "texlive-fonts-recommended (or --pdf-engine chromium)")
    for path in htmls + pdfs:
        _probe_write(path)
    with requested():
        settings = Q.settings(_mode(quick, full), seed)
    from numerics.latex import paper_order

    chosen = paper_order(_select(ids))  # as the papers state them (each step shown where it is first derived)
    with _claim_progress(len(chosen), "report") as progress:
        entries, prov = collect(chosen, settings, with_power=not no_power, with_figures=not no_figures,
                                  use_cache=not no_cache, with_automatic=automatic, progress=progress)
    text = R.html_page(entries, prov, settings, not no_cache)
    for path in htmls:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        click.echo(f"wrote {path}", err=True)
    for pdf in pdfs:
        try:
            if pdf_engine == "latex":
                RL.to_latex_pdf(entries, prov, settings, pdf, use_cache=not no_cache)
            else:
                R.to_pdf(text, pdf)
        except (RuntimeError, OSError) as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(1)
        click.echo(f"wrote {pdf}", err=True)


@main.command(short_help="A claim's theory values or a problem's solve over a grid.")
@click.argument("target")
@click.option("--grid", "grid_items", multiple=True, required=True,
              help="name=start:stop:num or name=v1,v2,... (repeatable: the Cartesian product)")
@click.option("--param", "params", multiple=True, help="fixed k=v (repeatable)")
@click.option("--model", default=None, help="problem option (sweeps of a problem)")
@click.option("--loss", default=None, help="problem option (sweeps of a problem)")
@dps_option
@click.option("--workers", type=Integer(1, Q.MAX_WORKERS), default=1, show_default=True)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="'local' or tcp://host:port (dask)")
@click.option("--format", "fmt", type=OneOf(["parquet", "csv"]), default="parquet", show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True)
@_limits
@_claims_files
def sweep(target, grid_items, params, model, loss, dps, workers, scheduler, fmt, out_dir):
    """A claim's theory values (``eval``) or a problem's solve over a grid.

    \b
    attncheck sweep A.thm3.q2_cosine --grid alpha0=0.5:8:16 --out sweeps/cos
    attncheck sweep sparse-token --model pool --grid alpha1=1,2,4 --param lam=0.01 --out sweeps/pool
    attncheck figure --from sweeps/cos -o cos.png

    Points are content-addressed files written atomically: a killed sweep, restarted, computes
    only the missing points. A point whose closed form raised or whose solve did not converge
    has no values; the sweep then exits 1 naming it (a rerun retries it). Defaults: 30 digits,
    one worker, in process, parquet."""
    import os

    from numerics import sweep as SW

    with requested():
        grid = SW.parse_grid(grid_items)
        fixed = parse_assignments(params)
        if os.path.exists(out_dir) and not os.path.isdir(out_dir):
            raise ParameterError(f"--out {out_dir!r}: exists and is not a folder")
        plan = Q.plan_sweep(target, grid, fixed, {"model": model, "loss": loss}, dps, workers_=workers,
                            spell=Q.option_name)
    _check_cost(plan.cost)
    try:  # the folder and its missing parents are made, as the API makes them
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        _fail(f"--out {out_dir!r}: cannot create the folder ({e.strerror or e})")
    if not os.access(out_dir, os.W_OK):
        _fail(f"--out {out_dir!r}: the folder is not writable")
    from numerics.cli.progress import Progress

    label, done = f"sweep {target}: points", [0]
    with Progress() as progress:

        def advance(n):
            done[0] += n
            progress(label, done[0], plan.points)

        advance(0)  # the clock starts with the first point
        try:
            prov = SW.run(plan.target, plan.grid, out_dir, dps=dps, workers=workers, scheduler=scheduler, fmt=fmt,
                          progress=advance)
        except ParameterError as e:
            _fail(str(e))
    click.echo(f"wrote {prov['points']} points ({prov['computed']} computed, {prov['reused']} reused) "
               f"to {os.path.join(out_dir, prov['table'])}", err=True)
    if prov["errors"]:  # a point without values is an error of the sweep (listed in provenance.json)
        for e in prov["errors"][:5]:
            at = ", ".join(f"{k}={v}" for k, v in e["grid_point"].items())
            click.echo(f"ERROR at {at}: {e['error']}", err=True)
        more = " (the first 5 above)" if len(prov["errors"]) > 5 else ""
        click.echo(f"error: {len(prov['errors'])} of {prov['points']} points have no values{more}; "
                   f"a rerun retries them; each is in {os.path.join(out_dir, 'provenance.json')}", err=True)
        sys.exit(1)


@main.command(cls=_Listed, lister=_figures_help, short_help="Reproduce a paper's figure (theory lines and simulations).")
@click.argument("figure_id", required=False)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), required=True,
              help="the image file: .png, .pdf or .svg")
@click.option("--from", "from_dir", type=click.Path(file_okay=False), default=None,
              help="draw a finished sweep (attncheck sweep --out DIR) instead of a paper figure")
@mode_options
@seed_option
def figure(figure_id, output, from_dir, quick, full, seed):
    """Reproduce a figure of a paper (theory lines + simulation points), or draw a sweep.
    The format follows the suffix of -o: .png, .pdf or .svg.

    \b
    attncheck figure A.thm3.fig -o alignment.png
    attncheck figure A.fig1 --full -o fig1.pdf
    attncheck figure --from sweeps/cos -o cos.png

    Defaults: quick sizes, seed 20260429. Error bars are ±2 se of the simulation mean in every
    figure (B.fig1: the interquartile range over seeds, as its caption says)."""
    if not figure_id and not from_dir:
        _fail(f"figure: give a FIGURE_ID or --from DIR; figures: {', '.join(registry.figures())}")
    _check_output(output, (".png", ".pdf", ".svg"))
    _probe_write(output)
    if from_dir:
        from numerics.figures.sweep_plot import draw_sweep

        try:
            draw_sweep(from_dir, output)
        except (OSError, KeyError, ValueError) as e:
            _fail(f"--from {from_dir!r}: not a finished sweep folder ({e})")
        click.echo(f"wrote {output}", err=True)
        return
    with requested():
        draw = Q.figure_fn(figure_id)
    with requested():
        settings = Q.settings(_mode(quick, full), seed)

    def progress(iterable, label):
        items = list(iterable)
        with click.progressbar(items, label=label, file=sys.stderr) as bar:
            yield from bar

    draw(output, settings, progress)
    click.echo(f"wrote {output}", err=True)


@main.command(cls=_Listed, lister=_bench_help, short_help="Benchmarks: ratios against a baseline in the same run.")
@click.argument("names", nargs=-1)
@click.option("--quick", is_flag=True, help="smaller problem sizes")
@click.option("--json", "as_json", is_flag=True, help="one JSON record per benchmark")
def bench(names, quick, as_json):
    """Benchmarks (ratios against a baseline run in the same process); all of them without NAMES.

    \b
    attncheck bench --quick
    attncheck bench eval.dps start.cheap --json

    Defaults: every benchmark, the papers' sizes, a table on standard output."""
    table = registry.benchmarks()
    for n in names:
        if n not in table:
            _fail(f"unknown benchmark {n!r}; known: {', '.join(table) or 'none'}")
    import platform

    machine = {"platform": platform.platform(), "cpus": __import__("os").cpu_count(),
               "python": platform.python_version(),
               # the ratios are of one run; the load says how shared the machine was while it ran
               "load_average": [round(x, 1) for x in __import__("os").getloadavg()]}
    settings = Q.settings("quick" if quick else "full")
    from numerics.cli.progress import Progress
    from numerics.core.tasks import reporting

    chosen = list(names or table)
    with Progress() as progress, reporting(progress):  # per benchmark, and the loops inside one
        for i, name in enumerate(chosen):
            machine["load_average"] = [round(x, 1) for x in __import__("os").getloadavg()]
            if not as_json:
                progress.line(f"running benchmark {name} [{i + 1}/{len(chosen)}] (load average "
                              f"{machine['load_average'][0]}) ...")
            progress("benchmarks", i, len(chosen))
            report = table[name](settings)
            _bench_table(name, report, machine, as_json)
        progress("benchmarks", len(chosen), len(chosen))


def _bench_table(name: str, report: dict, machine: dict, as_json: bool) -> None:
    if as_json:
        click.echo(_dumps({"schema": "attncheck.bench/1", "name": name, "machine": machine, **report}))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=name, show_header=True, header_style="bold", title_justify="left")
    t.add_column("measure", no_wrap=True)
    t.add_column("value", overflow="fold")
    for k, v in report.items():
        t.add_row(str(k), f"{v:.4g}" if isinstance(v, float) else str(v))
    Console(width=None if sys.stdout.isatty() else 120).print(t)
