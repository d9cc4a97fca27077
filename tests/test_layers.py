"""The house's import rules (docs/architecture.md, "Layers"), read from the code itself.

Every import of every module counts, at the top or inside a function, under
TYPE_CHECKING too: a lazy import is still a dependency. Each test names the offending
file and line, so a new violation says where it is and which rule it breaks.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PACKAGES = {
    "clocks": ROOT / "clocks",
    "boards": ROOT / "boards",
    "boardsim": ROOT / "hardware-sim" / "boardsim",
    "broadcast": ROOT / "broadcast",
    "web": ROOT / "web",
}

# DESIGN.md's direction between the top-level packages: what each may import.
MAY_IMPORT = {
    "clocks": set(),
    "boards": {"clocks"},
    "boardsim": {"boards", "clocks"},
    "broadcast": {"boards", "clocks"},
    "web": {"broadcast", "boards", "clocks"},
}
# Only the command wires the web and the simulator in (DESIGN: "only the boardwire command").
COMMAND = "broadcast.cli"
COMMAND_MAY_ALSO = {"web", "boardsim"}

# The floors inside broadcast/, top first: a room imports only rooms below it (or itself).
BROADCAST_FLOORS = [
    ["broadcast.cli"],
    ["broadcast.actions", "broadcast.publish", "broadcast.analysis", "broadcast.stations"],
    ["broadcast.service"],
    ["broadcast.journal"],
    ["broadcast.arbiter", "broadcast.export"],
    ["broadcast.games"],
    ["broadcast.tournament"],
    ["broadcast.config"],
    ["broadcast.fide"],
    ["broadcast.text", "broadcast.phrases"],
]
# The floors inside boards/, top first.
BOARDS_FLOORS = [
    ["boards.drivers"],
    ["boards.replay"],
    ["boards.capture"],
    ["boards.from_messages"],
    ["boards.recovery"],
    ["boards.reconstruction"],
    ["boards.dgt"],
    ["boards.driver_events"],
    ["boards.position"],
]
# The floors inside web/, top first: the app, its routes, the request helpers, the app's
# keys, the parts the keys hold (and the pages), then the pure pieces they are made of.
WEB_FLOORS = [
    ["web.app"],
    ["web.routes_teams"],  # a team section's routes, beside the public ones they extend
    [
        "web.arbiter",
        "web.routes_public",
        "web.print",
        "web.checkin.page",
        "web.captains.page",
        "web.commentary.page",  # the commentators' live channel (venue's app only)
    ],
    ["web.livechess.server"],  # LiveChess's local API: its own app, runner and port
    ["web.checkin.gate"],  # what the two pages behind a code share
    ["web.http_json", "web.checkin.parts", "web.team_pages", "web.captains.parts"],
    ["web.keys", "web.openapi", "web.captains"],  # web.captains: the captain codes
    [
        "web.auth",
        "web.http_server",
        "web.pages",
        "web.hub",
        "web.answers",
        "web.checkin",  # its codes, limits and QR codes (the page and parts sit above)
        "web.livechess",  # the LiveChess API's pure parts: feed, protocol, views, access
        "web.commentary",  # the live state as the pages read it (live_source)
    ],
    [
        "web.limits",
        "web.proxy",
        "web.json_views",
        "web.board_svg",
        "web.board_png",
        "web.flags",
        "web.teams_json",
    ],
    ["web.game_teams"],  # a game's match and teams, which every game's JSON carries
    ["web.sections"],
    ["web.alert_titles", "web.public_source"],
    ["web.words", "web.i18n"],
]

# The pure core (DESIGN, "Principles"): no I/O, no asyncio, no wall clock, no logging.
PURE = [
    "clocks.reading",
    "clocks.timecontrol",
    "clocks.move_times",
    "boards.dgt",
    "boards.reconstruction",
    "boards.position",
    "boards.driver_events",
    "broadcast.arbiter",
    "broadcast.games",
    "broadcast.tournament",
    "broadcast.fide",
    "broadcast.export",
]
IMPURE_MODULES = {
    "asyncio",
    "socket",
    "sqlite3",
    "aiohttp",
    "serial",
    "serial_asyncio_fast",
    "redis",
    "subprocess",
    "threading",
    "time",
    "logging",
    "tempfile",
    "shutil",
}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module of ours (the deepest that exists)
    path: Path
    line: int

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}: {self.source} imports {self.target}"


def _module_name(path: Path) -> str:
    for top, base in PACKAGES.items():
        if path.is_relative_to(base):
            rel = path.relative_to(base).with_suffix("")
            parts = [top, *rel.parts]
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join(parts)
    raise AssertionError(path)


def _sources() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for base in PACKAGES.values():
        for path in sorted(base.rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _sources()


def _ours(name: str) -> str | None:
    """The deepest module of ours that `name` (a module or a module's attribute) is."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def _imports_of(module: str, path: Path) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            names = [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            target = _ours(name)
            if target is not None and target != module:
                yield Import(module, target, path, node.lineno)


IMPORTS = [imp for module, path in MODULES.items() for imp in _imports_of(module, path)]


def _top(module: str) -> str:
    return module.split(".")[0]


def _room(module: str, floors: list[list[str]]) -> tuple[int, str] | None:
    for level, rooms in enumerate(floors):
        for room in rooms:
            if module == room or module.startswith(room + "."):
                return level, room
    return None


def test_the_rules_see_the_house() -> None:
    """The test reads what it checks: every package, and the imports that tie them."""
    assert {_top(m) for m in MODULES} == set(PACKAGES)
    assert len(MODULES) > 150
    assert any(i.source.startswith("web.") and _top(i.target) == "broadcast" for i in IMPORTS)


def test_top_level_direction() -> None:
    """clocks <- boards <- boardsim; broadcast imports boards and clocks; web imports
    broadcast; only the command (broadcast.cli) imports web or the simulator."""
    wrong = []
    for imp in IMPORTS:
        source, target = _top(imp.source), _top(imp.target)
        if source == target:
            continue
        allowed = MAY_IMPORT[source]
        if imp.source == COMMAND or imp.source.startswith(COMMAND + "."):
            allowed = allowed | COMMAND_MAY_ALSO
        if target not in allowed:
            wrong.append(imp.where())
    assert not wrong, "imports against DESIGN's direction:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    "floors", [BROADCAST_FLOORS, BOARDS_FLOORS, WEB_FLOORS], ids=["broadcast", "boards", "web"]
)
def test_floors(floors: list[list[str]]) -> None:
    """Inside a package, a room imports only the rooms on the floors below it."""
    top = floors[0][0].split(".")[0]
    unplaced = sorted(
        m
        for m in MODULES
        if _top(m) == top and m != top and _room(m, floors) is None and m.count(".") >= 1
    )
    assert not unplaced, f"modules on no floor of {top} (add them to the floors): {unplaced}"
    wrong = []
    for imp in IMPORTS:
        here, there = _room(imp.source, floors), _room(imp.target, floors)
        if here is None or there is None or here[1] == there[1]:
            continue
        if there[0] <= here[0]:
            wrong.append(f"{imp.where()} ({here[1]} is not above {there[1]})")
    assert not wrong, "imports up or sideways:\n" + "\n".join(wrong)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_cycle_finder_finds_a_loop() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_loops() -> None:
    """No two modules import each other, directly or round a longer loop. A package's
    `__init__` that only hands names on counts as the package."""
    edges: dict[str, set[str]] = {}
    for imp in IMPORTS:
        edges.setdefault(imp.source, set()).add(imp.target)
    loops = _cycles(edges)
    detail = []
    for loop in loops:
        members = set(loop)
        detail += [
            imp.where() for imp in IMPORTS if imp.source in members and imp.target in members
        ]
    assert not loops, f"import loops {loops}:\n" + "\n".join(dict.fromkeys(detail))


def test_no_package_loops() -> None:
    """No two rooms (sub-packages, or top-level modules of a package) import each other."""

    def room(module: str) -> str:
        return ".".join(module.split(".")[:2])

    edges: dict[str, set[str]] = {}
    for imp in IMPORTS:
        a, b = room(imp.source), room(imp.target)
        if a != b:
            edges.setdefault(a, set()).add(b)
    loops = _cycles(edges)
    detail = []
    for loop in loops:
        members = set(loop)
        detail += [
            imp.where()
            for imp in IMPORTS
            if room(imp.source) in members
            and room(imp.target) in members
            and room(imp.source) != room(imp.target)
        ]
    assert not loops, f"package loops {loops}:\n" + "\n".join(dict.fromkeys(detail))


def test_the_core_is_pure() -> None:
    """The core's modules do no I/O of their own: no asyncio, sockets, files' temp
    names, threads, wall clock or logging (DESIGN, "Pure core, I/O at the edges")."""
    wrong = []
    for module, path in MODULES.items():
        if _room(module, [PURE]) is None:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                if name.split(".")[0] in IMPURE_MODULES:
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module} imports {name}")
    assert not wrong, "I/O in the pure core:\n" + "\n".join(wrong)


def test_every_module_declares_its_public_names() -> None:
    """Each module says what it offers (`__all__`); a package's face may hand names on."""
    missing = []
    for path in MODULES.values():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        declared = any(
            isinstance(node, ast.Assign | ast.AnnAssign)
            and any(
                isinstance(t, ast.Name) and t.id == "__all__"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
            for node in tree.body
        )
        defines = any(
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            for node in tree.body
        )
        if not declared and defines and path.name != "__main__.py":
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, f"modules without __all__: {missing}"


# -- the tests' layout (docs/architecture.md, "Tests") ----------------------------------------

TESTS = ROOT / "tests"
# Folders of tests/ that mirror no package: helpers, data files, and the two tiers that
# cross the whole product (pages in a real browser, whole rehearsed events).
TESTS_OWN_FOLDERS = {"support", "data", "browser", "rehearsals"}
# The web's rooms are reached over HTTP through the app that serves them: a desk test that
# builds the app and posts a form tests web/arbiter without importing it.
SERVED_BY = {"web": "web.app"}


def _test_folders() -> list[Path]:
    return sorted(
        path
        for path in TESTS.rglob("*")
        if path.is_dir()
        and not any(part.startswith((".", "__")) for part in path.relative_to(TESTS).parts)
    )


def _mirrored(folder: Path) -> str | None:
    """The product package a test folder mirrors (tests/web/hub -> web.hub), or None."""
    top, *rest = folder.relative_to(TESTS).parts
    return ".".join([top, *rest]) if top in PACKAGES else None


def _rooms_of_module_names() -> dict[str, set[str]]:
    """Each module's last name, with the packages it is found in (`bus`: boards.dgt and
    boards.drivers); a sub-package counts as a module of its parent."""
    rooms: dict[str, set[str]] = {}
    for module in MODULES:
        parts = module.split(".")
        if len(parts) < 2 or parts[-1] == "__main__":
            continue
        rooms.setdefault(parts[-1], set()).add(".".join(parts[:-1]))
    return rooms


def _support_imports() -> dict[str, set[str]]:
    """The product modules each helper module of tests/support imports."""
    found: dict[str, set[str]] = {}
    for path in (TESTS / "support").glob("*.py"):
        found[f"tests.support.{path.stem}"] = _imported(path)
    return found


def _imported(path: Path) -> set[str]:
    """What a file imports, and the modules of ours it runs (`python -m broadcast.cli`)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Constant) and node.value in MODULES:
            names.add(node.value)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_test_folders_mirror_the_packages() -> None:
    """tests/boards/dgt/ for boards/dgt/, tests/boardsim/ for the simulator: a folder of
    tests that mirrors no package is a layout a reader cannot guess."""
    wrong = [
        str(folder.relative_to(ROOT))
        for folder in _test_folders()
        if folder.relative_to(TESTS).parts[0] not in TESTS_OWN_FOLDERS
        and (_mirrored(folder) is None or _mirrored(folder) not in MODULES)
    ]
    assert not wrong, f"test folders that mirror no package: {wrong}"


def test_a_test_named_after_a_module_sits_in_its_package() -> None:
    """tests/web/hub/test_server.py tests web/hub/server.py: a test file named after a module
    is found in that module's folder, never elsewhere."""
    rooms = _rooms_of_module_names()
    wrong = []
    for path in sorted(TESTS.rglob("test_*.py")):
        folder = path.parent
        if folder == TESTS or folder.relative_to(TESTS).parts[0] in TESTS_OWN_FOLDERS:
            continue
        name = path.stem.removeprefix("test_")
        if name in rooms and _mirrored(folder) not in rooms[name]:
            wrong.append(f"{path.relative_to(ROOT)}: {name} is in {sorted(rooms[name])}")
    assert not wrong, "tests named after a module of another package:\n" + "\n".join(wrong)


def test_tests_in_a_package_folder_use_that_package() -> None:
    """Each test file under a package's folder imports from that package (itself, through
    a helper of tests/support, or through its folders' fixtures): a test filed in the wrong
    room shows up here."""
    helpers = _support_imports()
    wrong = []
    for path in sorted(TESTS.rglob("test_*.py")):
        folder = path.parent
        if folder == TESTS or folder.relative_to(TESTS).parts[0] in TESTS_OWN_FOLDERS:
            continue
        package = _mirrored(folder)
        assert package is not None
        used = _imported(path)
        for conftest in (parent / "conftest.py" for parent in path.parents):
            if conftest.is_relative_to(TESTS) and conftest.exists():
                used |= _imported(conftest)  # its fixtures
        for name in list(used):
            used |= helpers.get(name, set())
        served = SERVED_BY.get(package.split(".")[0])
        if served in used and package != served:
            continue
        if not any(name == package or name.startswith(package + ".") for name in used):
            wrong.append(f"{path.relative_to(ROOT)} imports nothing of {package}")
    assert not wrong, "tests filed away from what they test:\n" + "\n".join(wrong)
