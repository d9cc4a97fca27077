"""The regulations' questions about a player of a section, in the regulations' words:
may they be paired in a round and why not (`out_reason`), can they still ask to continue
after an absence (`continuation_refusal`), are they out of the event (`status_of`,
`eliminated`, `excluded_by_rules`), and is their prize withheld (`prize_withheld`,
`disqualified_from_prizes`). An empty string means "nothing stands in the way"; the
words go to refusals, the desk, the pages and the exports as they are.
"""

from __future__ import annotations

from broadcast.tournament.section import SectionRecord


def is_active(section: SectionRecord, player: int, round_number: int) -> bool:
    """May `player` be paired in `round_number`: not withdrawn, under the no-show
    limit counting earlier rounds, no absence they did not ask to continue after."""
    return not out_reason(section, player, round_number)


def out_reason(section: SectionRecord, player: int, round_number: int) -> str:
    """Why `player` may not be paired in `round_number`, as the regulation says it
    ("" = they may): for a refused bye or pairing, and the desk."""
    joins = section.joined.get(player, 1)
    if round_number < joins:
        return f"the player joined late: they are paired from round {joins}"
    start = section.withdrawn.get(player)
    if start is not None and round_number >= start:
        why = section.withdraw_reasons.get(player, "")
        return f"the player has withdrawn from round {start}" + (f" ({why})" if why else "")
    earlier = [r for r in section.no_shows.get(player, ()) if r < round_number]
    limit = section.config.no_show_limit
    if limit is not None and len(earlier) >= limit:
        listed = ", ".join(str(r) for r in earlier)
        return (
            f"the player did not show up in rounds {listed}: {len(earlier)} no-shows "
            f"reach the limit of {limit}, so they are out of the tournament"
        )
    absent = disqualifying_absence(section, player, round_number)
    if absent is None:
        return ""
    if absent + 1 in section.rounds:
        return (
            f"the player was absent in round {absent} and did not ask in writing to "
            f"continue before round {absent + 1} was paired: disqualified"
        )
    return (
        f"the player was absent in round {absent}: disqualified unless they ask in "
        f"writing to continue before round {absent + 1} is paired (record it with "
        "'continue' first)"
    )


def disqualifying_absence(section: SectionRecord, player: int, round_number: int) -> int | None:
    """Under a single-absence rule: the earlier round of an absence the player did not
    ask to continue after (so they are out from then on), else None."""
    if section.config.no_shows.single_absence != "disqualify-unless-continue":
        return None
    kept = section.continuations.get(player, frozenset())
    for absent in section.no_shows.get(player, ()):
        if absent < round_number and absent not in kept:
            return absent
    return None


def continuation_refusal(section: SectionRecord, player: int, round_number: int) -> str:
    """Why a request to continue after an absence in `round_number` cannot succeed,
    in the regulation's words ("" = it can): the section's rules give no way back
    (round-1 exclusion, the no-show limit, a withdrawal), or the request is late."""
    rules = section.config.no_shows
    if round_number not in section.no_shows.get(player, ()):
        return f"player {player} has no absence in round {round_number} to continue after"
    if round_number == 1 and rules.first_round == "exclude":
        return (
            "the player who does not show up at the beginning of the first round is "
            "excluded from the tournament (the regulations; [section.no_shows] "
            'first_round = "exclude"): a request to continue cannot bring them back'
        )
    if rules.single_absence != "disqualify-unless-continue":
        return (
            "this section's regulations do not disqualify after one absence "
            '([section.no_shows] single_absence is not "disqualify-unless-continue"): '
            "there is nothing to continue after"
        )
    # Out for another reason (withdrawn, the no-show limit, an earlier absence): the
    # request would be recorded and change nothing.
    after = round_number + 1
    withdrawn = section.withdrawn.get(player, after + 1) <= after
    shows = section.no_shows.get(player, ())
    limit = section.config.no_show_limit
    at_limit = limit is not None and len([r for r in shows if r < after]) >= limit
    if withdrawn or at_limit or disqualifying_absence(section, player, round_number) is not None:
        return f"{out_reason(section, player, after)}: a request to continue cannot bring them back"
    if round_number + 1 in section.rounds:
        return (
            "a player's absence from a round results in disqualification unless the "
            "player requests to continue in writing before the pairing for the next "
            f"round is published: round {round_number + 1} is already paired"
        )
    return ""


def status_of(section: SectionRecord, player: int) -> str:
    """ "" for a player in the event; otherwise why they are out (pages, exports)."""
    start = section.withdrawn.get(player)
    if start is not None:
        why = section.withdraw_reasons.get(player, "")
        return f"withdrawn from round {start}" + (f" ({why})" if why else "")
    after = section.config.rounds + 1
    limit = section.config.no_show_limit
    shows = section.no_shows.get(player, ())
    if limit is not None and len(shows) >= limit:
        return f"out: {len(shows)} no-shows (limit {limit})"
    absent = disqualifying_absence(section, player, after)
    if absent is not None:
        if absent + 1 in section.rounds or absent >= section.config.rounds:
            return f"disqualified: absent in round {absent}"
        return f"absent in round {absent}: out unless they ask to continue"
    return ""


def eliminated(section: SectionRecord, player: int) -> bool:
    """Out of the event by its no-show rules (the limit reached, an absence in round 1
    where that excludes, or an absence that disqualifies), not by a withdrawal the
    arbiter recorded for another reason."""
    limit = section.config.no_show_limit
    shows = section.no_shows.get(player, ())
    if limit is not None and len(shows) >= limit:
        return True
    if 1 in shows and section.config.no_shows.first_round == "exclude":
        return True
    return disqualifying_absence(section, player, section.config.rounds + 1) is not None


def excluded_by_rules(section: SectionRecord, player: int) -> str:
    """Why the section's no-show rules put the player out (what the rules' withdrawal
    says), "" when they do not: an absence in round 1 where that excludes, or the
    no-show limit where reaching it withdraws."""
    rules = section.config.no_shows
    shows = section.no_shows.get(player, ())
    if 1 in shows and rules.first_round == "exclude":
        return "absent in round 1"
    limit = section.config.no_show_limit
    if limit is not None and len(shows) >= limit and rules.on_limit == "withdraw":
        return f"{len(shows)} no-shows"
    return ""


def prize_withheld(section: SectionRecord, player: int) -> str:
    """Why the player's prize is withheld ("" = it is not): the arbiter's decision,
    or an elimination when `[section.prizes] eliminated_lose_prizes` says so."""
    if player in section.prizes_withheld:
        return section.prizes_withheld[player]
    return disqualified_from_prizes(section, player)


def disqualified_from_prizes(section: SectionRecord, player: int) -> str:
    """Why an elimination takes the player out of the prizes ("" = it does not): a
    disqualified player is out of the prize ranking, so the prize always passes on,
    whatever `withheld` says of prizes the arbiter withholds (a winner missing the
    ceremony)."""
    if player in section.prizes_withheld:
        return ""
    prizes = section.config.prizes
    if (
        prizes is not None
        and prizes.eliminated_lose_prizes
        and player not in section.prizes_restored
        and eliminated(section, player)
    ):
        return "eliminated by the no-show rules"
    return ""


__all__ = [
    "continuation_refusal",
    "disqualified_from_prizes",
    "disqualifying_absence",
    "eliminated",
    "excluded_by_rules",
    "is_active",
    "out_reason",
    "prize_withheld",
    "status_of",
]
