"""Hints for the race games (Speed, Spit): a legal play the camera can see, said when the table has gone quiet.

Pure: a referee's state in, a :class:`Hint` out; no clock (when to say it is ``tablecam.hints.HintTimer``'s job).
A hint only names what is visible, so it never gives away hidden cards:

- Spit: the column tops are face up, so a hint names a player's column top that fits a centre pile (ST-2; ST-7
  when only the ace wrap makes it fit), judged with ``engine.cards.adjacent`` and the referee's own ``wraps``
  setting, as ``SpitReferee`` judges its plays. No fitting top: no hint (both stuck is the referee's ruling).
- Speed: hands are hidden, so a hint names the ranks each centre top takes (SP-2, honouring ``ace_wraps``),
  leaving out a rank whose four cards already lie face up on the table.

No hint while the state is not settled or not in play: piles not started, flips (spit cards, side cards) due,
a race still inside its tie window, the round over (Spit's pile choice) or the game ended.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.cards import RANK_NAMES, VALUE_RANK, adjacent, card_name, rank, suit, value
from engine.games.speed import SpeedReferee
from engine.games.spit import SpitReferee
from engine.referee import Referee

#: games that give hints (the live loop asks only for these)
HINT_GAMES: tuple[str, ...] = ("speed", "spit")

#: Mandarin words for the sentences (the voice is espeak-ng's ``cmn``, as for verdicts with ``lang=zh``)
RANK_ZH: dict[str, str] = {"A": "A", "2": "二", "3": "三", "4": "四", "5": "五", "6": "六", "7": "七", "8": "八",
                           "9": "九", "10": "十", "J": "J", "Q": "Q", "K": "K"}
SUIT_ZH: dict[str, str] = {"S": "黑桃", "H": "红桃", "D": "方块", "C": "梅花"}
PILE_ZH: dict[str, str] = {"left": "左边", "right": "右边"}


@dataclass(frozen=True, slots=True)
class Hint:
    """A legal play visible on the table, with the sentence to say.

    Spit names ``player``, ``card`` and the pile (``zone``); Speed names neither player nor card (hands are
    hidden) and covers both piles, so its ``zone`` is None."""

    player: str | None
    card: str | None
    zone: str | None
    rule: str
    say: str
    say_zh: str

    def text(self, lang: str = "en") -> str:
        """The sentence in ``lang`` (``en`` or ``zh``, as the callouts' ``lang`` setting)."""
        return self.say_zh if lang == "zh" else self.say

    def to_dict(self, t: float) -> dict[str, Any]:
        """The log line (``type: hint``): replay skips it, as it skips verdicts (EVENTS.md: readers ignore what
        they do not know)."""
        return {"t": round(t, 6), "type": "hint", "player": self.player, "card": self.card, "zone": self.zone,
                "rule": self.rule, "say": self.say}


def visible_hints(referee: Referee) -> list[Hint]:
    """Every hint the table allows now, in a fixed order (the timer says the first one not just said);
    empty for other games and for states that are not in play."""
    if referee.outcome is not None:
        return []
    if isinstance(referee, SpitReferee):
        return _spit(referee)
    if isinstance(referee, SpeedReferee):
        return _speed(referee)
    return []


def visible_hint(referee: Referee) -> Hint | None:
    """The first of :func:`visible_hints`, or None."""
    hints = visible_hints(referee)
    return hints[0] if hints else None


# --------------------------------------------------------------------------------------------------- Spit
def _spit(ref: SpitReferee) -> list[Hint]:
    """Column tops that fit a judged pile top: players in seat order, columns 1-5, left pile first."""
    if ref.phase != "play" or ref.owed or ref.flying or ref.slaps is not None:
        return []
    piles = [(z, c) for z, c in ref.top.items() if c is not None]
    hints: list[Hint] = []
    for p in ref.players:
        for col in ref.cols_of[p]:
            up = ref.up[col]
            if not up:
                continue
            c = up[-1]
            for z, top in piles:
                if not adjacent(c, top, ref.wraps):
                    continue
                wrap = abs(value(c) - value(top)) == 12  # type: ignore[operator]  # as SpitReferee._judge: ST-7
                r, s, tr = rank(c) or "", suit(c) or "", rank(top) or ""
                say = f"Hint: {p}, {card_name(c)} on the {RANK_NAMES[tr]}, {z} pile"
                zh = f"提示：{p}，{SUIT_ZH[s]}{RANK_ZH[r]}放在{PILE_ZH[z]}的{RANK_ZH[tr]}上"
                hints.append(Hint(p, c, z, "ST-7" if wrap else "ST-2", say, zh))
    return hints


# -------------------------------------------------------------------------------------------------- Speed
def fitting_ranks(top: str, ace_wraps: bool) -> list[str]:
    """Ranks legal on ``top`` (SP-2): one below, then one above; with ``ace_wraps`` A touches both 2 and K."""
    v: int = value(top)  # type: ignore[assignment]
    out = []
    for w in (v - 1, v + 1):
        if ace_wraps:
            w = (w - 1) % 13 + 1
        if 1 <= w <= 13:
            out.append(VALUE_RANK[w])
    return out


def _a(rank_text: str) -> str:
    name = RANK_NAMES[rank_text]
    return ("an " if name[0] in "aeiou" else "a ") + name


def _speed(ref: SpeedReferee) -> list[Hint]:
    """The ranks each standing top takes; a rank whose four cards all lie face up (and stay there) is left out."""
    if ref.flips_due or ref.races or ref.finishers is not None or not all(ref.piles.get(z) for z in ("left", "right")):
        return []
    shown = Counter(rank(c) for c in ref.where if c not in ref.pending)  # an illegal card goes back to a hand
    en, zh = [], []
    for z in ("left", "right"):
        ranks = [r for r in fitting_ranks(ref.piles[z][-1], ref.wraps) if shown[r] < 4]
        if ranks:
            en.append(f"{z} takes " + " or ".join(_a(r) for r in ranks))
            zh.append(f"{PILE_ZH[z]}可以出" + "或".join(RANK_ZH[r] for r in ranks))
    if not en:
        return []
    return [Hint(None, None, None, "SP-2", "Hint: " + "; ".join(en), "提示：" + "；".join(zh))]
