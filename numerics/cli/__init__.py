"""The ``attncheck`` command line: a thin click shell over the request layer (numerics.request).

    attncheck list [--json]
    attncheck verify [IDS...] [--quick|--full] [--json] [--seed N] [--mutate REL] [--power] [-v]
    attncheck verify ID --param k=v ...
    attncheck eval ID --param k=v ... [--dps N] [--json] [--certify] | attncheck eval ID --list-params
    attncheck latex [IDS...] [-o FILE] [--body | --snippets DIR] [--certified]
    attncheck report [IDS...] -o FILE.html [--pdf] | -o FILE.pdf [--pdf-engine latex|chromium]
    attncheck solve PROBLEM [--model M] [--loss L] --param k=v ... [--dps N] [--json]
    attncheck sweep TARGET --grid name=start:stop:num ... --out DIR
    attncheck figure ID -o FILE.png|.pdf|.svg [--quick|--full] [--seed N]
    attncheck bench [NAMES...] [--quick]
    attncheck mutate [IDS...] [--quick|--full] [--json] [--sample N] [--all] [--sample-seed N] [--workers N]
    attncheck [--max-memory SIZE] [--max-time DURATION] COMMAND ...   (also per command)

Exit codes: 0 success (verify: every selected claim passed; with --mutate: every one was
rejected), 1 a check failed / a solve did not converge, 2 bad usage or bad parameters.
The JSON schema is documented in docs/cli.md.

Modules: ``app`` (the group, one-line errors, shared options), ``verify`` (list, verify,
cache), ``evaluate`` (eval, solve), ``outputs`` (latex, report, sweep, figure, bench), ``mutate`` (automatic mutants).
"""
from __future__ import annotations

from numerics.cli.app import DEFAULT_SEED, main  # noqa: F401
from numerics.cli import evaluate, explore, mutate, outputs, verify  # noqa: F401,E402  (registers the subcommands)

__all__ = ["main", "DEFAULT_SEED"]
