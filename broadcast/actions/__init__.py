"""The arbiter's actions: each a value that says what it will do, goes through one door
(`door.act`), is journaled with who did it and can be undone (`undo.Undo`).

The commands, by what they act on: `results` (SetResult, ConfirmProposal,
RejectProposal), `moves` (TakeBack, ReplaceMove, CorrectLine, SetStartPosition), `boards`
(ReplaceBoard, AssignBoard), `pairings` (PublishPairings, ReleasePairings), `players`
(Withdraw, Reinstate, RequestBye, CancelBye, ContinueAfterAbsence), `entries`
(LateEntry, ReplacePlayer), `prizes` (WithholdPrize, RestorePrize, PairPlayoffGame),
`scoresheet` (EnterScoresheet), `teams` (SubmitLineup, WithdrawLineup, PairTeamRound,
ComposeTeamRound; `team_import`: ImportTeamRound), `alerts` (Acknowledge, MarkPresent, MarkAbsent), `undo` (Undo). `words` says games, players, plies and parts
in an arbiter's words.
"""

from broadcast.actions.alerts import Acknowledge, MarkAbsent, MarkPresent
from broadcast.actions.boards import AssignBoard, ReplaceBoard
from broadcast.actions.door import Command, ConfirmationNeeded, Done, Plan, act, plan_of
from broadcast.actions.late_entries import LateEntry, ReplacePlayer
from broadcast.actions.moves import CorrectLine, ReplaceMove, SetStartPosition, TakeBack
from broadcast.actions.pairings import PublishPairings, ReleasePairings
from broadcast.actions.players import (
    CancelBye,
    ContinueAfterAbsence,
    Reinstate,
    RequestBye,
    Withdraw,
)
from broadcast.actions.prizes import PairPlayoffGame, RestorePrize, WithholdPrize
from broadcast.actions.results import ConfirmProposal, RejectProposal, SetResult
from broadcast.actions.scoresheet import EnterScoresheet
from broadcast.actions.team_import import ImportTeamRound
from broadcast.actions.teams import (
    ComposeTeamRound,
    PairTeamRound,
    SubmitLineup,
    WithdrawLineup,
)
from broadcast.actions.undo import Undo

__all__ = [
    "Acknowledge",
    "AssignBoard",
    "CancelBye",
    "Command",
    "ComposeTeamRound",
    "ConfirmProposal",
    "ConfirmationNeeded",
    "ContinueAfterAbsence",
    "CorrectLine",
    "Done",
    "EnterScoresheet",
    "ImportTeamRound",
    "LateEntry",
    "MarkAbsent",
    "MarkPresent",
    "PairPlayoffGame",
    "PairTeamRound",
    "Plan",
    "PublishPairings",
    "Reinstate",
    "RejectProposal",
    "ReleasePairings",
    "ReplaceBoard",
    "ReplaceMove",
    "ReplacePlayer",
    "RequestBye",
    "RestorePrize",
    "SetResult",
    "SetStartPosition",
    "SubmitLineup",
    "TakeBack",
    "Undo",
    "Withdraw",
    "WithdrawLineup",
    "WithholdPrize",
    "act",
    "plan_of",
]
