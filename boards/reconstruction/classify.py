"""What a position the board shows is to the game: the current position, a few legal
plies ahead, a result signal, a fresh start, an earlier position (takeback), an earlier
position plus other moves (correction), or nothing (yet).

`match_for` is the fast classification of every position (cached per game node);
`slow_classify` the costlier one (corrections, a chain through the trail, deep lines)
for positions that stayed put a while. Both only read the state.
"""

from __future__ import annotations

from dataclasses import replace

import chess

from boards.position import Orientation
from boards.reconstruction.keys import (
    CENTRE,
    Key,
    board_key,
    colour_mask,
    diff_mask,
    key_fen,
    material_feasible,
    occupied,
    rotate_key,
    victim_lifted,
)
from boards.reconstruction.reconstruction_state import EPS, SAME, Candidate, Match, State, Suspect
from boards.reconstruction.result_signal import king_heading_for_centre, node_stood, signal_in
from boards.reconstruction.search import (
    Line,
    Sighting,
    consistency,
    explain_chain,
    find_lines,
    line_keys,
    ordered_fit,
    returns_home,
)

__all__ = [
    "chain_to",
    "correction",
    "fitter_correction",
    "last_piece_moved",
    "match_for",
    "slow_classify",
]

_LIVE_TRANSIENT = 0.4  # seconds: one or two board scans
_RECOVERED_SETTLED = 0.2
_STANDARD_START_KEY = board_key(chess.Board())
# Lines a deep search collects for one position: enough to see every order in which a
# few independent moves can be made; reaching the limit counts as "cannot tell".
_DEEP_LIMIT = 32
_AMBIGUOUS_SHOWN = 4
_BACK_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8


def _other(orientation: Orientation) -> Orientation:
    """The board turned the other way round."""
    return "rotated" if orientation == "normal" else "normal"


def match_for(s: State, cand: Candidate) -> Match:
    """What `cand` is to the game at its current node (either way round while the
    orientation is not known), kept on the candidate until the node changes."""
    if cand.match is not None and cand.version == s.version:
        return cand.match
    m = _classify(s, cand.key)
    if s.orientation is None:
        if m.kind == "none":
            alt = _classify(s, rotate_key(cand.key))
            if alt.kind != "none":
                m = replace(alt, orientation=alt.orientation or "rotated")
        elif m.orientation is None:
            m = replace(m, orientation="normal")
    cand.match = m
    cand.version = s.version
    return m


def _classify(s: State, key: Key) -> Match:
    cached = s.cache.get(key)
    if cached is None:
        cached = _classify_uncached(s, key)
        s.cache[key] = cached
    return cached


def _classify_uncached(s: State, key: Key) -> Match:
    current = s.keys[-1]
    if key == current:
        return SAME
    signal = signal_in(key)
    if signal is not None:
        return Match("signal", result=signal[0], kings=(signal[1], signal[2]))
    start = _start_match(s, key)
    if start is not None:
        same_start = (
            start.fen == s.root.fen()
            and start.orientation in (None, s.orientation)
            and key == s.keys[0]
        )
        early = len(s.plies) < s.config.new_game_min_plies
        if same_start and early and s.signalled is None:
            return Match("takeback", base=0)
        return start
    if material_feasible(current, key):
        lines = find_lines(s.board, key, s.config.live_depth, limit=8)
        if lines:
            line = _most_consistent(s, s.board, lines)
            fitter = fitter_correction(s, key, line)
            if fitter is not None:
                return fitter
            return Match("forward", line, len(s.plies), suspect=_suspect(s.board, line))
    # Before takebacks: the last piece moving on may repeat an earlier position
    # (Qc7-c6 recorded, the queen goes on to c1 where it stood two moves ago).
    moved_on = _moved_on(s, key)
    if moved_on is not None:
        return moved_on
    nodes = s.key_nodes.get(key)
    if nodes:
        earlier = [n for n in nodes if n < len(s.plies)]
        if earlier:
            return Match("takeback", base=earlier[-1])
    return Match("none", patient=_patient(s, current, key))


def _start_match(s: State, key: Key) -> Match | None:
    count = occupied(key).bit_count()
    if count != occupied(s.root_key).bit_count() and count != 32:
        return None
    here = s.orientation or "normal"
    for orientation, k in ((here, key), (_other(here), rotate_key(key))):
        if k == _STANDARD_START_KEY:
            return Match("start", orientation=orientation, fen=chess.STARTING_FEN)
        if k == s.root_key:
            return Match(
                "start",
                orientation=orientation,
                fen=s.root.fen(),
                chess960=s.chess960,
            )
        if s.chess960 and count == 32:
            fen = key_fen(k) + " w KQkq - 0 1"
            try:
                board = chess.Board(fen, chess960=True)
            except ValueError:
                continue
            if board.chess960_pos() is not None:
                return Match("start", orientation=orientation, fen=board.fen(), chess960=True)
    return None


def _patient(s: State, current: Key, key: Key) -> bool:
    """Does `key` look like a move still under way that may take a while: a promotion
    (the new piece is on the way), a king heading for a result signal, or a capture
    whose victim is already off (a legal capture there exists) while the capturer
    still slides and rests on its path?"""
    if _promotion_pending(key) or king_heading_for_centre(current, key):
        return True
    board = s.board
    lost = victim_lifted(current, key, board.turn == chess.WHITE)
    return bool(lost) and any(board.generate_legal_captures(chess.BB_ALL, lost))


def _promotion_pending(key: Key) -> bool:
    """A pawn stands on the last rank: its new piece is on the way."""
    return bool(key[0] & _BACK_RANKS)


def _suspect(board: chess.Board, line: Line) -> Suspect:
    """Why the last move of `line` (from `board`) may be half of something else."""
    for move in line[:-1]:
        board.push(move)
    try:
        last = line[-1]
        piece = board.piece_type_at(last.from_square)
        if piece == chess.KING and not board.is_castling(last):
            if chess.BB_SQUARES[last.to_square] & CENTRE:
                return "centre_king"
        elif piece == chess.ROOK and board.has_castling_rights(board.turn):
            before = board.rooks
            for castle in board.generate_castling_moves():
                board.push(castle)
                moved_from = before & ~board.rooks
                moved_to = board.rooks & ~before
                board.pop()
                if (
                    moved_from == chess.BB_SQUARES[last.from_square]
                    and moved_to == (chess.BB_SQUARES[last.to_square])
                ):
                    return "castling_rook"
        return None
    finally:
        for _ in line[:-1]:
            board.pop()


def _most_consistent(s: State, board: chess.Board, lines: list[Line]) -> Line:
    """Different lines can reach one placement (bxa4 bxa4 / bxc4 bxc4, transposed
    orders): prefer the one that fits the half-made positions seen on the way."""
    if len(lines) == 1:
        return lines[0]
    return max(lines, key=lambda ln: consistency(line_keys(board, ln), s.observed))


def _moved_on(s: State, key: Key) -> Match | None:
    """The piece of the last move moved on from its landing square, nothing else
    changed, and it could have gone there at once: that move is corrected (a slide
    that rested on a square of its path). Not for kings: a king stepping on may be the
    first king of a result signal."""
    if not s.plies:
        return None
    last = s.plies[-1].move
    piece = s.board.piece_at(last.to_square)
    if piece is None or piece.piece_type == chess.KING:
        return None
    land = chess.BB_SQUARES[last.to_square]
    changed = diff_mask(s.keys[-1], key)
    if changed.bit_count() != 2 or not changed & land or occupied(key) & land:
        return None
    there = changed & ~land
    if not key[piece.piece_type - 1] & there or bool(key[6] & there) != piece.color:
        return None
    found = correction(s, key)
    if found is None or found.base != len(s.plies) - 1 or len(found.moves) != 1:
        return None
    return replace(found, evident=True)


def slow_classify(s: State, key: Key, deep: bool, chain: bool = False) -> Match | None:
    """Corrections (an earlier node plus other moves), then a chain through the
    positions seen since the last node, then forward lines longer than the live search
    depth. Only for positions that stayed put a while."""
    current = s.keys[-1]
    changed = diff_mask(current, key)
    if changed.bit_count() == 1 and not changed & occupied(key):
        return None  # one piece missing from the current position: it is in a hand
    board = s.board
    found = correction(s, key)
    if found is not None and not _replies_past_settled(s, found):
        # The last move replaced, every position seen since on the way: decided like
        # a move (not two plies back: both players' moves stood on the board).
        last_only = found.base == len(s.plies) - 1
        return replace(found, evident=last_only and _fits_everything_seen(s, found))
    if chain:
        chained = chain_to(s, key)
        if chained is not None:
            moves, orientation = chained
            return Match("forward", moves, len(s.plies), orientation, deep=True)
    if deep and material_feasible(current, key):
        lines = find_lines(
            board,
            key,
            s.config.resync_depth,
            min_depth=s.config.live_depth + 1,
            limit=_DEEP_LIMIT,
        )
        complete = len(lines) < _DEEP_LIMIT
        lines = [ln for ln in lines if not returns_home(ln)]
        if lines:
            best, rivals = _best_supported(s, board, key, lines)
            if complete and not rivals:
                return Match("forward", best, len(s.plies), deep=True)
            # Several move orders (or different moves) reach this position and what
            # the board showed on the way does not single one out: publishing one
            # would be a guess, and a transposed order is a wrong game. Stay out.
            shown = [board.variation_san(ln) for ln in (best, *rivals)]
            ambiguous = tuple(shown[:_AMBIGUOUS_SHOWN])
            return Match("none", patient=_patient(s, current, key), ambiguous=ambiguous)
    return None


def _back_lines(s: State, key: Key, first_only: bool) -> list[tuple[int, Line, list[Key], Suspect]]:
    """Lines of up to `live_depth` plies from each of the last `correction_back` nodes
    to `key` that replace recorded moves (not the recorded moves followed by more), as
    (plies back, line, the positions along it from its node, suspect); with
    `first_only`, the first line from the nearest node that has one."""
    board = s.board
    back_max = min(s.config.correction_back, len(s.plies))
    popped: list[chess.Move] = []
    out: list[tuple[int, Line, list[Key], Suspect]] = []
    try:
        for back in range(1, back_max + 1):
            popped.append(board.pop())
            if not material_feasible(board_key(board), key):
                continue
            recorded = tuple(reversed(popped))
            for line in find_lines(board, key, s.config.live_depth, limit=8):
                if line[:back] == recorded:
                    continue
                if back > 1 and line[1:back] == recorded[1:]:
                    # The opponent's recorded reply kept: it was made to the recorded
                    # move, which the board showed. The mover's piece going on from
                    # there is their next move under way (resting on a square where
                    # it would be illegal), not a correction of the one before.
                    continue
                out.append((back, line, line_keys(board, line), _suspect(board, line)))
                if first_only:
                    return out
    finally:
        for move in reversed(popped):
            board.push(move)
    return out


def correction(s: State, key: Key) -> Match | None:
    """An earlier node (up to `correction_back` plies back) plus other moves."""
    for back, line, _keys, suspect in _back_lines(s, key, first_only=True):
        return Match("correction", line, len(s.plies) - back, suspect=suspect)
    return None


def _fits_everything_seen(s: State, m: Match) -> bool:
    """Does every position seen since the node fit the correction `m`'s path (as one
    of its positions or halfway along a step), in the order seen?"""
    node = s.keys[-1]
    observed = [seen.key for seen in s.trail if seen.key != node]
    board = s.board
    popped = [board.pop() for _ in range(len(s.plies) - m.base)]
    try:
        keys = line_keys(board, m.moves)
    finally:
        for move in reversed(popped):
            board.push(move)
    return ordered_fit(keys, observed) == len(observed)


def _replies_past_settled(s: State, m: Match) -> bool:
    """Does the correction `m` replace a move whose position stood settled on the
    board (`deep_stable`) and add the opponent's reply, when that move's piece was
    never seen moving on? The reply was made to what the board showed: a position seen
    stable for a second stays on the game's path unless the board showed its piece
    going elsewhere (a capture under way whose capturer rests on a square of its path
    is not the recorded move replaced and answered)."""
    if len(m.moves) <= len(s.plies) - m.base or not s.trail:
        return False
    if not node_stood(s, s.config.deep_stable):
        return False
    return not any(last_piece_moved(s, seen.key, on=True) for seen in s.trail)


def fitter_correction(
    s: State, key: Key, line: Line, presser: bool | None = None, until: float | None = None
) -> Match | None:
    """A correction reaching `key` that fits the positions seen since the node (up to
    `until`), in order, better than the forward `line`: a transposed path through a
    recorded move the board then showed otherwise (Bd7, Qe4, Bd7-e6 for Be6, Qe4 when
    the bishop was seen on e6 before the queen moved) is never preferred to a path
    through every position seen. A tie goes to the correction at a press by
    `presser`, of the presser's unpressed moves (the position at the press is the
    truth), and when `line` moves on the piece of an unpressed last move (without a
    clock, the piece moving on is a correction: a reply within a scan or two leaves
    nothing in between to tell)."""
    node = s.keys[-1]
    observed = [
        seen.key
        for seen in s.trail
        if seen.key != node and (until is None or seen.since <= until + EPS)
    ]
    if not observed:
        return None
    forward = ordered_fit(line_keys(s.board, line), observed)
    tie = presser is not None or _moves_on(s, line)
    if not tie and forward >= len(observed):
        return None  # the forward line explains everything seen: nothing to correct
    need = forward if tie else forward + 1
    best: Match | None = None
    for back, alt, keys, suspect in _back_lines(s, key, first_only=False):
        replaced = s.plies[len(s.plies) - back :]
        if presser is not None and (
            any(p.by_press for p in replaced) or all(p.white != presser for p in replaced)
        ):
            continue
        score = ordered_fit(keys, observed)
        if score >= need:
            need = score + 1
            best = Match("correction", alt, len(s.plies) - back, suspect=suspect, evident=True)
    return best


def _moves_on(s: State, line: Line) -> bool:
    """Does `line` move the piece of the last recorded (unpressed) move on from where
    that move put it?"""
    if not s.plies or s.plies[-1].by_press:
        return False
    land = s.plies[-1].move.to_square
    return any(move.from_square == land for move in line[1::2])


def _best_supported(
    s: State, board: chess.Board, key: Key, lines: list[Line]
) -> tuple[Line, list[Line]]:
    """The line that fits most of the positions seen since the last node, in the
    order they were seen, and the other lines that fit as many (its rivals)."""
    observed = [seen.key for seen in s.trail if seen.key != key]
    scored = [(ordered_fit(line_keys(board, ln), observed), ln) for ln in lines]
    top = max(score for score, _ in scored)
    tied = [ln for score, ln in scored if score == top]
    return tied[0], tied[1:]


def chain_to(s: State, key: Key) -> tuple[Line, Orientation | None] | None:
    """Explain the positions seen since the last node, ending with `key`, as a chain of
    legal moves (each position a move completed or a step on the way), or None. With
    the moves comes the orientation they were found in (None: the one already known).
    """
    trail = s.trail
    if s.trail_broken or len(trail) < 2 or trail[-1].key != key:
        return None
    if s.orientation is None and not s.announced:
        return None  # no game yet: the board is being set up
    # A position that lasted less than a scan or two and fits nothing is noise (a
    # misread, a sliding piece on a crossed square); recovered positions come from the
    # log with estimated times: one is a settled state unless the next came within 0.2 s.
    sightings: list[Sighting] = []
    for seen in trail:
        dwell = None if seen.until is None else seen.until - seen.since
        limit = _RECOVERED_SETTLED if seen.recovered else _LIVE_TRANSIENT
        sightings.append(Sighting(seen.key, dwell is not None and dwell < limit))
    if s.orientation is not None:
        line = explain_chain(s.board, sightings, s.config.live_depth)
        return (line, None) if line else None
    # A resumed game whose board has not shown which way round it stands: the trail
    # was read as "normal"; try it that way, then turned round.
    for orientation in ("normal", "rotated"):
        if orientation == "rotated":
            sightings = [Sighting(rotate_key(s.key), s.skippable) for s in sightings]
        line = explain_chain(s.board, sightings, s.config.live_depth)
        if line:
            return line, orientation
    return None


def last_piece_moved(s: State, key: Key, on: bool) -> bool:
    """Is the piece of the last recorded ply gone from where that ply put it in `key`
    (and, with `on`, one like it standing on a square it did not hold)?"""
    last = s.plies[-1]
    piece = s.board.piece_at(last.move.to_square)
    if piece is None:
        return False
    slot = piece.piece_type - 1
    mine = key[slot] & colour_mask(key, piece.color)
    if mine & chess.BB_SQUARES[last.move.to_square]:
        return False
    current = s.keys[-1]
    return not on or bool(mine & ~(current[slot] & colour_mask(current, piece.color)))
