"""When to act on what the board shows: each kind of position waits its own time
unchanged (longer for what may be half of something else), and a position that matches
nothing goes out of sync after a while. Presses due are resolved first (`press`).
"""

from __future__ import annotations

from boards.reconstruction.classify import match_for, slow_classify
from boards.reconstruction.keys import codes_key, diff_mask, key_fen, occupied
from boards.reconstruction.press import resolve_press
from boards.reconstruction.reconstruction_events import OutOfSync, ReconstructionEvent
from boards.reconstruction.reconstruction_state import EPS, Candidate, Match, State
from boards.reconstruction.record import adopt, announce, back_in_sync, correct, play
from boards.reconstruction.result_signal import king_heading_for_centre, signal

__all__ = [
    "next_deadline",
    "run",
]


def run(s: State, t: float, events: list[ReconstructionEvent]) -> None:
    """Everything due by `t`: presses settled, the current position acted on (again,
    while each decision changes the node), the software clock's flag."""
    while s.presses and s.presses[0].deadline <= t + EPS:
        resolve_press(s, s.presses.pop(0), events)
    for _ in range(4):  # a decision may change the node; re-decide a few times at most
        if not _decide(s, t, events):
            break
    if s.soft is not None and not s.clock.present:
        flag = s.soft.flag(t)
        if flag is not None:
            events.append(flag)


def _decide(s: State, t: float, events: list[ReconstructionEvent]) -> bool:
    """Act on the current candidate if its evidence suffices; True if state changed."""
    cand = s.cand
    if cand is None:
        return False
    cfg = s.config
    m = match_for(s, cand)
    stable = t - cand.since + EPS
    if m.kind != "none":
        s.unmatched_since = None
    if m.kind == "same":
        if not s.announced and stable >= cfg.new_game_stable:
            adopt(s, m)
            announce(s, t, events)
            return True
        if s.orientation is None and m.orientation is not None and stable >= cfg.move_stable:
            adopt(s, m)  # a resumed game: the board shows it, this way round
        if s.out_since is not None and stable >= cfg.move_stable:
            back_in_sync(s, t, events)
            return True
        return False
    if m.kind == "forward":
        if stable >= _forward_wait(s, m):
            adopt(s, m)
            back_in_sync(s, t, events)
            play(s, t, m.moves, "resync" if m.deep else "stable", events)
            return True
        return False
    if m.kind == "signal":
        if m.result != s.signalled and stable >= cfg.signal_stable:
            signal(s, t, m, cand.key, events)
            return True
        return False
    if m.kind == "start":
        if stable >= cfg.new_game_stable:
            s.orientation = m.orientation or s.orientation
            s.setup(m.fen, m.chess960)
            cand.key = codes_key(cand.codes, s.orientation or "normal")
            announce(s, t, events)
            return True
        return False
    if m.kind in ("takeback", "correction"):
        if stable >= _correction_wait(s, cand, m):
            adopt(s, m)
            back_in_sync(s, t, events)
            correct(s, t, m, "stable", events)
            return True
        return False
    # Nothing matches (yet).
    if s.unmatched_since is None:
        s.unmatched_since = cand.since
        s.unmatched_patient = False
    # Once a stretch looked like a promotion or a result signal in progress, it
    # keeps the longer wait (the pawn comes off before the new piece goes on).
    s.unmatched_patient = s.unmatched_patient or m.patient
    wait = cfg.patient_out_of_sync_after if s.unmatched_patient else cfg.out_of_sync_after
    long_unmatched = t + EPS >= s.unmatched_since + wait
    if stable >= cfg.move_stable:
        # Deep lines explain half-made positions too easily: search them only once
        # the board has been out of step for a while.
        deep = (s.out_since is not None or long_unmatched) and stable >= cfg.deep_stable
        if not cand.slow_done or (deep and not cand.deep_done):
            cand.slow_done = True
            cand.deep_done = deep
            # A chain through every position seen since the last node is strong
            # evidence: try it as soon as the board has been out of step a while.
            chain = (s.out_since is not None or long_unmatched) and not cand.chain_done
            cand.chain_done = cand.chain_done or chain
            slow = slow_classify(s, cand.key, deep, chain)
            if slow is not None:
                cand.match = slow
                return True
        if s.may_go_out() and long_unmatched:
            s.out_since = s.unmatched_since
            events.append(
                OutOfSync(
                    t,
                    key_fen(cand.key),
                    len(s.plies),
                    s.unmatched_since,
                    m.ambiguous,
                )
            )
    return False


def _forward_wait(s: State, m: Match) -> float:
    cfg = s.config
    if m.deep:
        return cfg.move_stable
    resolved = s.presses_since_node - len(s.presses)
    if len(m.moves) > 1 and s.clock_running() and resolved <= 0:
        # Both players moved yet nobody pressed the running clock: more likely one
        # half-made move that looks like a capture and recapture. Wait for evidence
        # (a press still settling is not evidence yet: it decides when it resolves).
        return cfg.unpressed_burst_stable
    if m.suspect == "centre_king":
        return cfg.centre_king_stable
    if m.suspect == "castling_rook":
        return cfg.castling_rook_stable
    return cfg.move_stable


def _correction_wait(s: State, cand: Candidate, m: Match) -> float:
    if m.kind == "correction" and m.evident:
        wait = _forward_wait(s, m)
        if any(p.by_press for p in s.plies[m.base :]):
            wait = max(wait, s.config.pressed_correction_stable)
        return wait
    return _takeback_wait(s, cand, m)


def _takeback_wait(s: State, cand: Candidate, m: Match) -> float:
    cfg = s.config
    wait = cfg.takeback_stable
    if king_heading_for_centre(s.keys[-1], cand.key):
        # A king leaving for the centre may be the first half of a result signal.
        wait = max(wait, cfg.centre_king_stable)
    if m.kind == "correction" and any(p.by_press for p in s.plies[m.base :]):
        # Replacing moves a lever press confirmed needs more than a piece in the hand.
        wait = max(wait, cfg.pressed_correction_stable)
    if m.kind == "takeback" and len(s.plies) - m.base > 1:
        changed = diff_mask(s.keys[-1], cand.key)
        if changed.bit_count() == 2 and changed & occupied(cand.key):
            # An earlier position one piece away (a repetition): more likely that piece
            # resting on a square of its path than several moves taken back at once.
            wait = max(wait, cfg.repetition_takeback_stable)
    return wait


def next_deadline(s: State) -> float | None:
    """The next time at which `run` may have something to do (None: only new input):
    the waits `_decide` applies, as deadlines."""
    cfg = s.config
    due: list[float] = [p.deadline for p in s.presses]
    cand = s.cand
    if cand is not None:
        m = match_for(s, cand)
        since = cand.since
        if m.kind == "same":
            if not s.announced:
                due.append(since + cfg.new_game_stable)
            elif s.out_since is not None:
                due.append(since + cfg.move_stable)
        elif m.kind == "forward":
            due.append(since + _forward_wait(s, m))
        elif m.kind == "signal":
            if m.result != s.signalled:
                due.append(since + cfg.signal_stable)
        elif m.kind == "start":
            due.append(since + cfg.new_game_stable)
        elif m.kind in ("takeback", "correction"):
            due.append(since + _correction_wait(s, cand, m))
        else:
            if not cand.slow_done:
                due.append(since + cfg.move_stable)
            elif s.unmatched_since is not None:
                patient = m.patient or s.unmatched_patient
                wait = cfg.patient_out_of_sync_after if patient else cfg.out_of_sync_after
                long_at = max(s.unmatched_since + wait, since + cfg.move_stable)
                if s.may_go_out():
                    due.append(long_at)
                if not cand.deep_done:
                    if s.out_since is not None:
                        due.append(since + cfg.deep_stable)
                    else:
                        due.append(max(long_at, since + cfg.deep_stable))
    if s.soft is not None and not s.clock.present:
        flag_at = s.soft.flag_deadline()
        if flag_at is not None:
            due.append(flag_at)
    return min(due) if due else None
