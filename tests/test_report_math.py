"""The HTML report's math for every claim, rendered by headless Chromium: the visible text holds
no LaTeX source (no backslash, ``frac`` or ``mathrm``), every formula is laid out, and no
equation is clipped (a wide one scrolls inside its box)."""
import html
import re
import shutil
import subprocess

import pytest

from numerics import registry
from numerics.latex import Document, title
from numerics.report import CSS
from numerics.report_math import _equations_html, _statement_html, _statement_prose_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# after load: what a reader sees (body text), and the formulas that are cut off
PROBE = """
window.addEventListener('load',function(){var m=document.getElementsByTagName('math'),bad=[],ok=0;
for(var i=0;i<m.length;i++){var r=m[i].getBoundingClientRect();if(r.width>0){ok++;}
 var s=getComputedStyle(m[i]);var wide=m[i].scrollWidth>m[i].clientWidth+1;
 var p=m[i].closest('.eq');var pr=p?p.getBoundingClientRect():null;
 if((wide&&s.overflowX!=='auto'&&s.overflowX!=='scroll')||(pr&&r.right>pr.right+1&&s.overflowX!=='auto')){bad.push(i);}}
var t=document.body.innerText,leaks=[];['\\\\','frac','mathrm'].forEach(function(w){var k=t.indexOf(w);
 if(k>=0){leaks.push(t.substring(Math.max(0,k-60),k+40));}});
var out=document.getElementById('probe');out.textContent=JSON.stringify({total:m.length,rendered:ok,
 clipped:bad.length,leaks:leaks});});
"""


def _page() -> str:
    doc, parts = Document(), []
    for claim in registry.claims().values():
        parts += [f"<h2>{html.escape(title(claim))}</h2>", _statement_prose_html(claim), _statement_html(claim)]
        parts += _equations_html(claim, doc)
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><style>{CSS}</style>"
            f"<script>{PROBE}</script></head><body>{''.join(parts)}<pre id='probe'></pre></body></html>")


@pytest.mark.skipif(CHROMIUM is None, reason="needs headless Chromium: apt-get install chromium")
def test_every_claims_math_renders_without_latex_source_or_clipping(tmp_path):
    import json

    page = tmp_path / "math.html"
    page.write_text(_page(), encoding="utf-8")
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000",
             f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1000,1200"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=300)
    probe = re.search(r"<pre id=\"probe\">(.*?)</pre>", dom.stdout, re.S)
    assert probe and probe.group(1), dom.stderr[-2000:]
    result = json.loads(html.unescape(probe.group(1)))
    assert result["total"] > 100 and result["rendered"] == result["total"], result
    assert not result["leaks"], f"LaTeX source in the rendered text: {result['leaks'][:5]}"
    assert result["clipped"] == 0, result
