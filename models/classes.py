"""The detector's class list, in a fixed order that trained weights depend on.

The order is the project's card order (``engine.cards.STANDARD_DECK``: spades, hearts, diamonds, clubs, each A..K),
then the jokers, then ``back`` (a face-down card or stack) and ``hand`` (hand + forearm). Never reorder: a model
trained on one order reads nonsense with another.
"""

from __future__ import annotations

from engine.cards import JOKERS, STANDARD_DECK

CLASSES: tuple[str, ...] = (*STANDARD_DECK, *JOKERS, "back", "hand")
NAME_TO_INDEX: dict[str, int] = {n: i for i, n in enumerate(CLASSES)}
INDEX_TO_NAME: dict[int, str] = dict(enumerate(CLASSES))
FACES: tuple[str, ...] = (*STANDARD_DECK, *JOKERS)  # the 54 cards that have a face to render
BACK: int = NAME_TO_INDEX["back"]
HAND: int = NAME_TO_INDEX["hand"]


def class_index(name: str) -> int:
    """Index of a class name (``"10H"``, ``"back"``); KeyError says which name was wrong."""
    try:
        return NAME_TO_INDEX[name]
    except KeyError:
        raise KeyError(f"not a detector class: {name!r}") from None
