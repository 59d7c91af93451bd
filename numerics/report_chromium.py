"""The report's PDF printed from its HTML by headless Chromium (``report --pdf-engine chromium``)."""
from __future__ import annotations

import os
import tempfile

# --- PDF: the HTML printed by headless Chromium ---------------------------------------------------
#: the flags that keep Chromium headless, off the network and out of the user's profile
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
                  "--disable-default-apps", "--no-pdf-header-footer", "--virtual-time-budget=10000")


def chromium() -> str | None:
    """The headless Chromium executable (Debian package ``chromium``), or None."""
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser")


def to_pdf(page: str, pdf_path: str, *, timeout: float = 300.0) -> None:
    """Print the report's HTML ``page`` to ``pdf_path`` with headless Chromium, in a fresh profile
    folder; raise RuntimeError if Chromium is missing or writes no PDF."""
    import shutil
    import subprocess

    exe = chromium()
    if exe is None:
        raise RuntimeError("headless Chromium is needed for a PDF: apt-get install chromium")
    work = tempfile.mkdtemp(prefix="attncheck-pdf-")
    try:
        src = os.path.join(work, "report.html")
        with open(src, "w", encoding="utf-8") as fh:
            fh.write(page)
        out = os.path.join(work, "report.pdf")
        run = subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={os.path.join(work, 'profile')}",
                              f"--print-to-pdf={out}", "file://" + src],
                             capture_output=True, text=True, timeout=timeout)
        if not os.path.exists(out) or os.path.getsize(out) == 0:
            tail = (run.stderr or "").strip().splitlines()[-1:] or [f"exit {run.returncode}"]
            raise RuntimeError(f"chromium wrote no PDF ({tail[0][:200]})")
        shutil.move(out, pdf_path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
