"""The printed sheets on paper: each printed to PDF by Chromium (A4, Playwright's
`page.pdf`), its pages counted (`pdfinfo`), its text read back (`pdftotext`) and its pages
rasterised (`pdftoppm`, Debian's poppler-utils; `.ci/run` installs it).

Two events: the Donostia round robin (four sections, a withdrawal: one page per sheet)
and a Swiss of 121 players with long real-world names (60 tables, a pairing bye, two
rounds played: sheets of several pages, a crosstable across the page). On every page
nothing may reach into the right margin: the content ends inside the printable width
(the DOM, laid out for print at the paper's width, agrees), no table is wider than the
page, and every table number and player of the sheet is in the PDF's text. The pictures
are kept in $BOARDWIRE_PRINT_OUT (default: a temporary folder) to be looked at.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from PIL import Image

from broadcast.config.model import PlayerEntry
from broadcast.fide.pairing import Pairing
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.service.event_state import PublicState
from broadcast.tournament.tournament_events import PlayersRegistered, ResultRecorded, RoundPaired
from broadcast.tournament.tournament_state import TournamentState
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import ARBITER, service_for
from tests.support import acting
from tests.support.big_event import swiss_config
from tests.support.web_app import CREDENTIALS
from web.app import build_app

MM = 96 / 25.4  # CSS pixels per millimetre
A4 = (210.0, 297.0)
MARGIN_MM = 12.0  # print.css: @page margin left and right (both orientations)
DPI = 50  # enough to see a page; small PNGs

LONG_NAMES = [
    "Rameshbabu, Praggnanandhaa",
    "Vachier-Lagrave, Maxime",
    "Nepomniachtchi, Ian Alexandrovich",
    "Mamedyarov, Shakhriyar Hamid oglu",
    "Gunina, Valentina Evgenyevna",
    "Duda, Jan-Krzysztof",
    "Abdusattorov, Nodirbek",
    "Maghsoodloo, Parham",
    "Etxeberria Goikoetxea, Ane Miren",
    "Zubizarreta Urrutikoetxea, Iñaki",
]
TITLES = ["GM", "IM", "FM", "WGM", "", ""]


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(
            f"{name} is missing: install Debian's poppler-utils (apt-get install -y "
            "poppler-utils; .ci/run does it)",
            pytrace=False,
        )
    return found


def _out() -> Path:
    out = Path(os.environ.get("BOARDWIRE_PRINT_OUT") or tempfile.mkdtemp(prefix="print-sheets-"))
    out.mkdir(parents=True, exist_ok=True)
    return out


def big_swiss(tmp: Path) -> EventService:
    """121 players with long names and titles; rounds 1-3 paired (a pairing bye each
    round), rounds 1 and 2 played."""
    base = swiss_config(121)
    section = base.sections[0]
    players = tuple(
        dataclasses.replace(
            p,
            name=f"{LONG_NAMES[p.number % len(LONG_NAMES)]} {p.number}",
            title=TITLES[p.number % len(TITLES)],
        )
        for p in section.players
    )
    assert all(isinstance(p, PlayerEntry) for p in players)
    config = dataclasses.replace(base, sections=(dataclasses.replace(section, players=players),))
    name = section.name
    tournament = TournamentState.new(config).apply(PlayersRegistered(name, players))
    half = 60
    for r in (1, 2, 3):  # `big_event.paired`'s pairings, and player 121's pairing bye
        pairs = tuple(
            Pairing(b + 1, b + 1, half + (b + r - 1) % half + 1)
            if r % 2
            else Pairing(b + 1, half + (b + r - 1) % half + 1, b + 1)
            for b in range(half)
        )
        tournament = tournament.apply(RoundPaired(name, r, (*pairs, Pairing(0, 121, None)), "test"))
    results = ("1-0", "1/2-1/2", "0-1")
    for r in (1, 2):
        for i, p in enumerate(tournament.section(name).rounds[r].pairings):
            if p.black is not None:
                tournament = tournament.apply(
                    ResultRecorded(name, r, p.white, results[(i + r) % 3])
                )
    service = EventService(
        config, Journal(tmp / "big.sqlite"), time_source=ManualTime(1.8e9), delay=0.0
    )
    service.load()
    service.state = dataclasses.replace(service.state, tournament=tournament)
    service.public.record(1.8e9, PublicState(tournament, service.state.book, service.last_seq))
    return service


def donostia(tmp: Path) -> EventService:
    service, _time = service_for(tmp, "donostia-2009-round-robin.toml", "2009-07-07T12:00:00")
    section = service.config.sections[3].name
    rnd1 = service.tournament.section(section).rounds[1]
    for i, p in enumerate(rnd1.pairings):
        result = ("1-0", "1/2-1/2", "0-1")[i % 3]
        acting.set_result(service, GameKey(section, 1, p.board).id, result, ARBITER)
    acting.withdraw(service, section, rnd1.pairings[0].white, ARBITER, from_round=2)
    return service


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[dict[str, str]]:
    servers = {}
    for name, make in (("donostia", donostia), ("swiss", big_swiss)):
        folder = tmp_path / name
        folder.mkdir()
        server = TestServer(build_app(make(folder), CREDENTIALS))
        await server.start_server()
        servers[name] = server
    try:
        yield {name: str(s.make_url("")).rstrip("/") for name, s in servers.items()}
    finally:
        for s in servers.values():
            await s.close()


# What a sheet lays out for print, at the paper's printable width: the widest right edge of
# anything visible, each table's width, and the texts that must reach the paper.
MEASURE = """() => {
  const out = { right: 0, tables: [], must: [] };
  for (const el of document.querySelectorAll("main *, header.sheet-head *")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.right = Math.max(out.right, r.right);
  }
  for (const t of document.querySelectorAll("table")) {
    out.tables.push({ cls: t.className, width: t.getBoundingClientRect().width, scroll: t.scrollWidth, client: t.clientWidth });
  }
  for (const td of document.querySelectorAll("td.table, td.name")) out.must.push(td.textContent.trim());
  out.doc = document.scrollingElement.scrollWidth;
  return out;
}"""

# (event, path, pages allowed (min, max), across the page)
SHEETS = [
    ("donostia", "/print/round/1/pairings?section=kutxa", (1, 1), False),
    ("donostia", "/print/round/2/pairings?section=kutxa", (1, 1), False),
    ("donostia", "/print/round/1/names?section=kutxa", (1, 1), False),
    ("donostia", "/print/round/1/results?section=kutxa", (1, 1), False),
    ("donostia", "/print/standings?section=kutxa", (1, 1), False),
    ("donostia", "/print/crosstable?section=kutxa", (1, 1), False),
    ("swiss", "/print/round/3/pairings", (2, 3), False),
    ("swiss", "/print/round/3/names", (3, 4), False),
    ("swiss", "/print/round/2/results", (2, 3), False),
    ("swiss", "/print/standings", (3, 4), False),
    ("swiss", "/print/crosstable", (5, 7), True),
    ("swiss", "/print/round/3/pairings?lang=eu", (2, 3), False),
]


def _name(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def _pages(pdf: Path) -> int:
    info = subprocess.run([_tool("pdfinfo"), str(pdf)], capture_output=True, text=True, check=True)
    match = re.search(r"^Pages:\s+(\d+)", info.stdout, re.M)
    assert match is not None, info.stdout
    return int(match.group(1))


def _page_size_mm(pdf: Path) -> tuple[float, float]:
    info = subprocess.run([_tool("pdfinfo"), str(pdf)], capture_output=True, text=True, check=True)
    match = re.search(r"^Page size:\s+([\d.]+) x ([\d.]+) pts", info.stdout, re.M)
    assert match is not None, info.stdout
    return float(match.group(1)) / 72 * 25.4, float(match.group(2)) / 72 * 25.4


def _ink_right_mm(png: Path) -> float:
    """Where the rightmost non-white pixel of a page is, in mm from the left edge."""
    image = Image.open(png).convert("L")
    width, height = image.size
    pixels = image.load()
    assert pixels is not None
    for x in range(width - 1, -1, -1):
        if any(pixels[x, y] < 200 for y in range(0, height, 1)):
            return (x + 1) / DPI * 25.4
    return 0.0


@pytest.mark.parametrize(
    ("event", "path", "pages", "wide"), SHEETS, ids=[_name(s[1]) for s in SHEETS]
)
async def test_every_sheet_prints_on_a4_within_the_margins(
    browser: Any,
    served: dict[str, str],
    event: str,
    path: str,
    pages: tuple[int, int],
    wide: bool,
) -> None:
    out = _out()
    paper_w, paper_h = (A4[1], A4[0]) if wide else A4
    printable_px = (paper_w - 2 * MARGIN_MM) * MM
    context = await browser.new_context(viewport={"width": round(printable_px), "height": 1000})
    page = await context.new_page()
    try:
        answer = await page.goto(served[event] + path)
        assert answer is not None and answer.status == 200, path
        await page.emulate_media(media="print")
        laid = await page.evaluate(MEASURE)
        # Laid out for print at the printable width, nothing goes past it.
        assert laid["right"] <= printable_px + 1, (path, laid["right"], printable_px)
        assert laid["doc"] <= round(printable_px) + 1, (path, laid["doc"], printable_px)
        for t in laid["tables"]:
            assert t["scroll"] <= t["client"] + 1, (path, t)
            assert t["width"] <= printable_px + 1, (path, t)
        assert await page.locator(".toolbar").is_hidden()  # the screen's bar stays off paper

        stem = f"{event}-{_name(path)}"
        pdf = out / f"{stem}.pdf"
        await page.pdf(path=str(pdf), format="A4", prefer_css_page_size=True, print_background=True)
    finally:
        await context.close()

    width_mm, height_mm = _page_size_mm(pdf)
    assert (round(width_mm), round(height_mm)) == (round(paper_w), round(paper_h)), path
    count = _pages(pdf)
    assert pages[0] <= count <= pages[1], (path, count)

    # Everything the sheet lists reached the paper (no row lost between pages): each
    # table number, and each name's first word as often as the sheet has it.
    text = subprocess.run(
        [_tool("pdftotext"), str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    words = Counter(text.split())
    wanted = Counter(must.split()[0] for must in laid["must"] if must)
    for word, times in wanted.items():
        assert words[word] >= times, (path, word, words[word], times)

    for old in out.glob(f"{stem}-*.png"):
        old.unlink()
    subprocess.run(
        [_tool("pdftoppm"), "-r", str(DPI), "-png", str(pdf), str(out / stem)], check=True
    )
    pngs = sorted(out.glob(f"{stem}-*.png"))
    assert len(pngs) == count
    right_edge = paper_w - MARGIN_MM
    for png in pngs:
        ink = _ink_right_mm(png)
        # Nothing printed in the right margin (a cut-off table would run into it, or off
        # the paper); 1 mm for a border's half-width and the raster's rounding.
        assert ink <= right_edge + 1.0, (png.name, ink, right_edge)
        assert ink > right_edge - 60, (png.name, ink)  # and the sheet is not shrunk away


@pytest.mark.parametrize("path", ["/standings?section=kutxa", "/round/1?section=kutxa"])
async def test_ordinary_pages_print_without_the_screens_chrome(
    browser: Any, served: dict[str, str], path: str
) -> None:
    """A public page printed from the browser, even in dark mode: no header (language
    switcher, theme button), no footer, black on white."""
    out = _out()
    context = await browser.new_context(
        viewport={"width": 1000, "height": 800}, color_scheme="dark"
    )
    page = await context.new_page()
    try:
        await page.goto(served["donostia"] + path)
        assert await page.evaluate("document.documentElement.dataset.theme") == "dark"
        await page.emulate_media(media="print")
        for hidden in ("header", "nav.langs", "#theme-toggle", "footer", ".printlinks"):
            assert await page.locator(hidden).first.is_hidden(), (path, hidden)
        colours = await page.evaluate(
            "[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]"
        )
        assert colours == ["rgb(255, 255, 255)", "rgb(0, 0, 0)"], colours
        stem = f"page-{_name(path)}"
        pdf = out / f"{stem}.pdf"
        await page.pdf(path=str(pdf), format="A4", print_background=True)
    finally:
        await context.close()
    for old in out.glob(f"{stem}-*.png"):
        old.unlink()
    subprocess.run(
        [_tool("pdftoppm"), "-r", str(DPI), "-png", str(pdf), str(out / stem)], check=True
    )
    for png in sorted(out.glob(f"{stem}-*.png")):
        image = Image.open(png).convert("L")
        dark = sum(image.histogram()[:100]) / (image.width * image.height)
        assert dark < 0.08, (png.name, dark)  # text and lines, no dark backgrounds
