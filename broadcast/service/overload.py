"""Is the service keeping up with the boards? Pure: the service hands in what it measured.

Four delays tell it: how long board events waited in the queue before they were handled,
how long a journal commit took (the disk), how late the event loop woke up for its tick
(no room for anyone, the drivers' reads included), and how long a bus line took to poll
all its boards (a busy loop serves every small exchange on the line late: a board's move
is read that much later). One of them over the threshold starts an
overload episode (one alert, `overload_alert`, and one log line); a run of calm samples
ends it.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.arbiter.alerts import Alert
from broadcast.phrases import Phrase, say

CALM_SAMPLES = 50  # consecutive calm measurements before the service counts as caught up


@dataclass(frozen=True, slots=True)
class LagNews:
    """The service fell behind (`behind`), or caught up again; `seconds` is the lag seen."""

    behind: bool
    seconds: float
    cause: str
    episode: int
    said: Phrase | None = None  # `cause` for the desk's languages


class LagWatch:
    """Overload episodes from measured delays (seconds of real time)."""

    def __init__(self, threshold: float) -> None:
        if not threshold > 0:
            raise ValueError(f"the overload threshold must be positive, got {threshold}")
        self.threshold = threshold
        self.behind = False
        self.episode = 0
        self.worst = 0.0  # the largest delay seen since start
        self._calm = 0
        self._news: LagNews | None = None

    def queue(self, seconds: float) -> None:
        self._sample(
            seconds,
            say("board events waited %(seconds)s s to be handled", seconds=f"{seconds:.2f}"),
        )

    def journal(self, seconds: float) -> None:
        self._sample(seconds, say("a journal commit took %(seconds)s s", seconds=f"{seconds:.2f}"))

    def loop(self, seconds: float) -> None:
        self._sample(
            seconds, say("the event loop woke up %(seconds)s s late", seconds=f"{seconds:.2f}")
        )

    def bus(self, seconds: float, port: str) -> None:
        self._sample(
            seconds,
            say(
                "the bus line on %(port)s took %(seconds)s s to poll its boards",
                port=port,
                seconds=f"{seconds:.2f}",
            ),
        )

    def _sample(self, seconds: float, cause: Phrase) -> None:
        self.worst = max(self.worst, seconds)
        if seconds > self.threshold:
            self._calm = 0
            if not self.behind:
                self.behind = True
                self.episode += 1
                self._news = LagNews(True, seconds, str(cause), self.episode, cause)
            return
        if not self.behind or seconds > self.threshold / 2:
            self._calm = 0
            return
        self._calm += 1
        if self._calm >= CALM_SAMPLES:
            self.behind = False
            self._calm = 0
            self._news = LagNews(False, seconds, str(cause), self.episode, cause)

    def news(self) -> LagNews | None:
        """What changed since the last call: an episode began or ended, or None."""
        news, self._news = self._news, None
        return news


def overload_alert(news: LagNews, now: float) -> Alert:
    """The desk's critical alert for an overload episode (`news.behind`)."""
    said = say(
        "the service is %(seconds)s s behind the boards (%(cause)s); moves are kept "
        "but appear late: fewer boards on this computer, or a faster disk",
        seconds=f"{news.seconds:.1f}",
        cause=news.said or news.cause,
    )
    return Alert(
        f"service-overloaded:{news.episode}",
        "service-overloaded",
        "critical",
        "",
        0,
        0,
        "",
        (),
        str(said),
        now,
        phrase=said,
    )


__all__ = ["CALM_SAMPLES", "LagNews", "LagWatch", "overload_alert"]
